package dev.skillgate.console;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Starts Selenium's {@link ChromeDriver} on Debian's {@code chromium} through Debian's
 * {@code chromedriver}, both named by absolute path so that Selenium Manager is never consulted and
 * nothing is downloaded (decision 0704). Headless, as root ({@code --no-sandbox}), with a fresh
 * profile per start and Chromium's own network chatter (sync, component updates, background
 * requests, QUIC) switched off: the only pages it loads are the console's on loopback.
 */
final class Chromium {
    /** Chromium's flags: headless as root, no GPU, no first-run or background traffic of its own. */
    static final List<String> FLAGS = List.of(
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--window-size=1280,2000");

    /*
     * The tests use no Chrome DevTools Protocol (only W3C WebDriver) and so ship no
     * selenium-devtools-vNNN; without this, every session warns that no CDP implementation matches
     * the browser's version. Held in a field: java.util.logging keeps loggers weakly.
     */
    private static final Logger CDP_VERSION_FINDER = Logger.getLogger("org.openqa.selenium.devtools.CdpVersionFinder");

    static {
        CDP_VERSION_FINDER.setLevel(Level.SEVERE);
    }

    private Chromium() {}

    /** The chromedriver binary: {@code -Dskillgate.test.chromedriver} or the first on PATH. */
    static Optional<Path> chromedriver() {
        return binary("skillgate.test.chromedriver", List.of("chromedriver"));
    }

    /** The browser: {@code -Dskillgate.test.chromium} or the first of chromium / chromium-browser on PATH. */
    static Optional<Path> chromium() {
        return binary("skillgate.test.chromium", List.of("chromium", "chromium-browser", "google-chrome"));
    }

    /** Why the browser tests cannot run here, or empty when they can. */
    static Optional<String> unavailable() {
        List<String> missing = new ArrayList<>();
        if (chromium().isEmpty()) {
            missing.add("chromium (-Dskillgate.test.chromium or PATH)");
        }
        if (chromedriver().isEmpty()) {
            missing.add("chromedriver (-Dskillgate.test.chromedriver or PATH)");
        }
        if (missing.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("browser tests skipped: chromium and chromedriver are not installed; not found: "
                + String.join(", ", missing)
                + " (apt-get install -y chromium chromium-driver; .ci/run installs them)");
    }

    private static Optional<Path> binary(String property, List<String> names) {
        String set = System.getProperty(property);
        if (set != null && !set.isBlank()) {
            Path p = Path.of(set);
            return p.isAbsolute() && Files.isRegularFile(p) && Files.isExecutable(p)
                    ? Optional.of(p)
                    : Optional.empty();
        }
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String name : names) {
            for (String dir : path.split(":")) {
                if (dir.isEmpty() || !Path.of(dir).isAbsolute()) {
                    continue;
                }
                Path p = Path.of(dir, name);
                if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                    return Optional.of(p);
                }
            }
        }
        return Optional.empty();
    }

    /**
     * A new browser session: chromedriver on a free loopback port logging to {@code dir}, chromium
     * with a fresh profile under {@code dir}. Call only when {@link #unavailable()} is empty.
     */
    static ChromeDriver start(Path dir) throws IOException {
        Path driver = chromedriver().orElseThrow();
        Path browser = chromium().orElseThrow();
        Path profile = Files.createDirectories(dir.resolve("profile"));
        // The driver named in the service: DriverFinder then skips Selenium Manager altogether.
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(driver.toFile())
                .usingAnyFreePort()
                .withLogFile(dir.resolve("chromedriver.log").toFile())
                .withTimeout(Await.WAIT)
                .build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(browser.toFile());
        options.addArguments(FLAGS);
        options.addArguments("--user-data-dir=" + profile);
        ChromeDriver session = new ChromeDriver(service, options);
        session.manage().timeouts().pageLoadTimeout(Await.WAIT).scriptTimeout(Duration.ofSeconds(30));
        return session;
    }
}
