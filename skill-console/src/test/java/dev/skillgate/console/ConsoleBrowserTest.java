package dev.skillgate.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.ActivationApprovalRequest;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.ConsentResult;
import dev.skillgate.consent.PlanSnapshot;
import dev.skillgate.consent.PlannedStep;
import dev.skillgate.engine.Activation;
import dev.skillgate.engine.ExecutionRequest;
import dev.skillgate.engine.SkillGate;
import dev.skillgate.engine.SkillGateAdmin;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import dev.skillgate.testkit.SkillBundle;
import dev.skillgate.testkit.TestNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A person at the console in real headless Chromium, driven by Selenium (Debian's chromium through
 * Debian's chromedriver, named by path: Selenium Manager downloads nothing), a real gate behind it
 * running real {@code node} under the supervisor. Skipped, with the reason, when chromium or
 * chromedriver is missing; {@code .ci/run} installs both.
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

    /** A prompt skill's description with markup of its own; it too must stay text. */
    static final String HOSTILE_GUIDE = "<svg onload=\"document.body.dataset.pwned='yes'\"></svg> guides";

    static final String GUIDE_BODY = "# Guide\n\nAlways answer <em>politely</em>.\n";

    private static final AgentContext CONTEXT =
            AgentContext.of("console-test", SemVer.parse("1.0.0"), Set.of(), Set.of(), PermissionMode.READ_ONLY);

    private static ChromeDriver browser;
    private static WebDriverWait wait;
    private static Path browserDir;

    @TempDir
    Path tmp;

    private Path workspace;
    private SkillGateAdmin admin;
    private ApprovalConsole console;
    private SkillGate gate;

    @BeforeAll
    static void startBrowser() throws Exception {
        Optional<String> unavailable = Chromium.unavailable();
        // Said in the build's output too, not only in the report: a skipped browser test is visible.
        unavailable.ifPresent(System.err::println);
        Assumptions.assumeTrue(unavailable.isEmpty(), unavailable.orElse(""));
        Assumptions.assumeTrue(TestNode.available(), "browser tests skipped: no node found");
        browserDir = Files.createTempDirectory("skillgate-console-browser");
        browser = Chromium.start(browserDir);
        wait = new WebDriverWait(browser, Await.WAIT, Duration.ofMillis(100));
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    /** Waits for the first element matching {@code css}. */
    private static WebElement find(String css) {
        return wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(css)));
    }

    /** The elements matching {@code css} now. */
    private static List<WebElement> findAll(String css) {
        return browser.findElements(By.cssSelector(css));
    }

    private static Object script(String js) {
        return ((JavascriptExecutor) browser).executeScript(js);
    }

    /** The marker the hostile description's handler would set, had it ever become an element. */
    private static String pwned() {
        return String.valueOf(script("return document.body.dataset.pwned || 'no';"));
    }

    private static void screenshot(String name) throws IOException {
        Path file = Path.of("target", "console-screenshots", name);
        Files.createDirectories(file.getParent());
        Files.write(file, browser.getScreenshotAs(OutputType.BYTES));
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
        SkillBundle.under(skills, "guide")
                .noManifest()
                .description(HOSTILE_GUIDE)
                .body(GUIDE_BODY)
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

    private static String field(String article, String name) {
        return find(article + " [data-field=" + name + "]").getText();
    }

    /**
     * Every element below {@code container} (and the page itself) that reaches past the right edge of
     * the container's content box, as {@code tag.class right>limit}: a table that overflows its card
     * hides or clips what a person must read before approving.
     */
    private static List<String> overflowing(String container) {
        Object found = ((JavascriptExecutor) browser).executeScript("""
                const box = document.querySelector(arguments[0]);
                if (!box) return ['no ' + arguments[0]];
                const r = box.getBoundingClientRect();
                const st = getComputedStyle(box);
                const limit = r.right - parseFloat(st.paddingRight) - parseFloat(st.borderRightWidth) + 0.5;
                const out = [];
                for (const e of box.querySelectorAll('*')) {
                  const right = e.getBoundingClientRect().right;
                  if (right > limit) out.push(e.tagName.toLowerCase() + '.' + e.className + ' ' + right + '>' + limit);
                }
                const doc = document.documentElement;
                if (doc.scrollWidth > doc.clientWidth) out.push('page ' + doc.scrollWidth + '>' + doc.clientWidth);
                return out;
                """, container);
        return ((List<?>) found).stream().map(String::valueOf).toList();
    }

    /** The workspace field: the real path, then the file key in one pair of parentheses. */
    private static void workspaceShownOnce(String article, Path workspace) throws IOException {
        String shown = field(article, "workspace");
        assertThat(shown).startsWith(workspace.toRealPath() + " (").endsWith(")");
        assertThat(shown).doesNotContain("((").doesNotContain("))").doesNotContain("  ");
        assertThat(shown.chars().filter(c -> c == '(').count()).isEqualTo(1);
    }

    @Test
    void aPersonSeesEveryFieldViewsTheSourceApprovesAndSeesTheEnvelope() throws Exception {
        start(Duration.ofMinutes(5));
        RunId run = RunId.random();
        CompletableFuture<ExecutionEnvelope> result = run(run);
        browser.get(console.launchUri().toString());
        String article = "article.request[data-state=PENDING]";
        find(article);
        assertThat(browser.getCurrentUrl()).doesNotContain("token");

        String warning = find(article + " .warning").getText();
        assertThat(warning).isEqualTo(ApprovalRequest.FULL_TRUST_WARNING);
        assertThat(field(article, "skill")).isEqualTo("probe");
        assertThat(field(article, "description")).isEqualTo(HOSTILE);
        assertThat(field(article, "run")).isEqualTo(run.value());
        assertThat(field(article, "agent")).isEqualTo("agent-1");
        assertThat(field(article, "revision")).startsWith("sha256:");
        assertThat(field(article, "workspace")).contains(workspace.toRealPath().toString());
        workspaceShownOnce(article, workspace);
        assertThat(overflowing(article))
                .as("elements past the card's right edge")
                .isEmpty();
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
        String files = find(article + " table.files").getText();
        assertThat(files).contains("scripts/probe.mjs").contains("SKILL.md").contains("sha256:");
        assertThat(files).contains(Long.toString(SCRIPT.getBytes(StandardCharsets.UTF_8).length));
        Await.until(() -> find(article + " .countdown").getText().contains("s left"), "the countdown");

        // The markup is text: no element was made from it and its handler never ran.
        assertThat(findAll("article.request img")).isEmpty();
        assertThat(findAll("article.request b")).isEmpty();
        assertThat(pwned()).isEqualTo("no");

        find(article + " .view-source").click();
        Await.until(() -> find(article + " pre.source").getText().contains("appendFileSync"), "the source");
        screenshot("console-pending.png");
        assertThat(runs()).isEmpty();

        find(article + " button.approve").click();
        ExecutionEnvelope env = result.get(120, TimeUnit.SECONDS);
        assertThat(env.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(runs()).isEqualTo("<b>Ada</b>\n");
        String outcome = ".outcome.SUCCEEDED[data-run='" + run.value() + "']";
        Await.until(() -> !findAll(outcome).isEmpty(), "the envelope on the page");
        assertThat(find(outcome + " [data-field=output]").getText()).contains("Hello, <b>Ada</b>!");
        assertThat(find(outcome + " [data-field=cleanup]").getText()).contains("PROVEN");
        assertThat(find(outcome + " [data-field=revision]").getText())
                .isEqualTo(env.revision().orElseThrow().toString());
        Await.until(() -> !findAll("article.request[data-state=APPROVED]").isEmpty(), "approved");
        assertThat(findAll("article.request img, .outcome b")).isEmpty();
        assertThat(pwned()).isEqualTo("no");
        screenshot("console-approved.png");
    }

    @Test
    void aDenialRunsNothing() throws Exception {
        start(Duration.ofMinutes(5));
        RunId run = RunId.random();
        CompletableFuture<ExecutionEnvelope> result = run(run);
        browser.get(console.launchUri().toString());
        String article = "article.request[data-state=PENDING]";
        find(article + " button.deny").click();
        ExecutionEnvelope env = result.get(120, TimeUnit.SECONDS);
        assertThat(env.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(env.errors()).anyMatch(d -> d.code() == ErrorCode.CONSENT_DENIED);
        assertThat(runs()).isEmpty();
        Await.until(() -> !findAll("article.request[data-state=DENIED]").isEmpty(), "denied");
        WebElement denied = find("article.request[data-state=DENIED] button.approve");
        assertThat(denied.isEnabled()).isFalse();
        Await.until(() -> !findAll(".outcome.REFUSED").isEmpty(), "the refusal on the page");
    }

    @Test
    void pastItsExpiryAClickIsRefusedAndNothingRuns() throws Exception {
        start(Duration.ofSeconds(4));
        RunId run = RunId.random();
        CompletableFuture<ExecutionEnvelope> result = run(run);
        browser.get(console.launchUri().toString());
        String article = "article.request[data-state=PENDING]";
        String id = find(article).getDomAttribute("data-id");
        // A page that cannot refresh (a sleeping laptop, a stalled network): its list requests never
        // answer, so the approve button stays as it was while the request expires on the server.
        script("const real = window.fetch;"
                + "window.fetch = (url, init) => String(url).endsWith('/api/requests')"
                + " ? new Promise(() => {}) : real(url, init);");
        Await.until(() -> console.requestCounts().containsKey("EXPIRED"), "expiry on the server");
        ExecutionEnvelope env = result.get(120, TimeUnit.SECONDS);
        assertThat(env.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(env.errors()).anyMatch(d -> d.code() == ErrorCode.CONSENT_TIMEOUT);
        WebElement approve = find("#req-" + id + " button.approve");
        assertThat(approve.isEnabled()).isTrue();
        assertThat(find("#req-" + id + " .countdown").getText()).isEqualTo("time is up");
        approve.click();
        Await.until(
                () -> "DECISION_REFUSED".equals(find("#req-" + id + " .result").getDomAttribute("data-code")),
                "the refusal of the late click");
        assertThat(find("#req-" + id + " .result").getText())
                .contains("DECISION_REFUSED")
                .contains("EXPIRED")
                .contains("nothing was decided");
        assertThat(console.requestCounts()).containsEntry("EXPIRED", 1).doesNotContainKey("APPROVED");
        assertThat(runs()).isEmpty();
        // Once the page can refresh again it shows the expiry and disables the buttons.
        browser.get(console.baseUri().toString());
        find("article.request[data-state=EXPIRED]");
        assertThat(find("article.request[data-state=EXPIRED] button.approve").isEnabled())
                .isFalse();
        assertThat(runs()).isEmpty();
    }

    @Test
    void theSettingsPageTrustsTheRevisionShownAndTheNextRunDoesNotAsk() throws Exception {
        start(Duration.ofMinutes(5));
        CompletableFuture<ExecutionEnvelope> first = run(RunId.random());
        browser.get(console.launchUri().toString());
        find("article.request[data-state=PENDING] button.approve").click();
        ExecutionEnvelope env = first.get(120, TimeUnit.SECONDS);
        assertThat(env.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        String revision = env.revision().orElseThrow().toString();

        find("nav a[href='/settings']").click();
        find("body[data-ready=true][data-mode=ASK_EACH_TIME]");
        new Select(find("#mode")).selectByValue("TRUST_SELECTED_REVISIONS");
        find("#save-mode").click();
        find("body[data-mode=TRUST_SELECTED_REVISIONS]");
        String candidate = "#candidates tr[data-revision='" + revision + "']";
        find(candidate + " button.trust").click();
        Await.until(
                () -> !findAll("#scopes tr[data-revision='" + revision + "']").isEmpty(), "the scope");
        String scope = find("#scopes tr[data-revision='" + revision + "']").getText();
        assertThat(scope).contains("agent-1").doesNotContain("draft");
        String receipt = admin.currentPolicy()
                .scopes()
                .get(0)
                .receipt()
                .orElseThrow()
                .id()
                .toString();
        assertThat(scope).contains(receipt);
        assertThat(find("#audit-state").getText()).isIn("OK", "DEGRADED");
        assertThat(find("#trust").getText()).contains("trusted revision").contains("TRUSTED");
        assertThat(overflowing("body"))
                .as("elements past the page's right edge")
                .isEmpty();
        screenshot("console-settings.png");

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

    @Test
    void anActivationShowsEveryFieldAndItsInstructionsAsTextAndApprovingTrustsIt() throws Exception {
        start(Duration.ofMinutes(5));
        CompletableFuture<Activation> first =
                CompletableFuture.supplyAsync(() -> gate.activate(AgentId.of("agent-1"), "guide", CONTEXT));
        browser.get(console.launchUri().toString());
        String article = "article.request[data-state=PENDING]";
        assertThat(field(article, "kind")).isEqualTo("activation");
        assertThat(find(article + " .warning").getText()).isEqualTo(ActivationApprovalRequest.PROMPT_WARNING);
        assertThat(field(article, "skill")).isEqualTo("guide");
        assertThat(field(article, "description")).isEqualTo(HOSTILE_GUIDE);
        assertThat(field(article, "agent")).isEqualTo("agent-1");
        assertThat(field(article, "agentKind")).isEqualTo("console-test 1.0.0");
        assertThat(field(article, "revision")).startsWith("sha256:");
        assertThat(field(article, "contract")).contains("declares nothing");
        assertThat(field(article, "createdAt")).isNotEmpty();
        assertThat(field(article, "expiresAt")).isNotEmpty();
        String files = find(article + " table.files").getText();
        assertThat(files).contains("SKILL.md").contains("sha256:").doesNotContain("scripts/probe.mjs");
        // An activation runs nothing: no argv, entrypoint or input is shown for it.
        assertThat(findAll(article + " [data-field=argv], " + article + " [data-field=input]"))
                .isEmpty();

        WebElement view = find(article + " .view-source");
        assertThat(view.getText()).isEqualTo("Show SKILL.md");
        view.click();
        Await.until(
                () -> find(article + " pre.source").getText().contains("Always answer <em>politely</em>."),
                "the instructions");
        assertThat(findAll("article.request svg, article.request em")).isEmpty();
        assertThat(pwned()).isEqualTo("no");
        screenshot("console-activation.png");

        find(article + " button.approve").click();
        assertThat(first.get(120, TimeUnit.SECONDS)).isInstanceOf(Activation.Activated.class);
        Await.until(() -> !findAll("article.request[data-state=APPROVED]").isEmpty(), "approved");
        find("nav a[href='/settings']").click();
        find("body[data-ready=true]");
        assertThat(find("#trust").getText()).contains("prompt skill").contains("TRUSTED");
        // Trusted now: the next activation does not ask.
        assertThat(gate.activate(AgentId.of("agent-1"), "guide", CONTEXT)).isInstanceOf(Activation.Activated.class);
        assertThat(console.requestCounts()).containsEntry("APPROVED", 1).doesNotContainKey("PENDING");
        assertThat(pwned()).isEqualTo("no");
        assertThat(runs()).isEmpty();
    }

    @Test
    void aWorkflowPlanShowsItsStepsAndApprovingRecordsExactlyThatPlan() throws Exception {
        start(Duration.ofMinutes(5));
        Revision probe = new Revision(Sha256Digest.hash(new byte[] {1}));
        Revision guide = new Revision(Sha256Digest.hash(new byte[] {2}));
        Sha256Digest input = Sha256Digest.hash(INPUT.getBytes(StandardCharsets.UTF_8));
        List<PlannedStep> steps = List.of(
                new PlannedStep(SkillName.of("probe"), probe, Optional.of(input)),
                new PlannedStep(SkillName.of("guide"), guide, Optional.empty()));
        RunId run = RunId.random();
        CompletableFuture<ConsentResult<PlanSnapshot>> plan = CompletableFuture.supplyAsync(
                () -> admin.approveWorkflow(run, AgentId.of("agent-1"), workspace, steps, console.channel()));
        browser.get(console.launchUri().toString());
        String article = "article.request[data-state=PENDING]";
        assertThat(field(article, "kind")).isEqualTo("workflow");
        assertThat(find(article + " .title").getText()).startsWith("workflow plan");
        assertThat(find(article + " .warning").getText()).isEqualTo(ApprovalRequest.FULL_TRUST_WARNING);
        assertThat(field(article, "run")).isEqualTo(run.value());
        assertThat(field(article, "agent")).isEqualTo("agent-1");
        assertThat(field(article, "workspace")).contains(workspace.toRealPath().toString());
        assertThat(field(article, "expiresAt")).isNotEmpty();
        assertThat(overflowing(article))
                .as("elements past the card's right edge")
                .isEmpty();
        workspaceShownOnce(article, workspace);
        List<WebElement> rows = findAll(article + " table.steps tr");
        assertThat(rows).hasSize(2);
        assertThat(rows.get(0).getText())
                .contains("probe")
                .contains(probe.toString())
                .contains(input.toString());
        assertThat(rows.get(1).getText())
                .contains("guide")
                .contains(guide.toString())
                .contains("any input");
        assertThat(findAll(article + " .view-source")).isEmpty();
        screenshot("console-workflow.png");

        find(article + " button.approve").click();
        ConsentResult<PlanSnapshot> approved = plan.get(120, TimeUnit.SECONDS);
        assertThat(approved.isSuccess()).as(String.valueOf(approved.failure())).isTrue();
        assertThat(admin.workflowPlan(run)).isPresent();
        assertThat(admin.workflowPlan(run).orElseThrow().plan().steps()).isEqualTo(steps);
        Await.until(() -> !findAll("article.request[data-state=APPROVED]").isEmpty(), "approved");
        assertThat(find("article.request[data-state=APPROVED] button.approve").isEnabled())
                .isFalse();
        // Approving a plan runs nothing by itself.
        assertThat(runs()).isEmpty();
    }
}
