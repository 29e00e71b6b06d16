package dev.skillgate.examples.snippets;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AuditLogOptions;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.ConsentResult;
import dev.skillgate.consent.PlanSnapshot;
import dev.skillgate.consent.PlannedStep;
import dev.skillgate.consent.ScriptedApprovalChannel;
import dev.skillgate.consent.spi.PolicyStore;
import dev.skillgate.engine.ExecutionRequest;
import dev.skillgate.engine.SkillGate;
import dev.skillgate.engine.SkillGateAdmin;
import dev.skillgate.engine.SkillSummary;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.testkit.InMemoryAuditSink;
import dev.skillgate.testkit.TestNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host examples of README.md and docs/engine.md, compiled and run here against the sample
 * skills, a real node and the real supervisor (DocumentationSnippetsTest keeps the pages equal to
 * the regions below).
 */
class HostSnippetsTest {
    static final Path SAMPLE_SKILLS = Path.of("skills").toAbsolutePath();

    @TempDir
    Path dataDir;

    @TempDir
    Path userSkills;

    @TempDir
    Path workspace;

    final Path repoSkills = SAMPLE_SKILLS;
    final RunId run = RunId.random();
    final AgentId agent = AgentId.of("support-bot");
    final String inputJson = "{\"text\":\"the cat saw the other cat\"}";
    final List<String> shown = new ArrayList<>();

    /** The host's approval UI: here it says yes, and keeps what it was asked. */
    final class Ui {
        final List<ApprovalRequest> asked = new ArrayList<>();

        CompletionStage<ApprovalDecision> ask(ApprovalRequest request) {
            asked.add(request);
            return CompletableFuture.completedFuture(request.approve());
        }
    }

    final Ui myUi = new Ui();

    void show(String output) {
        shown.add(output);
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void theReadmeHostRunsWordStatsAfterTheUiApproves() {
        Path node = TestNode.binary().orElseThrow();
        String nodeVersion = TestNode.version(node).orElseThrow();

        // snippet:begin host
        SkillGateAdmin settings = SkillGateAdmin.open(dataDir); // for your settings UI only
        SkillGate gate = SkillGate.builder()
                .admin(settings) // policy, audit log, staging
                .skillRoots(List.of(repoSkills, userSkills)) // first root wins on equal names
                .nodeRuntime(NodeRuntime.pinned(node, nodeVersion)) // absolute path, exact version ("v20.20.2")
                .approvalChannel(request -> myUi.ask(request)) // your UI answers approve/deny
                .build();
        List<SkillSummary> skills = gate.catalog(); // inert: nothing runs
        ExecutionEnvelope env = gate.execute(ExecutionRequest.of(run, agent, "word-stats", inputJson, workspace));
        if (env.succeeded()) show(env.output().orElseThrow()); // checked against outputSchema
        // snippet:end host

        gate.close();
        settings.close();
        assertThat(skills).extracting(SkillSummary::name).contains("hello-world", "word-stats", "release-notes");
        assertThat(myUi.asked).hasSize(1);
        assertThat(env.succeeded()).as(env.errorCodes().toString()).isTrue();
        assertThat(shown).singleElement().asString().contains("\"words\":6");
    }

    @Test
    void aWorkflowPlanIsApprovedOnceOnTheAdmin() throws Exception {
        Revision pdfFillRevision = new Revision(Sha256Digest.hash("pdf-fill".getBytes(StandardCharsets.UTF_8)));
        Revision mergeRevision = new Revision(Sha256Digest.hash("mail-merge".getBytes(StandardCharsets.UTF_8)));
        Sha256Digest inputDigest = Sha256Digest.hash("{\"rows\":3}".getBytes(StandardCharsets.UTF_8));
        try (SkillGateAdmin settings = SkillGateAdmin.open(dataDir);
                ScriptedApprovalChannel myApprovalUi = ScriptedApprovalChannel.denyingWhenEmpty()) {
            myApprovalUi.approveNext();

            // snippet:begin workflow-plan
            ConsentResult<PlanSnapshot> plan = settings.approveWorkflow(
                    run,
                    agent,
                    workspace,
                    List.of(
                            new PlannedStep(
                                    SkillName.of("pdf-fill"),
                                    pdfFillRevision,
                                    Optional.empty()), // any valid input, once
                            new PlannedStep(
                                    SkillName.of("mail-merge"),
                                    mergeRevision,
                                    Optional.of(inputDigest))), // exactly this input, once
                    myApprovalUi);
            // snippet:end workflow-plan

            assertThat(plan.failure()).isEmpty();
            assertThat(plan.value()).isPresent();
            assertThat(myApprovalUi.workflowRequests()).hasSize(1);
        }
    }

    @Test
    void aHostThatKeepsItsOwnAdminOpensItWithTheSinks() throws Exception {
        InMemoryAuditSink siem = new InMemoryAuditSink("siem");

        // snippet:begin admin-with-sink
        SkillGateAdmin settings = SkillGateAdmin.open(
                dataDir,
                PolicyStore.privateFile(dataDir.resolve("policy")),
                AuditLogOptions.builder(SkillGateAdmin.auditDirectory(dataDir))
                        .sink(siem)
                        .build());
        // snippet:end admin-with-sink

        try (settings;
                ScriptedApprovalChannel ui = ScriptedApprovalChannel.denyingWhenEmpty()) {
            ui.approveNext();
            ConsentResult<PlanSnapshot> plan = settings.approveWorkflow(
                    run,
                    agent,
                    workspace,
                    List.of(new PlannedStep(
                            SkillName.of("pdf-fill"),
                            new Revision(Sha256Digest.hash(new byte[] {1})),
                            Optional.empty())),
                    ui);
            assertThat(plan.value()).isPresent();
        }
        assertThat(Files.isDirectory(SkillGateAdmin.auditDirectory(dataDir))).isTrue();
        siem.assertContiguousChain();
        assertThat(siem.received()).isNotEmpty();
    }
}
