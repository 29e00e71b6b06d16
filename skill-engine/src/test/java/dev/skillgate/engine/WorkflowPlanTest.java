package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.audit.ExecutionScope;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ConsentResult;
import dev.skillgate.consent.ExecutionPolicy;
import dev.skillgate.consent.PlanSnapshot;
import dev.skillgate.consent.PlannedStep;
import dev.skillgate.consent.PolicyUpdate;
import dev.skillgate.consent.ProposalState;
import dev.skillgate.consent.ScriptedApprovalChannel;
import dev.skillgate.consent.WorkflowApprovalRequest;
import dev.skillgate.consent.WorkflowPlan;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.engine.internal.AuditTrail;
import dev.skillgate.fixtures.NodeFixture;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * {@code APPROVE_WORKFLOW_RUN} end to end, with a real {@code node} and the real Linux subreaper
 * supervisor: a host-submitted plan approved once through the approval channel covers exactly its
 * listed steps, once each, in its run; everything else is {@code POLICY_NO_PLAN}; the approval and
 * every step are in the audit log. After the class, {@code /proc} is scanned for survivors.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@org.junit.jupiter.api.Timeout(180)
@EnabledOnOs(OS.LINUX)
class WorkflowPlanTest extends LiveEngineTest {
    private static final AgentId AGENT = AgentId.of("agent-1");
    private static final String HELLO_INPUT = "{\"name\":\"Ada\"}";
    private static final String WRITER_INPUT = "{\"fileName\":\"planned.txt\"}";

    private SkillGateAdmin admin;
    private final List<SkillGate> gates = new ArrayList<>();

    @BeforeEach
    void fresh() throws IOException {
        Support.copySkill(Support.examples().resolve("hello-world"), skills);
        Bundles.fixtureSkill(skills, "writer", NodeFixture.CHDIR_WRITE_WORKSPACE, 10_000);
        Bundles.fixtureSkill(skills, "print-env", NodeFixture.PRINT_ENV, 10_000);
        admin = SkillGateAdmin.open(data);
        assertThat(admin.savePolicy(PolicyUpdate.of(ExecutionPolicy.APPROVE_WORKFLOW_RUN))
                        .isSuccess())
                .isTrue();
    }

    @AfterEach
    void close() {
        gates.forEach(SkillGate::close);
        gates.clear();
        admin.close();
    }

    private SkillGate gate(ApprovalChannel channel) {
        SkillGate gate = SkillGate.builder()
                .admin(admin)
                .skillRoot(skills)
                .nodeRuntime(Support.runtime())
                .approvalChannel(channel)
                .build();
        gates.add(gate);
        return gate;
    }

    private Revision revisionOf(SkillGate gate, String skill) {
        return gate.inspect(skill).revision().orElseThrow();
    }

    private List<AuditEvent> events() throws IOException {
        return admin.trust().records(0, 1000).stream().map(AuditRecord::event).toList();
    }

    private static Sha256Digest digest(String text) {
        return Sha256Digest.hash(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void withoutAPlanNothingRunsAndNobodyIsAsked() throws IOException {
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        SkillGate gate = gate(channel);
        ExecutionEnvelope env =
                gate.execute(ExecutionRequest.of(RunId.random(), AGENT, "writer", WRITER_INPUT, workspace));
        assertThat(env.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(env.errorCodes()).containsExactly(ErrorCode.POLICY_NO_PLAN);
        assertThat(channel.requests()).isEmpty();
        assertThat(workspace.resolve("planned.txt")).doesNotExist();
        assertThat(events()).noneMatch(e -> e instanceof AuditEvent.Settled);
    }

    @Test
    void anApprovedPlanRunsExactlyItsStepsOnceEachInItsRunAndRecordsEverything() throws IOException {
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        SkillGate gate = gate(channel);
        RunId run = RunId.random();
        Revision hello = revisionOf(gate, "hello-world");
        Revision writer = revisionOf(gate, "writer");
        List<PlannedStep> steps = List.of(
                new PlannedStep(SkillName.of("hello-world"), hello, Optional.empty()),
                new PlannedStep(SkillName.of("writer"), writer, Optional.of(digest(WRITER_INPUT))));

        ConsentResult<PlanSnapshot> approved = admin.approveWorkflow(run, AGENT, workspace, steps, channel);

        assertThat(approved.isSuccess()).as(approved.toString()).isTrue();
        assertThat(approved.value().orElseThrow().state()).isEqualTo(ProposalState.APPROVED);
        assertThat(channel.workflowRequests()).singleElement().satisfies(r -> {
            assertThat(r.plan().run()).isEqualTo(run);
            assertThat(r.plan().steps()).isEqualTo(steps);
            assertThat(r.fullTrustWarning()).contains("not a sandbox");
        });

        // Not covered: another run, another agent, another workspace, an unlisted skill, another input.
        Path otherWorkspace = Files.createDirectories(workspace.resolveSibling("other workspace"));
        List<ExecutionRequest> uncovered = List.of(
                ExecutionRequest.of(RunId.random(), AGENT, "hello-world", HELLO_INPUT, workspace),
                ExecutionRequest.of(run, AgentId.of("agent-2"), "hello-world", HELLO_INPUT, workspace),
                ExecutionRequest.of(run, AGENT, "hello-world", HELLO_INPUT, otherWorkspace),
                ExecutionRequest.of(run, AGENT, "print-env", "{}", workspace),
                ExecutionRequest.of(run, AGENT, "writer", "{\"fileName\":\"other.txt\"}", workspace));
        for (ExecutionRequest request : uncovered) {
            ExecutionEnvelope env = gate.execute(request);
            assertThat(env.errorCodes()).as(request.toString()).containsExactly(ErrorCode.POLICY_NO_PLAN);
        }
        // Another revision of a listed skill: edit one byte, try, restore.
        Path script = skills.resolve("hello-world").resolve("scripts").resolve("hello.mjs");
        byte[] original = Files.readAllBytes(script);
        Files.write(script, (new String(original, StandardCharsets.UTF_8) + "\n").getBytes(StandardCharsets.UTF_8));
        assertThat(gate.execute(ExecutionRequest.of(run, AGENT, "hello-world", HELLO_INPUT, workspace))
                        .errorCodes())
                .containsExactly(ErrorCode.POLICY_NO_PLAN);
        Files.write(script, original);
        assertThat(workspace.resolve("other.txt")).doesNotExist();

        // Covered: each listed step once, without a per-invocation prompt.
        ExecutionEnvelope first = gate.execute(ExecutionRequest.of(run, AGENT, "hello-world", HELLO_INPUT, workspace));
        assertThat(first.status()).as(first.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(first.output().orElseThrow()).contains("Hello, Ada!");
        assertThat(gate.supervisor().name()).isEqualTo("linux-subreaper");
        assertThat(first.cleanup().status()).isEqualTo(CleanupStatus.PROVEN);
        assertThat(first.hardening()).isNotEqualTo(dev.skillgate.model.HardeningLayer.NONE);
        ExecutionEnvelope written = gate.execute(ExecutionRequest.of(run, AGENT, "writer", WRITER_INPUT, workspace));
        assertThat(written.status()).as(written.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(workspace.resolve("planned.txt")).exists();
        assertThat(channel.requests()).as("no per-invocation approval").isEmpty();
        assertThat(admin.workflowPlan(run)).hasValueSatisfying(p -> {
            assertThat(p.usedSteps()).containsExactly(0, 1);
            assertThat(p.state()).isEqualTo(ProposalState.CONSUMED);
        });

        // A second use of a step is refused.
        assertThat(gate.execute(ExecutionRequest.of(run, AGENT, "hello-world", "{\"name\":\"Bob\"}", workspace))
                        .errorCodes())
                .containsExactly(ErrorCode.POLICY_NO_PLAN);
        assertThat(channel.requests()).isEmpty();

        // The audit log: the approval, then per launch the step and the settlement.
        WorkflowPlan plan = new WorkflowPlan(
                run, AGENT, SkillGateAdmin.workspaceIdentity(workspace).orElseThrow(), steps);
        Sha256Digest planDigest = AuditTrail.planDigest(plan);
        List<AuditEvent> events = events().stream()
                .filter(e -> !(e instanceof AuditEvent.PolicyChanged))
                .toList();
        assertThat(events).hasSize(5);
        assertThat(events.get(0))
                .isEqualTo(new AuditEvent.PlanApproved(
                        run, AGENT, ExecutionScope.workspaceDigest(plan.workspace()), planDigest, 2));
        assertThat(events.get(1)).isInstanceOfSatisfying(AuditEvent.PlanStepConsumed.class, s -> {
            assertThat(s.run()).isEqualTo(run);
            assertThat(s.step()).isZero();
            assertThat(s.plan()).isEqualTo(planDigest);
            assertThat(s.revision()).isEqualTo(hello);
        });
        assertThat(events.get(2)).isInstanceOfSatisfying(AuditEvent.Settled.class, s -> {
            assertThat(s.run()).isEqualTo(run);
            assertThat(s.authority()).isEqualTo(AuditEvent.Settled.Authority.WORKFLOW_STEP);
            assertThat(s.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
            assertThat(s.cleanup()).isEqualTo(CleanupStatus.PROVEN);
            assertThat(s.layer()).isEqualTo(first.hardening());
        });
        assertThat(events.get(3)).isInstanceOfSatisfying(AuditEvent.PlanStepConsumed.class, s -> {
            assertThat(s.step()).isEqualTo(1);
            assertThat(s.revision()).isEqualTo(writer);
        });
        assertThat(events.get(4))
                .isInstanceOfSatisfying(
                        AuditEvent.Settled.class, s -> assertThat(s.status()).isEqualTo(ExecutionStatus.SUCCEEDED));
    }

    @Test
    void aDeniedOrUnshowablePlanCoversNothing() throws IOException {
        ScriptedApprovalChannel denying =
                ScriptedApprovalChannel.denyingWhenEmpty().denyNext("not this workflow");
        SkillGate gate = gate(denying);
        RunId run = RunId.random();
        List<PlannedStep> steps = List.of(
                new PlannedStep(SkillName.of("hello-world"), revisionOf(gate, "hello-world"), Optional.empty()));

        ConsentResult<PlanSnapshot> denied = admin.approveWorkflow(run, AGENT, workspace, steps, denying);
        assertThat(denied.code()).contains(ErrorCode.CONSENT_DENIED);
        // A channel that cannot show plans never approves one (fail closed).
        ApprovalChannel invocationsOnly = r -> CompletableFuture.completedFuture(r.approve());
        assertThat(admin.approveWorkflow(run, AGENT, workspace, steps, invocationsOnly)
                        .code())
                .contains(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE);
        // A channel that throws is a denial too.
        ApprovalChannel throwing = new ApprovalChannel() {
            @Override
            public java.util.concurrent.CompletionStage<ApprovalDecision> request(
                    dev.skillgate.consent.ApprovalRequest request) {
                throw new IllegalStateException("ui crashed");
            }

            @Override
            public java.util.concurrent.CompletionStage<ApprovalDecision> requestWorkflow(
                    WorkflowApprovalRequest request) {
                throw new IllegalStateException("ui crashed");
            }
        };
        assertThat(admin.approveWorkflow(run, AGENT, workspace, steps, throwing).code())
                .contains(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE);

        assertThat(gate.execute(ExecutionRequest.of(run, AGENT, "hello-world", HELLO_INPUT, workspace))
                        .errorCodes())
                .containsExactly(ErrorCode.POLICY_NO_PLAN);
        assertThat(admin.workflowPlan(run)).isEmpty();
        assertThat(events()).noneMatch(e -> e instanceof AuditEvent.PlanApproved);
        // Bounds: no steps, a missing workspace.
        assertThat(admin.approveWorkflow(run, AGENT, workspace, List.of(), denying)
                        .code())
                .contains(ErrorCode.POLICY_INVALID);
        assertThat(admin.approveWorkflow(run, AGENT, workspace.resolve("missing"), steps, denying)
                        .code())
                .contains(ErrorCode.WORKSPACE_UNAVAILABLE);
    }

    @Test
    void endingTheRunOrCancellingThePlanOrLeavingTheModeStopsItsSteps() throws Exception {
        ScriptedApprovalChannel channel = ScriptedApprovalChannel.denyingWhenEmpty();
        SkillGate gate = gate(channel);
        Revision hello = revisionOf(gate, "hello-world");
        List<PlannedStep> twice = List.of(
                new PlannedStep(SkillName.of("hello-world"), hello, Optional.empty()),
                new PlannedStep(SkillName.of("hello-world"), hello, Optional.empty()));

        RunId ended = RunId.random();
        channel.approveNext();
        assertThat(admin.approveWorkflow(ended, AGENT, workspace, twice, channel)
                        .isSuccess())
                .isTrue();
        admin.endRun(ended);
        assertThat(gate.execute(ExecutionRequest.of(ended, AGENT, "hello-world", HELLO_INPUT, workspace))
                        .errorCodes())
                .containsExactly(ErrorCode.POLICY_NO_PLAN);

        RunId cancelled = RunId.random();
        channel.approveNext();
        assertThat(admin.approveWorkflow(cancelled, AGENT, workspace, twice, channel)
                        .isSuccess())
                .isTrue();
        admin.cancelWorkflow(cancelled);
        assertThat(gate.execute(ExecutionRequest.of(cancelled, AGENT, "hello-world", HELLO_INPUT, workspace))
                        .errorCodes())
                .containsExactly(ErrorCode.POLICY_NO_PLAN);

        // In another mode a plan covers nothing: the launch asks as usual (and is denied here).
        RunId other = RunId.random();
        channel.approveNext();
        assertThat(admin.approveWorkflow(other, AGENT, workspace, twice, channel)
                        .isSuccess())
                .isTrue();
        admin.savePolicy(PolicyUpdate.of(ExecutionPolicy.ASK_EACH_TIME));
        ExecutionEnvelope asked =
                gate.execute(ExecutionRequest.of(other, AGENT, "hello-world", HELLO_INPUT, workspace));
        assertThat(asked.errorCodes()).containsExactly(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE);
        assertThat(channel.requests()).hasSize(1);
        assertThat(admin.workflowPlan(other).orElseThrow().usedSteps()).isEmpty();
    }

    @Test
    void aPlanStillWaitingForTheHumanWhenTheRunEndsIsNeverInstalled() throws Exception {
        ScriptedApprovalChannel holding = ScriptedApprovalChannel.holdingWhenEmpty();
        SkillGate gate = gate(holding);
        RunId run = RunId.random();
        List<PlannedStep> steps = List.of(
                new PlannedStep(SkillName.of("hello-world"), revisionOf(gate, "hello-world"), Optional.empty()));
        CompletableFuture<ConsentResult<PlanSnapshot>> answer =
                CompletableFuture.supplyAsync(() -> admin.approveWorkflow(run, AGENT, workspace, steps, holding));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (holding.heldCount() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        admin.endRun(run);
        holding.approveNext();
        ConsentResult<PlanSnapshot> result = answer.get(30, TimeUnit.SECONDS);
        assertThat(result.code()).contains(ErrorCode.CONSENT_CANCELLED);
        assertThat(gate.execute(ExecutionRequest.of(run, AGENT, "hello-world", HELLO_INPUT, workspace))
                        .errorCodes())
                .containsExactly(ErrorCode.POLICY_NO_PLAN);
        holding.close();
    }

    @Test
    void whenTheAuditLogCannotRecordNobodyIsAskedAndNoStepIsUsed() throws IOException {
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        RunId run = RunId.random();
        // A second admin over the same directory gets a read-only audit handle.
        try (SkillGateAdmin readOnly = SkillGateAdmin.open(data)) {
            SkillGate probe = gate(channel);
            List<PlannedStep> steps = List.of(
                    new PlannedStep(SkillName.of("hello-world"), revisionOf(probe, "hello-world"), Optional.empty()));
            ConsentResult<PlanSnapshot> refused = readOnly.approveWorkflow(run, AGENT, workspace, steps, channel);
            assertThat(refused.code()).contains(ErrorCode.AUDIT_LOCKED);
            assertThat(channel.workflowRequests()).isEmpty();
        }
    }
}
