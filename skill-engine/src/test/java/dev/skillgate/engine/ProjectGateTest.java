package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.RunId;
import dev.skillgate.project.ProjectApprovalChannel;
import dev.skillgate.project.ProjectApprovalRequest;
import dev.skillgate.project.ProjectEnvelope;
import dev.skillgate.project.TestSummary;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The project facade end to end: approval of the exact plan, audit records, drift after approval. */
class ProjectGateTest {
    private static final AgentId AGENT = AgentId.of("agent-1");

    @TempDir
    Path temp;

    private SkillGateAdmin admin;
    private Path project;
    private final List<ProjectGate> gates = new ArrayList<>();

    @BeforeEach
    void setUp() throws IOException {
        admin = SkillGateAdmin.open(Files.createDirectories(temp.resolve("data")));
        project = Support.copySkill(Path.of("..", "test-fixtures", "projects", "js-node-test"), temp);
    }

    @AfterEach
    void tearDown() {
        gates.forEach(ProjectGate::close);
        admin.close();
    }

    private ProjectGate gate(ProjectApprovalChannel channel) {
        ProjectGate g = ProjectGate.builder()
                .admin(admin)
                .nodeRuntime(Support.runtime())
                .approvalChannel(channel)
                .approvalTimeout(Duration.ofSeconds(30))
                .build();
        gates.add(g);
        return g;
    }

    private List<AuditEvent> audit() throws IOException {
        return admin.trust().records(0, 1000).stream().map(AuditRecord::event).toList();
    }

    private static List<ErrorCode> codes(ProjectEnvelope e) {
        return e.errors().stream()
                .filter(Diagnostic::isError)
                .map(Diagnostic::code)
                .toList();
    }

    @Test
    void anApprovedRunShowsTheExactPlanAndIsAuditedBeforeAndAfter() throws IOException {
        AtomicReference<ProjectApprovalRequest> shown = new AtomicReference<>();
        ProjectGate gate = gate(request -> {
            shown.set(request);
            return CompletableFuture.completedFuture(request.approve());
        });
        RunId run = RunId.random();
        ProjectEnvelope e = gate.run(ProjectRequest.of(run, AGENT, project, "test"));

        assertThat(e.status()).as("%s", e).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(e.step("test").orElseThrow().tests()).contains(new TestSummary(3, 3, 0, 0, 0, 0));
        String text = shown.get().text();
        assertThat(text)
                .contains(String.join(" ", shown.get().plan().argv().get(0)))
                .contains(shown.get().digest().toString())
                .contains("package-lock.json sha256:")
                .contains("180 s")
                .contains("not a sandbox");
        assertThat(e.plan()).contains(shown.get().digest());

        List<AuditEvent> events = audit();
        AuditEvent.Consumed consumed = events.stream()
                .filter(AuditEvent.Consumed.class::isInstance)
                .map(AuditEvent.Consumed.class::cast)
                .filter(c -> c.run().equals(run))
                .findFirst()
                .orElseThrow();
        assertThat(consumed.binding()).isEqualTo(shown.get().digest());
        assertThat(consumed.revision()).isEqualTo(shown.get().plan().revision());
        AuditEvent.Settled settled = events.stream()
                .filter(AuditEvent.Settled.class::isInstance)
                .map(AuditEvent.Settled.class::cast)
                .filter(s -> s.run().equals(run))
                .findFirst()
                .orElseThrow();
        assertThat(settled.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(settled.cleanup()).isEqualTo(CleanupStatus.PROVEN);
        assertThat(settled.authority()).isEqualTo(AuditEvent.Settled.Authority.CONSENT);
        assertThat(events.indexOf(consumed)).isLessThan(events.indexOf(settled));
    }

    @Test
    void aDenialRunsNothingAndRecordsNothing() throws IOException {
        Path marker = temp.resolve("marker");
        Files.writeString(
                project.resolve("test/math.test.js"),
                "require('node:fs').writeFileSync('" + marker + "', 'ran');\n",
                StandardCharsets.UTF_8);
        ProjectGate gate = gate(request ->
                CompletableFuture.completedFuture(new ApprovalDecision.Denied(ErrorCode.CONSENT_DENIED, "no")));
        ProjectEnvelope e = gate.run(ProjectRequest.of(RunId.random(), AGENT, project, "test"));
        assertThat(e.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(codes(e)).containsExactly(ErrorCode.CONSENT_DENIED);
        assertThat(marker).doesNotExist();
        assertThat(audit()).noneMatch(ev -> ev instanceof AuditEvent.Consumed || ev instanceof AuditEvent.Settled);
    }

    @Test
    void anApprovalMintedForAnotherRequestRunsNothing() throws IOException {
        Path marker = temp.resolve("marker");
        Files.writeString(
                project.resolve("test/math.test.js"),
                "require('node:fs').writeFileSync('" + marker + "', 'ran');\n",
                StandardCharsets.UTF_8);
        // A buggy or hostile host answers with an approval of some other request (decision 0760).
        ProjectGate gate = gate(request ->
                CompletableFuture.completedFuture(ApprovalDecision.approve(dev.skillgate.consent.ProposalId.random())));
        ProjectEnvelope e = gate.run(ProjectRequest.of(RunId.random(), AGENT, project, "test"));
        assertThat(e.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(codes(e)).containsExactly(ErrorCode.BINDING_MISMATCH);
        assertThat(marker).doesNotExist();
        assertThat(audit()).noneMatch(ev -> ev instanceof AuditEvent.Consumed || ev instanceof AuditEvent.Settled);
    }

    @Test
    void aLockfileChangedWhileTheHumanLookedIsRefusedAfterApproval() throws IOException {
        Path marker = temp.resolve("marker");
        Files.writeString(
                project.resolve("test/math.test.js"),
                "require('node:fs').writeFileSync('" + marker + "', 'ran');\n",
                StandardCharsets.UTF_8);
        ProjectGate gate = gate(request -> {
            try {
                Path lock = project.resolve("package-lock.json");
                Files.writeString(lock, Files.readString(lock).replace("\"requires\": true", "\"requires\": false"));
            } catch (IOException ex) {
                throw new java.io.UncheckedIOException(ex);
            }
            return CompletableFuture.completedFuture(request.approve());
        });
        RunId run = RunId.random();
        ProjectEnvelope e = gate.run(ProjectRequest.of(run, AGENT, project, "test"));
        assertThat(e.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(codes(e)).containsExactly(ErrorCode.PROJECT_INPUT_CHANGED);
        assertThat(marker).doesNotExist();
        // The approval was used (and recorded); the settlement says it was refused.
        assertThat(audit())
                .anySatisfy(ev -> assertThat(ev).isInstanceOfSatisfying(AuditEvent.Settled.class, s -> {
                    assertThat(s.run()).isEqualTo(run);
                    assertThat(s.status()).isEqualTo(ExecutionStatus.REFUSED);
                    assertThat(s.errors()).containsExactly(ErrorCode.PROJECT_INPUT_CHANGED);
                }));
    }

    @Test
    void hostileScriptsAreRefusedBeforeTheHumanIsAsked() throws IOException {
        Files.writeString(
                project.resolve("package.json"),
                "{\"name\":\"x\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"npx jest\",\"build\":\"node build.js\"}}");
        AtomicReference<ProjectApprovalRequest> shown = new AtomicReference<>();
        ProjectGate gate = gate(request -> {
            shown.set(request);
            return CompletableFuture.completedFuture(request.approve());
        });
        assertThat(codes(gate.run(ProjectRequest.of(RunId.random(), AGENT, project, "test"))))
                .containsExactly(ErrorCode.PROJECT_SCRIPT_NPX);
        assertThat(codes(gate.run(ProjectRequest.of(RunId.random(), AGENT, project, "test", "build"))))
                .containsExactly(ErrorCode.PROJECT_SCRIPT_NPX);
        assertThat(codes(gate.run(ProjectRequest.of(RunId.random(), AGENT, project, "nope"))))
                .containsExactly(ErrorCode.PROJECT_SCRIPT_NOT_FOUND);
        assertThat(shown.get()).isNull();
    }

    @Test
    void safeModeAndABlockedPolicyRefuseBeforeAsking() {
        AtomicReference<ProjectApprovalRequest> shown = new AtomicReference<>();
        ProjectGate gate = gate(request -> {
            shown.set(request);
            return CompletableFuture.completedFuture(request.approve());
        });
        admin.setSafeMode(true);
        assertThat(codes(gate.run(ProjectRequest.of(RunId.random(), AGENT, project, "test"))))
                .containsExactly(ErrorCode.GATE_SAFE_MODE);
        admin.setSafeMode(false);
        gate.close();
        assertThat(codes(gate.run(ProjectRequest.of(RunId.random(), AGENT, project, "test"))))
                .containsExactly(ErrorCode.GATE_CAPABILITY_MISSING);
        assertThat(shown.get()).isNull();
    }

    @Test
    void aChannelThatThrowsOrNeverAnswersIsADenial() {
        ProjectGate throwing = gate(request -> {
            throw new IllegalStateException("ui crashed");
        });
        assertThat(codes(throwing.run(ProjectRequest.of(RunId.random(), AGENT, project, "test"))))
                .containsExactly(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE);
        ProjectGate silent = ProjectGate.builder()
                .admin(admin)
                .nodeRuntime(Support.runtime())
                .approvalChannel(request -> new CompletableFuture<>())
                .approvalTimeout(Duration.ofMillis(200))
                .build();
        gates.add(silent);
        assertThat(codes(silent.run(ProjectRequest.of(RunId.random(), AGENT, project, "test"))))
                .containsExactly(ErrorCode.CONSENT_TIMEOUT);
    }

    /** What a host's UI does with a request: here it approves when the human typed yes. */
    private static final class Ui {
        CompletableFuture<ApprovalDecision> ask(ProjectApprovalRequest request) {
            assertThat(request.text()).contains(request.digest().toString());
            return CompletableFuture.completedFuture(request.approve());
        }
    }

    @Test
    void theDocumentedHostUsage() throws IOException {
        SkillGateAdmin settings = admin;
        java.nio.file.Path node = Support.node();
        String nodeVersion = Support.nodeVersion();
        Ui myUi = new Ui();
        RunId run = RunId.random();
        AgentId agent = AGENT;
        Path repo = Support.copySkill(Path.of("..", "test-fixtures", "projects", "build-then-test"), temp);
        List<TestSummary> shown = new ArrayList<>();
        java.util.function.Consumer<TestSummary> show = shown::add;
        // snippet:begin project-gate
        ProjectGate projects = ProjectGate.builder()
                .admin(settings) // the same SkillGateAdmin as the SkillGate: policy, audit log, staging
                .nodeRuntime(dev.skillgate.runner.NodeRuntime.pinned(node, nodeVersion))
                .approvalChannel(request -> myUi.ask(request)) // shows all of it, the warning too
                .build();
        ProjectEnvelope env = projects.run(ProjectRequest.of(run, agent, repo, "build", "test"));
        if (env.succeeded()) show.accept(env.step("test").orElseThrow().tests().orElseThrow()); // evidence, not proof
        // snippet:end project-gate
        projects.close();
        assertThat(shown).containsExactly(new TestSummary(1, 1, 0, 0, 0, 0));
    }
}
