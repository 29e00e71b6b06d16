package dev.skillgate.console;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A small W3C WebDriver client (the protocol Selenium speaks) over the JDK's HttpClient, driving
 * Debian's {@code chromedriver} and headless {@code chromium}: start a session, navigate, find,
 * click, read text, run a script, take a screenshot. Decision 0700 says why it is not selenium-java.
 */
final class WebDriver implements AutoCloseable {
    private static final String ELEMENT = "element-6066-11e4-a52e-4f735466cecf";
    private static final JsonMapper JSON = JsonMapper.builder().build();
    static final Duration WAIT = Duration.ofSeconds(60);

    private final Process driver;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final URI base;
    private final String session;

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
        if (chromedriver().isEmpty() || chromium().isEmpty()) {
            return Optional.of("browser tests skipped: chromium and chromedriver are not installed "
                    + "(apt-get install -y chromium chromium-driver; .ci/run installs them)");
        }
        return Optional.empty();
    }

    private static Optional<Path> binary(String property, List<String> names) {
        String set = System.getProperty(property);
        if (set != null && !set.isBlank()) {
            Path p = Path.of(set);
            return Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
        }
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String name : names) {
            for (String dir : path.split(":")) {
                if (dir.isEmpty()) {
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

    WebDriver(Path profile) throws IOException, InterruptedException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path log = profile.resolve("chromedriver.log");
        driver = new ProcessBuilder(chromedriver().orElseThrow().toString(), "--port=" + port, "--log-path=" + log)
                .redirectErrorStream(true)
                .redirectOutput(profile.resolve("chromedriver.out").toFile())
                .start();
        base = URI.create("http://127.0.0.1:" + port);
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            try {
                if (call("GET", "/status", null).path("value").path("ready").asBoolean()) {
                    break;
                }
            } catch (IOException e) {
                // not up yet
            }
            if (System.nanoTime() > deadline || !driver.isAlive()) {
                driver.destroyForcibly();
                throw new IOException("chromedriver did not start");
            }
            Thread.sleep(100);
        }
        ObjectNode caps = JSON.createObjectNode();
        ObjectNode always = caps.putObject("capabilities").putObject("alwaysMatch");
        always.put("browserName", "chrome");
        ObjectNode options = always.putObject("goog:chromeOptions");
        options.put("binary", chromium().orElseThrow().toString());
        ArrayNode args = options.putArray("args");
        for (String a : List.of(
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--window-size=1280,2000",
                "--user-data-dir=" + profile.resolve("profile"))) {
            args.add(a);
        }
        JsonNode created;
        try {
            created = call("POST", "/session", caps);
        } catch (IOException | RuntimeException e) {
            driver.destroyForcibly();
            throw e;
        }
        session = created.path("value").path("sessionId").asString();
        if (session.isEmpty()) {
            driver.destroyForcibly();
            throw new IOException("no WebDriver session: " + created);
        }
    }

    private JsonNode call(String method, String path, JsonNode body) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(WAIT);
        if (body == null) {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            b.header("Content-Type", "application/json; charset=utf-8")
                    .method(method, HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)));
        }
        HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        JsonNode n = JSON.readTree(r.body());
        if (r.statusCode() >= 400) {
            throw new IllegalStateException("WebDriver " + method + " " + path + ": "
                    + n.path("value").path("error") + " " + n.path("value").path("message"));
        }
        return n;
    }

    private JsonNode session(String method, String path, JsonNode body) {
        try {
            return call(method, "/session/" + session + path, body).path("value");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    void open(URI uri) {
        ObjectNode b = JSON.createObjectNode();
        b.put("url", uri.toString());
        session("POST", "/url", b);
    }

    String url() {
        return session("GET", "/url", null).asString();
    }

    /** The elements matching {@code css} now. */
    List<String> findAll(String css) {
        ObjectNode b = JSON.createObjectNode();
        b.put("using", "css selector");
        b.put("value", css);
        List<String> out = new ArrayList<>();
        for (JsonNode e : session("POST", "/elements", b)) {
            out.add(e.path(ELEMENT).asString());
        }
        return out;
    }

    /** Waits for the first element matching {@code css}. */
    String find(String css) {
        await(() -> !findAll(css).isEmpty(), "an element " + css);
        return findAll(css).get(0);
    }

    void click(String element) {
        session("POST", "/element/" + element + "/click", JSON.createObjectNode());
    }

    String text(String element) {
        return session("GET", "/element/" + element + "/text", null).asString();
    }

    String attribute(String element, String name) {
        JsonNode v = session("GET", "/element/" + element + "/attribute/" + name, null);
        return v.isNull() ? null : v.asString();
    }

    boolean enabled(String element) {
        return session("GET", "/element/" + element + "/enabled", null).asBoolean();
    }

    /** Runs {@code script} in the page (as a function body; {@code arguments} are {@code args}). */
    JsonNode execute(String script, Object... args) {
        ObjectNode b = JSON.createObjectNode();
        b.put("script", script);
        ArrayNode a = b.putArray("args");
        for (Object o : args) {
            a.add(String.valueOf(o));
        }
        return session("POST", "/execute/sync", b);
    }

    /** Runs an async script: the last argument is the callback. */
    JsonNode executeAsync(String script, Object... args) {
        ObjectNode b = JSON.createObjectNode();
        b.put("script", script);
        ArrayNode a = b.putArray("args");
        for (Object o : args) {
            a.add(String.valueOf(o));
        }
        return session("POST", "/execute/async", b);
    }

    void screenshot(Path file) throws IOException {
        String png = session("GET", "/screenshot", null).asString();
        Files.createDirectories(file.getParent());
        Files.write(file, Base64.getDecoder().decode(png.getBytes(StandardCharsets.US_ASCII)));
    }

    /** Polls {@code condition} until it holds (liveness only: a generous deadline). */
    static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    @Override
    public void close() {
        try {
            session("DELETE", "", null);
        } catch (RuntimeException e) {
            // the browser is gone already
        }
        driver.destroy();
        try {
            if (!driver.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
                driver.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            driver.destroyForcibly();
        }
    }
}
