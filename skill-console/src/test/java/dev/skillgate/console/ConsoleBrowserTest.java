package dev.skillgate.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.engine.ExecutionRequest;
import dev.skillgate.engine.SkillGate;
import dev.skillgate.engine.SkillGateAdmin;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.RunId;
import dev.skillgate.testkit.SkillBundle;
import dev.skillgate.testkit.TestNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A person at the console in real headless Chromium (Debian's chromium + chromedriver, over the W3C
 * WebDriver protocol), a real gate behind it running real {@code node} under the supervisor. Skipped,
 * with the reason, when chromium or chromedriver is missing; {@code .ci/run} installs both.
 */
class ConsoleBrowserTest {
    /** Markup a hostile skill puts in its description; if it ever became HTML, the marker would be set. */
    static final String HOSTILE = "<img src=x onerror=\"document.body.dataset.pwned='yes'\"> greets";

    static final String SCRIPT = "import { appendFileSync } from 'node:fs';\n"
            + "const chunks = [];\n"
            + "for await (const c of process.stdin) chunks.push(c);\n"
            + "const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));\n"
            + "appendFileSync('ran.txt', input.name + '\\n');\n"
            + "process.stdout.write(JSON.stringify({ greeting: 'Hello, ' + input.name + '!' }));\n";

    static final String INPUT = "{\"name\":\"<b>Ada</b>\"}";

    private static WebDriver browser;
    private static Path browserDir;

    @TempDir
    Path tmp;

    private Path workspace;
    private SkillGateAdmin admin;
    private ApprovalConsole console;
    private SkillGate gate;

    @BeforeAll
    static void startBrowser() throws Exception {
        Assumptions.assumeTrue(
                WebDriver.unavailable().isEmpty(), WebDriver.unavailable().orElse(""));
        Assumptions.assumeTrue(TestNode.available(), "browser tests skipped: no node found");
        browserDir = Files.createTempDirectory("skillgate-console-browser");
        browser = new WebDriver(browserDir);
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.close();
        }
    }

    private void start(Duration window) throws IOException {
        Path skills = Files.createDirectories(tmp.resolve("skills"));
        workspace = Files.createDirectories(tmp.resolve("workspace"));
        SkillBundle.under(skills, "probe")
                .description(HOSTILE)
                .script("scripts/probe.mjs", SCRIPT)
                .inputSchema("{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"maxLength\":40}},"
                        + "\"required\":[\"name\"],\"additionalProperties\":false}")
                .outputSchema("{\"type\":\"object\",\"properties\":{\"greeting\":{\"type\":\"string\"}},"
                        + "\"required\":[\"greeting\"]}")
                .write();
        admin = SkillGateAdmin.open(tmp.resolve("data"));
        AtomicReference<SkillGate> ref = new AtomicReference<>();
        console = ApprovalConsole.builder(admin)
                .answerWindow(window)
                .catalog(() -> ref.get() == null ? List.of() : ref.get().catalog())
                .start();
        gate = SkillGate.builder()
                .admin(admin)
                .skillRoot(skills)
                .nodeRuntime(TestNode.runtime())
                .approvalChannel(console.channel())
                .approvalTimeout(window)
                .build();
        ref.set(gate);
    }

    @AfterEach
    void stop() {
        if (gate != null) {
            gate.close();
        }
        if (console != null) {
            console.close();
        }
        if (admin != null) {
            admin.close();
        }
    }

    /** Runs the probe the way a host does: in the background, showing the outcome on the page. */
    private CompletableFuture<ExecutionEnvelope> run(RunId run) {
        return CompletableFuture.supplyAsync(() -> {
            ExecutionEnvelope env =
                    gate.execute(ExecutionRequest.of(run, AgentId.of("agent-1"), "probe", INPUT, workspace));
            console.showOutcome(env);
            return env;
        });
    }

    private String runs() throws IOException {
        Path ran = workspace.resolve("ran.txt");
        return Files.exists(ran) ? Files.readString(ran, StandardCharsets.UTF_8) : "";
    }

    private String field(String article, String name) {
        return browser.text(browser.find(article + " [data-field=" + name + "]"));
    }

    private static Path screenshots() {
        return Path.of("target", "console-screenshots");
    }

    @Test
    void aPersonSeesEveryFieldViewsTheSourceApprovesAndSeesTheEnvelope() throws Exception {
        start(Duration.ofMinutes(5));
        RunId run = RunId.random();
        CompletableFuture<ExecutionEnvelope> result = run(run);
        browser.open(console.launchUri());
        String article = "article.request[data-state=PENDING]";
        browser.find(article);
        assertThat(browser.url()).doesNotContain("token");

        String warning = browser.text(browser.find(article + " .warning"));
        assertThat(warning).isEqualTo(ApprovalRequest.FULL_TRUST_WARNING);
        assertThat(field(article, "skill")).isEqualTo("probe");
        assertThat(field(article, "description")).isEqualTo(HOSTILE);
        assertThat(field(article, "run")).isEqualTo(run.value());
        assertThat(field(article, "agent")).isEqualTo("agent-1");
        assertThat(field(article, "revision")).startsWith("sha256:");
        assertThat(field(article, "workspace")).contains(workspace.toRealPath().toString());
        assertThat(field(article, "entrypoint")).isEqualTo("scripts/probe.mjs");
        assertThat(field(article, "argv"))
                .contains(TestNode.binary().orElseThrow().toString());
        assertThat(field(article, "runtime"))
                .contains(TestNode.runtime().identity().version());
        assertThat(field(article, "limits")).contains("timeout 10000 ms").contains("stdout");
        assertThat(field(article, "enforced")).contains("isolation: none").contains("deadline");
        assertThat(field(article, "notEnforced")).contains("network access");
        assertThat(field(article, "inputDigest")).startsWith("sha256:");
        assertThat(field(article, "input")).contains("\"name\"").contains("<b>Ada</b>");
        assertThat(field(article, "createdAt")).isNotEmpty();
        assertThat(field(article, "expiresAt")).isNotEmpty();
        String files = browser.text(browser.find(article + " table.files"));
        assertThat(files).contains("scripts/probe.mjs").contains("SKILL.md").contains("sha256:");
        assertThat(files).contains(Long.toString(SCRIPT.getBytes(StandardCharsets.UTF_8).length));
        WebDriver.await(
                () -> browser.text(browser.find(article + " .countdown")).contains("s left"), "the countdown");

        // The markup is text: no element was made from it and its handler never ran.
        assertThat(browser.findAll("article.request img")).isEmpty();
        assertThat(browser.findAll("article.request b")).isEmpty();
        assertThat(browser.execute("return document.body.dataset.pwned || 'no';")
                        .asString())
                .isEqualTo("no");

        browser.click(browser.find(article + " .view-source"));
        WebDriver.await(
                () -> browser.text(browser.find(article + " pre.source")).contains("appendFileSync"), "the source");
        browser.screenshot(screenshots().resolve("console-pending.png"));
        assertThat(runs()).isEmpty();

        browser.click(browser.find(article + " button.approve"));
        ExecutionEnvelope env = result.get(120, TimeUnit.SECONDS);
        assertThat(env.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(runs()).isEqualTo("<b>Ada</b>\n");
        String outcome = ".outcome.SUCCEEDED[data-run='" + run.value() + "']";
        WebDriver.await(() -> !browser.findAll(outcome).isEmpty(), "the envelope on the page");
        assertThat(browser.text(browser.find(outcome + " [data-field=output]"))).contains("Hello, <b>Ada</b>!");
        assertThat(browser.text(browser.find(outcome + " [data-field=cleanup]")))
                .contains("PROVEN");
        assertThat(browser.text(browser.find(outcome + " [data-field=revision]")))
                .isEqualTo(env.revision().orElseThrow().toString());
        WebDriver.await(
                () -> !browser.findAll("article.request[data-state=APPROVED]").isEmpty(), "approved");
        assertThat(browser.findAll("article.request img, .outcome b")).isEmpty();
        assertThat(browser.execute("return document.body.dataset.pwned || 'no';")
                        .asString())
                .isEqualTo("no");
        browser.screenshot(screenshots().resolve("console-approved.png"));
    }

    @Test
    void aDenialRunsNothing() throws Exception {
        start(Duration.ofMinutes(5));
        RunId run = RunId.random();
        CompletableFuture<ExecutionEnvelope> result = run(run);
        browser.open(console.launchUri());
        String article = "article.request[data-state=PENDING]";
        browser.click(browser.find(article + " button.deny"));
        ExecutionEnvelope env = result.get(120, TimeUnit.SECONDS);
        assertThat(env.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(env.errors()).anyMatch(d -> d.code() == ErrorCode.CONSENT_DENIED);
        assertThat(runs()).isEmpty();
        WebDriver.await(
                () -> !browser.findAll("article.request[data-state=DENIED]").isEmpty(), "denied");
        String denied = browser.find("article.request[data-state=DENIED] button.approve");
        assertThat(browser.enabled(denied)).isFalse();
        WebDriver.await(() -> !browser.findAll(".outcome.REFUSED").isEmpty(), "the refusal on the page");
    }

    @Test
    void pastItsExpiryAClickIsRefusedAndNothingRuns() throws Exception {
        start(Duration.ofSeconds(4));
        RunId run = RunId.random();
        CompletableFuture<ExecutionEnvelope> result = run(run);
        browser.open(console.launchUri());
        String article = "article.request[data-state=PENDING]";
        String id = browser.attribute(browser.find(article), "data-id");
        // A page that cannot refresh (a sleeping laptop, a stalled network): its list requests never
        // answer, so the approve button stays as it was while the request expires on the server.
        browser.execute("const real = window.fetch;"
                + "window.fetch = (url, init) => String(url).endsWith('/api/requests')"
                + " ? new Promise(() => {}) : real(url, init);");
        WebDriver.await(() -> console.requestCounts().containsKey("EXPIRED"), "expiry on the server");
        ExecutionEnvelope env = result.get(120, TimeUnit.SECONDS);
        assertThat(env.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(env.errors()).anyMatch(d -> d.code() == ErrorCode.CONSENT_TIMEOUT);
        String approve = browser.find("#req-" + id + " button.approve");
        assertThat(browser.enabled(approve)).isTrue();
        assertThat(browser.text(browser.find("#req-" + id + " .countdown"))).isEqualTo("time is up");
        browser.click(approve);
        WebDriver.await(
                () -> "DECISION_REFUSED"
                        .equals(browser.attribute(browser.find("#req-" + id + " .result"), "data-code")),
                "the refusal of the late click");
        assertThat(browser.text(browser.find("#req-" + id + " .result")))
                .contains("DECISION_REFUSED")
                .contains("EXPIRED")
                .contains("nothing was decided");
        assertThat(console.requestCounts()).containsEntry("EXPIRED", 1).doesNotContainKey("APPROVED");
        assertThat(runs()).isEmpty();
        // Once the page can refresh again it shows the expiry and disables the buttons.
        browser.open(console.baseUri());
        browser.find("article.request[data-state=EXPIRED]");
        assertThat(browser.enabled(browser.find("article.request[data-state=EXPIRED] button.approve")))
                .isFalse();
        assertThat(runs()).isEmpty();
    }

    @Test
    void theSettingsPageTrustsTheRevisionShownAndTheNextRunDoesNotAsk() throws Exception {
        start(Duration.ofMinutes(5));
        CompletableFuture<ExecutionEnvelope> first = run(RunId.random());
        browser.open(console.launchUri());
        browser.click(browser.find("article.request[data-state=PENDING] button.approve"));
        ExecutionEnvelope env = first.get(120, TimeUnit.SECONDS);
        assertThat(env.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        String revision = env.revision().orElseThrow().toString();

        browser.click(browser.find("nav a[href='/settings']"));
        browser.find("body[data-ready=true][data-mode=ASK_EACH_TIME]");
        browser.click(browser.find("#mode option[value=TRUST_SELECTED_REVISIONS]"));
        browser.click(browser.find("#save-mode"));
        browser.find("body[data-mode=TRUST_SELECTED_REVISIONS]");
        String candidate = "#candidates tr[data-revision='" + revision + "']";
        browser.click(browser.find(candidate + " button.trust"));
        WebDriver.await(
                () -> !browser.findAll("#scopes tr[data-revision='" + revision + "']")
                        .isEmpty(),
                "the scope");
        String scope = browser.text(browser.find("#scopes tr[data-revision='" + revision + "']"));
        assertThat(scope).contains("agent-1").doesNotContain("draft");
        String receipt = admin.currentPolicy()
                .scopes()
                .get(0)
                .receipt()
                .orElseThrow()
                .id()
                .toString();
        assertThat(scope).contains(receipt);
        assertThat(browser.text(browser.find("#audit-state"))).isIn("OK", "DEGRADED");
        assertThat(browser.text(browser.find("#trust")))
                .contains("trusted revision")
                .contains("TRUSTED");
        browser.screenshot(screenshots().resolve("console-settings.png"));

        int before = console.requestCounts().values().stream()
                .mapToInt(Integer::intValue)
                .sum();
        ExecutionEnvelope second = run(RunId.random()).get(120, TimeUnit.SECONDS);
        assertThat(second.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(console.requestCounts().values().stream()
                        .mapToInt(Integer::intValue)
                        .sum())
                .isEqualTo(before);
        assertThat(runs()).isEqualTo("<b>Ada</b>\n<b>Ada</b>\n");
    }
}
