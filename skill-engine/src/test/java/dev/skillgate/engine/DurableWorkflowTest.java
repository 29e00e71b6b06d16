package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditLogOptions;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.consent.ConsentResult;
import dev.skillgate.consent.ExecutionPolicy;
import dev.skillgate.consent.PlanSnapshot;
import dev.skillgate.consent.PlannedStep;
import dev.skillgate.consent.PolicyUpdate;
import dev.skillgate.consent.ScriptedApprovalChannel;
import dev.skillgate.consent.spi.PolicyStore;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SkillName;
import dev.skillgate.workflow.EndReason;
import dev.skillgate.workflow.InstanceId;
import dev.skillgate.workflow.KeyProvider;
import dev.skillgate.workflow.OperatorDecision;
import dev.skillgate.workflow.ProcessIdentity;
import dev.skillgate.workflow.Recovery;
import dev.skillgate.workflow.StepState;
import dev.skillgate.workflow.StepView;
import dev.skillgate.workflow.StoredWorkflow;
import dev.skillgate.workflow.WorkflowId;
import dev.skillgate.workflow.WorkflowJournal;
import dev.skillgate.workflow.WorkflowResult;
import dev.skillgate.workflow.WorkflowStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Workflow plans with the durable store, real {@code node} and the Linux supervisor: the definition,
 * each step's exact input and its checked output are recorded; after the owner is gone a new admin
 * takes the workflow over only when the owner is proven dead, nothing launches on the old consent,
 * an interrupted step is shown as unknown and needs the operator, and the remaining steps are asked
 * for again before they run.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@org.junit.jupiter.api.Timeout(180)
@EnabledOnOs(OS.LINUX)
class DurableWorkflowTest extends LiveEngineTest {
    private static final AgentId AGENT = AgentId.of("agent-1");
    private static final String HELLO = "{\"name\":\"Ada\"}";
    private static final String HELLO_2 = "{\"name\":\"Grace\"}";

    /** An admin whose workflow ownership names {@code owner} (a process the test can kill). */
    private SkillGateAdmin admin(Optional<ProcessIdentity> owner) {
        WorkflowJournal journal = WorkflowJournal.builder(
                        WorkflowStore.embedded(data.resolve("workflows")),
                        KeyProvider.keyFile(data.resolve("keys").resolve("workflow.key")))
                .instance(InstanceId.of("host-1"))
                .processIdentity(owner)
                .build();
        return SkillGateAdmin.open(
                data,
                PolicyStore.privateFile(data.resolve("policy")),
                AuditLogOptions.builder(SkillGateAdmin.auditDirectory(data)).build(),
                journal);
    }

    private SkillGate gate(SkillGateAdmin admin, ScriptedApprovalChannel channel) {
        return SkillGate.builder()
                .admin(admin)
                .skillRoot(skills)
                .nodeRuntime(Support.runtime())
                .approvalChannel(channel)
                .build();
    }

    private static ProcessIdentity identityOf(Process p) throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            Optional<ProcessIdentity> id =
                    ProcessHandle.of(p.pid()).isPresent() ? startToken(p.pid()) : Optional.empty();
            if (id.isPresent()) {
                return id.get();
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no identity for " + p.pid());
    }

    private static Optional<ProcessIdentity> startToken(long pid) {
        try {
            String stat = java.nio.file.Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Optional.of(new ProcessIdentity(pid, f[19]));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    @Test
    void aWorkflowSurvivesItsOwnerAndItsRemainingStepIsAskedForAgain() throws Exception {
        Support.copySkill(Support.examples().resolve("hello-world"), skills);
        Process stand = new ProcessBuilder("sleep", "120").start(); // the first host's process
        try {
            SkillGateAdmin first = admin(Optional.of(identityOf(stand)));
            first.savePolicy(PolicyUpdate.of(ExecutionPolicy.APPROVE_WORKFLOW_RUN))
                    .orElseThrow();
            ScriptedApprovalChannel firstChannel =
                    ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
            SkillGate firstGate = gate(first, firstChannel);
            Revision hello = firstGate.inspect("hello-world").revision().orElseThrow();
            RunId run = RunId.random();
            List<PlannedStep> steps = List.of(
                    new PlannedStep(SkillName.of("hello-world"), hello, Optional.empty()),
                    new PlannedStep(SkillName.of("hello-world"), hello, Optional.empty()),
                    new PlannedStep(SkillName.of("hello-world"), hello, Optional.empty()));
            first.approveWorkflow(run, AGENT, workspace, steps, firstChannel).orElseThrow();
            ExecutionEnvelope one = firstGate.execute(ExecutionRequest.of(run, AGENT, "hello-world", HELLO, workspace));
            assertThat(one.status()).as(one.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);

            List<StoredWorkflow> stored = first.listWorkflows().orElseThrow();
            assertThat(stored).hasSize(1);
            WorkflowId id = stored.get(0).id();
            Recovery afterOne = first.recoverWorkflow(id).orElseThrow();
            assertThat(afterOne.steps())
                    .extracting(StepView::state)
                    .containsExactly(StepState.DONE, StepState.NOT_STARTED, StepState.NOT_STARTED);
            StepView done = afterOne.steps().get(0);
            assertThat(done.started().orElseThrow().input()).isEqualTo(HELLO.getBytes(StandardCharsets.UTF_8));
            assertThat(new String(done.settled().orElseThrow().checkedOutput().orElseThrow(), StandardCharsets.UTF_8))
                    .isEqualTo(one.output().orElseThrow());
            // A step interrupted between its start record and its settlement (the host died mid-write).
            first.workflows()
                    .recordStart(id, 1, HELLO_2.getBytes(StandardCharsets.UTF_8))
                    .orElseThrow();

            // The first host goes away (its gate and admin close, as a shutdown would; its process dies).
            firstGate.close();
            first.close();

            SkillGateAdmin second = admin(ProcessIdentity.current());
            ScriptedApprovalChannel secondChannel = ScriptedApprovalChannel.denyingWhenEmpty();
            SkillGate secondGate = gate(second, secondChannel);
            try {
                assertThat(second.takeOverWorkflow(id).code())
                        .as("the owner's process lives")
                        .contains(ErrorCode.WORKFLOW_OWNER_ALIVE);
                // Nothing of the old consent survives: the run has no plan here.
                assertThat(secondGate
                                .execute(ExecutionRequest.of(run, AGENT, "hello-world", HELLO, workspace))
                                .errorCodes())
                        .containsExactly(ErrorCode.POLICY_NO_PLAN);

                stand.destroyForcibly();
                assertThat(stand.waitFor(10, TimeUnit.SECONDS)).isTrue();
                Recovery taken = second.takeOverWorkflow(id).orElseThrow();
                assertThat(taken.head().fencingToken()).isEqualTo(2);
                assertThat(taken.steps())
                        .extracting(StepView::state)
                        .containsExactly(StepState.DONE, StepState.UNKNOWN, StepState.NOT_STARTED);
                assertThat(taken.inFlight()).extracting(StepView::index).containsExactly(1);

                // The unknown step blocks resuming until the operator decides; it is never replayed.
                assertThat(second.resumeWorkflow(id, secondChannel).code()).contains(ErrorCode.WORKFLOW_STEP_UNKNOWN);
                assertThat(secondChannel.workflowRequests()).isEmpty();
                assertThat(second.decideWorkflowStep(id, 1, OperatorDecision.EFFECT_ABSENT, "no greeting was sent")
                                .orElseThrow()
                                .remaining())
                        .extracting(StepView::index)
                        .containsExactly(1, 2);

                // Fresh run-scoped consent for exactly the remaining steps.
                secondChannel.denyNext("not now");
                assertThat(second.resumeWorkflow(id, secondChannel).code()).contains(ErrorCode.CONSENT_DENIED);
                secondChannel.approveNext();
                ConsentResult<PlanSnapshot> resumed = second.resumeWorkflow(id, secondChannel);
                assertThat(resumed.isSuccess()).as(resumed.toString()).isTrue();
                assertThat(secondChannel.workflowRequests()).hasSize(2);
                assertThat(secondChannel.workflowRequests().get(1).plan().steps())
                        .hasSize(2);
                assertThat(secondChannel.workflowRequests().get(1).plan().run()).isEqualTo(run);

                for (String input : List.of(HELLO_2, HELLO)) {
                    ExecutionEnvelope env =
                            secondGate.execute(ExecutionRequest.of(run, AGENT, "hello-world", input, workspace));
                    assertThat(env.status()).as(env.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
                }
                assertThat(secondGate
                                .execute(ExecutionRequest.of(run, AGENT, "hello-world", HELLO, workspace))
                                .errorCodes())
                        .containsExactly(ErrorCode.POLICY_NO_PLAN);
                Recovery end = second.recoverWorkflow(id).orElseThrow();
                assertThat(end.steps())
                        .extracting(StepView::state)
                        .containsExactly(StepState.DONE, StepState.DONE, StepState.DONE);
                assertThat(end.ended()).contains(EndReason.COMPLETED);
                assertThat(secondChannel.requests())
                        .as("no per-invocation prompt")
                        .isEmpty();

                List<AuditEvent> events = second.trust().records(0, 1000).stream()
                        .map(AuditRecord::event)
                        .toList();
                assertThat(events)
                        .filteredOn(e -> e instanceof AuditEvent.WorkflowChanged)
                        .extracting(e -> ((AuditEvent.WorkflowChanged) e).action())
                        .containsExactly(
                                AuditEvent.WorkflowChanged.Action.TAKEOVER, AuditEvent.WorkflowChanged.Action.DECIDE);
                assertThat(events)
                        .filteredOn(e -> e instanceof AuditEvent.PlanApproved)
                        .hasSize(2);

                // Retention removes the ended workflow, recorded.
                assertThat(second.purgeWorkflows(Duration.ofDays(1))
                                .orElseThrow()
                                .removed())
                        .isEmpty();
                Thread.sleep(20);
                assertThat(second.purgeWorkflows(Duration.ZERO).orElseThrow().removed())
                        .extracting(StoredWorkflow::id)
                        .containsExactly(id);
                assertThat(second.trust().records(0, 1000).stream().map(AuditRecord::event))
                        .anyMatch(e -> e instanceof AuditEvent.WorkflowChanged w
                                && w.action() == AuditEvent.WorkflowChanged.Action.PURGE
                                && w.workflow().equals(id.toString()));
            } finally {
                secondGate.close();
                second.close();
            }
        } finally {
            stand.destroyForcibly();
        }
    }

    @Test
    void endingTheRunCancelsTheDurableWorkflow() throws Exception {
        Support.copySkill(Support.examples().resolve("hello-world"), skills);
        SkillGateAdmin admin = SkillGateAdmin.open(data);
        try {
            admin.savePolicy(PolicyUpdate.of(ExecutionPolicy.APPROVE_WORKFLOW_RUN))
                    .orElseThrow();
            ScriptedApprovalChannel channel =
                    ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
            SkillGate gate = gate(admin, channel);
            Revision hello = gate.inspect("hello-world").revision().orElseThrow();
            RunId run = RunId.random();
            admin.approveWorkflow(
                            run,
                            AGENT,
                            workspace,
                            List.of(new PlannedStep(SkillName.of("hello-world"), hello, Optional.empty())),
                            channel)
                    .orElseThrow();
            WorkflowId id = admin.listWorkflows().orElseThrow().get(0).id();
            assertThat(data.resolve("keys").resolve("workflow.key")).exists();
            admin.endRun(run);
            assertThat(admin.recoverWorkflow(id).orElseThrow().ended()).contains(EndReason.CANCELLED);
            assertThat(admin.takeOverWorkflow(id).code()).contains(ErrorCode.WORKFLOW_TERMINAL);
            gate.close();
        } finally {
            admin.close();
        }
    }

    /**
     * The recovery loop of docs/workflows.md, as a host would write it: after the owner died, each
     * unfinished workflow is taken over, its unknown step decided by the operator, and the remaining
     * steps asked for again before they run.
     */
    @Test
    void theDocumentedRecoveryLoopResumesOnlyWithFreshConsent() throws Exception {
        Support.copySkill(Support.examples().resolve("hello-world"), skills);
        Process stand = new ProcessBuilder("sleep", "120").start(); // the first host's process
        RunId run = RunId.random();
        try {
            SkillGateAdmin first = admin(Optional.of(identityOf(stand)));
            first.savePolicy(PolicyUpdate.of(ExecutionPolicy.APPROVE_WORKFLOW_RUN))
                    .orElseThrow();
            ScriptedApprovalChannel firstChannel =
                    ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
            SkillGate firstGate = gate(first, firstChannel);
            Revision hello = firstGate.inspect("hello-world").revision().orElseThrow();
            PlannedStep step = new PlannedStep(SkillName.of("hello-world"), hello, Optional.empty());
            first.approveWorkflow(run, AGENT, workspace, List.of(step, step, step), firstChannel)
                    .orElseThrow();
            assertThat(firstGate
                            .execute(ExecutionRequest.of(run, AGENT, "hello-world", HELLO, workspace))
                            .status())
                    .isEqualTo(ExecutionStatus.SUCCEEDED);
            WorkflowId started = first.listWorkflows().orElseThrow().get(0).id();
            first.workflows()
                    .recordStart(started, 1, HELLO_2.getBytes(StandardCharsets.UTF_8))
                    .orElseThrow(); // the host died between a step's start record and its settlement
            firstGate.close();
            first.close();
            stand.destroyForcibly();
            assertThat(stand.waitFor(10, TimeUnit.SECONDS)).isTrue();

            SkillGateAdmin admin = admin(ProcessIdentity.current());
            ScriptedApprovalChannel approvalUi =
                    ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
            try (SkillGate gate = gate(admin, approvalUi)) {
                // snippet:begin workflow-recovery
                for (StoredWorkflow w : admin.listWorkflows().orElseThrow()) {
                    if (w.ended()) continue;
                    WorkflowResult<Recovery> taken =
                            admin.takeOverWorkflow(w.id()); // WORKFLOW_OWNER_ALIVE while the owner lives
                    if (!taken.isSuccess()) continue;
                    for (StepView unknown : taken.orElseThrow().unknown()) {
                        // Look at the world (the step's input is in unknown.started()), then decide explicitly:
                        admin.decideWorkflowStep(
                                w.id(), unknown.index(), OperatorDecision.EFFECT_ABSENT, "checked: nothing sent");
                    }
                    admin.resumeWorkflow(w.id(), approvalUi); // asks the human again
                }
                // snippet:end workflow-recovery
                assertThat(approvalUi.workflowRequests())
                        .singleElement()
                        .satisfies(r -> assertThat(r.plan().steps()).hasSize(2));
                for (String input : List.of(HELLO_2, HELLO)) {
                    ExecutionEnvelope env =
                            gate.execute(ExecutionRequest.of(run, AGENT, "hello-world", input, workspace));
                    assertThat(env.status()).as(env.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
                }
                assertThat(admin.recoverWorkflow(started).orElseThrow().ended()).contains(EndReason.COMPLETED);
            } finally {
                admin.close();
            }
        } finally {
            stand.destroyForcibly();
        }
    }
}
