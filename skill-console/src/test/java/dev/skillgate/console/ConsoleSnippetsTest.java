package dev.skillgate.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.engine.ExecutionRequest;
import dev.skillgate.engine.SkillGate;
import dev.skillgate.engine.SkillGateAdmin;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.RunId;
import dev.skillgate.testkit.SkillBundle;
import dev.skillgate.testkit.TestNode;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The wiring {@code docs/console.md} shows, run with a real node; the "person" answers over the page's API. */
class ConsoleSnippetsTest {
    @TempDir
    Path tmp;

    private final AtomicReference<URI> opened = new AtomicReference<>();

    private void openInBrowser(URI launch) {
        opened.set(launch);
    }

    @Test
    void theHostWiringFromTheDocsRunsAfterAnApprovalInThePage() throws Exception {
        Assumptions.assumeTrue(TestNode.available(), "no node found");
        Path dataDir = tmp.resolve("data");
        Path skills = Files.createDirectories(tmp.resolve("skills"));
        Path workspace = Files.createDirectories(tmp.resolve("workspace"));
        SkillBundle.under(skills, "probe")
                .script("scripts/probe.mjs", "process.stdout.write('{}')")
                .write();
        Duration window = Duration.ofMinutes(2);
        // snippet:begin console
        SkillGateAdmin admin = SkillGateAdmin.open(dataDir); // the settings page works through it
        ApprovalConsole console = ApprovalConsole.builder(admin) // binds 127.0.0.1, a free port
                .answerWindow(window) // the same as the gate's approval timeout
                .start();
        SkillGate gate = SkillGate.builder()
                .admin(admin)
                .skillRoot(skills)
                .nodeRuntime(TestNode.runtime())
                .approvalChannel(console.channel()) // requests appear on the page
                .approvalTimeout(window)
                .build();
        openInBrowser(console.launchUri()); // carries this start's token: never log it
        // ... on the agent's thread; blocks until the person approves or denies in the page:
        CompletableFuture<ExecutionEnvelope> result = CompletableFuture.supplyAsync(() ->
                gate.execute(ExecutionRequest.of(RunId.random(), AgentId.of("agent-1"), "probe", "{}", workspace)));
        // snippet:end console
        ConsoleSession person = ConsoleSession.open(console);
        Await.until(() -> !console.pendingRequests().isEmpty(), "the request on the page");
        String id = console.pendingRequests().get(0);
        assertThat(person.post("/api/requests/" + id + "/decision", "{\"decision\":\"approve\"}")
                        .status())
                .isEqualTo(200);
        ExecutionEnvelope env = result.get(120, TimeUnit.SECONDS);
        // snippet:begin outcome
        console.showOutcome(env); // the page shows the envelope under "Recent runs"
        // snippet:end outcome
        assertThat(env.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(opened.get()).isEqualTo(console.launchUri());
        gate.close();
        console.close();
        admin.close();
    }
}
