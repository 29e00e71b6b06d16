package dev.skillgate.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.ActivationApprovalRequest;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.ConsentResult;
import dev.skillgate.consent.PlanSnapshot;
import dev.skillgate.consent.PlannedStep;
import dev.skillgate.engine.Activation;
import dev.skillgate.engine.SkillGate;
import dev.skillgate.engine.SkillGateAdmin;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.SkillName;
import dev.skillgate.testkit.SkillBundle;
import dev.skillgate.testkit.TestNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Prompt-skill activations, workflow plans, the trust store and a damaged audit log through the
 * console's API, over a real gate and admin.
 */
class ConsoleFlowsTest {
    private static final AgentContext CONTEXT =
            AgentContext.of("console-test", SemVer.parse("1.0.0"), Set.of(), Set.of(), PermissionMode.READ_ONLY);

    @TempDir
    Path tmp;

    private Path skills;
    private Path workspace;
    private SkillGateAdmin admin;
    private ApprovalConsole console;
    private SkillGate gate;
    private ConsoleSession session;

    @BeforeEach
    void start() throws IOException {
        Assumptions.assumeTrue(TestNode.available(), "no node found");
        skills = Files.createDirectories(tmp.resolve("skills"));
        workspace = Files.createDirectories(tmp.resolve("workspace"));
        SkillBundle.under(skills, "guide")
                .noManifest()
                .body("# Guide\n\nAlways answer <em>politely</em>.\n")
                .write();
        open();
    }

    private void open() throws IOException {
        admin = SkillGateAdmin.open(tmp.resolve("data"));
        console = ApprovalConsole.builder(admin).start();
        gate = SkillGate.builder()
                .admin(admin)
                .skillRoot(skills)
                .nodeRuntime(TestNode.runtime())
                .approvalChannel(console.channel())
                .build();
        session = ConsoleSession.open(console);
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

    private JsonNode pending(String kind) throws IOException {
        Await.until(() -> !console.pendingRequests().isEmpty(), "a pending request");
        for (JsonNode r : session.get("/api/requests").json().path("requests")) {
            if (r.path("state").asString().equals("PENDING")
                    && r.path("kind").asString().equals(kind)) {
                return r;
            }
        }
        throw new AssertionError("no pending " + kind);
    }

    private void decide(JsonNode request, String decision) throws IOException {
        RawHttp.Response r = session.post(
                "/api/requests/" + request.path("id").asString() + "/decision", "{\"decision\":\"" + decision + "\"}");
        assertThat(r.status()).as(r.text()).isEqualTo(200);
    }

    @Test
    void anActivationShowsItsInstructionsOnDemandAndTheTrustStoreRevokesIt() throws Exception {
        CompletableFuture<Activation> first =
                CompletableFuture.supplyAsync(() -> gate.activate(AgentId.of("agent-1"), "guide", CONTEXT));
        JsonNode request = pending("ACTIVATION");
        JsonNode d = request.path("details");
        assertThat(d.path("warning").asString()).isEqualTo(ActivationApprovalRequest.PROMPT_WARNING);
        assertThat(d.path("skill").asString()).isEqualTo("guide");
        assertThat(d.path("agent").asString()).isEqualTo("agent-1");
        assertThat(d.path("contract").asString()).contains("declares nothing");
        assertThat(d.path("files").get(0).path("path").asString()).isEqualTo("SKILL.md");
        assertThat(d.path("files").get(0).path("sha256").asString()).startsWith("sha256:");
        RawHttp.Response source =
                session.get("/api/requests/" + request.path("id").asString() + "/source");
        assertThat(source.json().path("text").asString()).contains("Always answer <em>politely</em>.");
        decide(request, "approve");
        assertThat(first.get(60, TimeUnit.SECONDS)).isInstanceOf(Activation.Activated.class);
        // Decided: the source is no longer served.
        assertThat(session.get("/api/requests/" + request.path("id").asString() + "/source")
                        .status())
                .isEqualTo(404);

        JsonNode trust = session.get("/api/settings").json().path("trust");
        assertThat(trust).hasSize(1);
        assertThat(trust.get(0).path("kind").asString()).isEqualTo("prompt skill");
        assertThat(trust.get(0).path("status").asString()).isEqualTo("TRUSTED");
        assertThat(gate.activate(AgentId.of("agent-1"), "guide", CONTEXT)).isInstanceOf(Activation.Activated.class);
        assertThat(console.requestCounts()).containsEntry("APPROVED", 1).doesNotContainKey("PENDING");

        RawHttp.Response revoked = session.post(
                "/api/settings/trust/revoke",
                "{\"id\":\"" + trust.get(0).path("id").asString() + "\"}");
        assertThat(revoked.status()).as(revoked.text()).isEqualTo(200);
        assertThat(revoked.json().path("trust").get(0).path("status").asString())
                .isEqualTo("REVOKED");
        assertThat(session.post(
                                "/api/settings/trust/revoke",
                                "{\"id\":\"" + trust.get(0).path("id").asString() + "\"}")
                        .code())
                .isEqualTo("NOT_FOUND");
    }

    @Test
    void aWorkflowPlanShowsItsStepsAndADenialApprovesNothing() throws Exception {
        Revision revision = new Revision(dev.skillgate.model.Sha256Digest.hash(new byte[] {1}));
        RunId run = RunId.random();
        CompletableFuture<ConsentResult<PlanSnapshot>> plan = CompletableFuture.supplyAsync(() -> admin.approveWorkflow(
                run,
                AgentId.of("agent-1"),
                workspace,
                List.of(new PlannedStep(SkillName.of("guide"), revision, Optional.empty())),
                console.channel()));
        JsonNode request = pending("WORKFLOW");
        JsonNode d = request.path("details");
        assertThat(d.path("warning").asString()).isEqualTo(ApprovalRequest.FULL_TRUST_WARNING);
        assertThat(d.path("run").asString()).isEqualTo(run.value());
        assertThat(d.path("steps").get(0).path("skill").asString()).isEqualTo("guide");
        assertThat(d.path("steps").get(0).path("revision").asString()).isEqualTo(revision.toString());
        assertThat(d.path("steps").get(0).path("inputDigest").asString()).isEqualTo("any input");
        decide(request, "deny");
        assertThat(plan.get(60, TimeUnit.SECONDS).isSuccess()).isFalse();
        assertThat(admin.workflowPlan(run)).isEmpty();
    }

    @Test
    void aDamagedAuditLogShowsDisabledWithItsFirstBadRecord() throws Exception {
        CompletableFuture<Activation> first =
                CompletableFuture.supplyAsync(() -> gate.activate(AgentId.of("agent-1"), "guide", CONTEXT));
        decide(pending("ACTIVATION"), "approve");
        assertThat(first.get(60, TimeUnit.SECONDS)).isInstanceOf(Activation.Activated.class);
        assertThat(session.get("/api/settings")
                        .json()
                        .path("audit")
                        .path("state")
                        .asString())
                .isEqualTo("OK");
        stop();
        Path log = tmp.resolve("data/audit/audit.log");
        byte[] bytes = Files.readAllBytes(log);
        bytes[bytes.length / 2] ^= 0x5a;
        Files.write(log, bytes);
        open();
        JsonNode audit = session.get("/api/settings").json().path("audit");
        assertThat(audit.path("state").asString()).isEqualTo("DISABLED");
        assertThat(audit.path("yieldsTrust").asBoolean()).isFalse();
        assertThat(audit.path("firstBadSequence").isNumber()).isTrue();
        assertThat(audit.path("diagnostics")).isNotEmpty();
    }
}
