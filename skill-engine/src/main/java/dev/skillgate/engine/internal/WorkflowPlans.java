package dev.skillgate.engine.internal;

import dev.skillgate.audit.ExecutionScope;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ConsentBinding;
import dev.skillgate.consent.ConsentResult;
import dev.skillgate.consent.PlanSnapshot;
import dev.skillgate.consent.PlannedStep;
import dev.skillgate.consent.ProposalState;
import dev.skillgate.consent.WorkflowApprovalRequest;
import dev.skillgate.consent.WorkflowPlan;
import dev.skillgate.consent.shared.ConsentLedger;
import dev.skillgate.consent.shared.WorkflowStepGrant;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.Limits;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import dev.skillgate.model.WorkspaceIdentity;
import dev.skillgate.workflow.EndReason;
import dev.skillgate.workflow.Recovery;
import dev.skillgate.workflow.StepState;
import dev.skillgate.workflow.StepView;
import dev.skillgate.workflow.WorkflowDefinition;
import dev.skillgate.workflow.WorkflowId;
import dev.skillgate.workflow.WorkflowJournal;
import dev.skillgate.workflow.WorkflowResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The approved workflow plans of live runs ({@code APPROVE_WORKFLOW_RUN}, SPEC §8), kept by the
 * host-side admin and consulted by the engine at launch. Not API.
 *
 * <p>Each submitted plan gets its own {@link ConsentLedger}: proposed, shown once through the
 * approval channel (fail closed, within the consent window), recorded in the audit log, and only
 * then installed as its run's plan — so no step can be used before the approval is on record. A
 * newer approved plan for the same run replaces (and cancels) the older one; ending the run cancels
 * its plan and any plan still waiting for the human.
 *
 * <p>The consent is memory only: nothing runnable survives the process. What survives is the durable
 * workflow in the {@link WorkflowJournal} (decision 0684): its definition when the plan is installed,
 * each step's exact input before its launch, each step's settlement. After a restart or a takeover
 * the host resumes it with {@link #resume}: the remaining steps are asked for again as a new plan of
 * the same run (fresh run-scoped consent), and a step whose effect is unknown blocks that until an
 * operator decided it.
 */
public final class WorkflowPlans {
    /** Most runs with a plan kept at once; the oldest run's plan is cancelled beyond this. */
    static final int MAX_RUNS = 256;

    /**
     * An installed plan: its ledger, snapshot, digest, the durable workflow it advances, and for each
     * plan step the definition step it stands for (the identity for a fresh plan; the remaining steps
     * for a resumed one).
     */
    private record Installed(
            ConsentLedger ledger, PlanSnapshot plan, Sha256Digest digest, WorkflowId workflow, List<Integer> steps) {}

    /**
     * One used step and the digest of the plan it belongs to.
     *
     * @param grant the step grant (the launch's authorisation)
     * @param plan the plan's digest, as in its audit record
     * @param workflow the durable workflow
     * @param step the step's index in the workflow's definition
     */
    public record StepUse(WorkflowStepGrant grant, Sha256Digest plan, WorkflowId workflow, int step) {
        public StepUse {
            Objects.requireNonNull(grant, "grant");
            Objects.requireNonNull(plan, "plan");
            Objects.requireNonNull(workflow, "workflow");
        }
    }

    private final WorkflowJournal journal;

    /** Plans whose durable records go to {@code journal}. */
    public WorkflowPlans(WorkflowJournal journal) {
        this.journal = Objects.requireNonNull(journal, "journal");
    }

    /** The journal durable workflows are written to. */
    public WorkflowJournal journal() {
        return journal;
    }

    private final Map<RunId, Installed> installed = new LinkedHashMap<>(); // guarded by this
    private final Map<RunId, Integer> submissions = new HashMap<>(); // guarded by this
    private final Map<RunId, Set<ConsentLedger>> pending = new HashMap<>(); // guarded by this
    private boolean closed; // guarded by this

    /**
     * Proposes {@code plan}, asks the human once through {@code channel} and, when approved and
     * recorded in the audit log, installs it as the run's plan.
     *
     * @return the approved plan, or why not: the audit log cannot record (nothing is asked), the
     *     human's denial or timeout, a channel failure, {@code PROPOSAL_LIMIT} after 64 submissions
     *     for one run, {@code CONSENT_CANCELLED} when the run ended meanwhile, or the audit log's code
     *     when the approval could not be recorded (the plan is then cancelled)
     */
    public ConsentResult<PlanSnapshot> approve(WorkflowPlan plan, ApprovalChannel channel, Trail trail) {
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(channel, "channel");
        Objects.requireNonNull(trail, "trail");
        return askAndInstall(plan, channel, trail, Optional.empty());
    }

    /**
     * Resumes durable workflow {@code id} after a restart or takeover: this instance must own it (see
     * {@link WorkflowJournal#takeOver}); no step may be unknown ({@code WORKFLOW_STEP_UNKNOWN}: an
     * operator decides first, nothing is replayed); the workspace must still be the same directory.
     * The remaining steps become a new plan of the same run, asked for once through {@code channel}
     * — fresh run-scoped consent — recorded, and installed; each used step advances the same durable
     * workflow.
     */
    public ConsentResult<PlanSnapshot> resume(WorkflowId id, ApprovalChannel channel, Trail trail) {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(channel, "channel");
        Objects.requireNonNull(trail, "trail");
        if (!journal.owns(id)) {
            return ConsentResult.failure(
                    ErrorCode.WORKFLOW_FENCED, "this instance does not own workflow " + id + " (take it over first)");
        }
        WorkflowResult<Recovery> read = journal.recover(id);
        if (!read.isSuccess()) {
            return ConsentResult.failure(read.failure().orElseThrow());
        }
        Recovery recovery = read.value().orElseThrow();
        if (recovery.ended().isPresent()) {
            return ConsentResult.failure(ErrorCode.WORKFLOW_TERMINAL, "workflow " + id + " has ended");
        }
        if (!recovery.unknown().isEmpty()) {
            return ConsentResult.failure(
                    ErrorCode.WORKFLOW_STEP_UNKNOWN,
                    "steps "
                            + recovery.unknown().stream()
                                    .map(v -> Integer.toString(v.index()))
                                    .toList() + " have an unknown effect: an operator must decide them first");
        }
        if (recovery.steps().stream().anyMatch(v -> v.state() == StepState.RUNNING)) {
            return ConsentResult.failure(
                    ErrorCode.WORKFLOW_INVALID, "a step of workflow " + id + " is still running here");
        }
        List<StepView> remaining = recovery.remaining();
        if (remaining.isEmpty()) {
            return ConsentResult.failure(ErrorCode.WORKFLOW_INVALID, "workflow " + id + " has no remaining step");
        }
        WorkflowDefinition def = recovery.definition();
        Optional<WorkspaceIdentity> workspace = Workspaces.identify(Path.of(def.workspacePath()));
        if (workspace.isEmpty()
                || !ExecutionScope.workspaceDigest(workspace.get()).equals(def.workspaceDigest())) {
            return ConsentResult.failure(
                    ErrorCode.WORKSPACE_UNAVAILABLE, "the workflow's workspace is missing or another directory now");
        }
        List<PlannedStep> steps = new ArrayList<>();
        List<Integer> map = new ArrayList<>();
        for (StepView v : remaining) {
            steps.add(new PlannedStep(
                    v.step().skill(), v.step().revision(), v.step().invocationDigest()));
            map.add(v.index());
        }
        WorkflowPlan plan = new WorkflowPlan(def.run(), def.agent(), workspace.get(), steps);
        return askAndInstall(plan, channel, trail, Optional.of(new Resumed(id, map)));
    }

    private record Resumed(WorkflowId workflow, List<Integer> steps) {}

    private ConsentResult<PlanSnapshot> askAndInstall(
            WorkflowPlan plan, ApprovalChannel channel, Trail trail, Optional<Resumed> resumed) {
        RunId run = plan.run();
        ConsentLedger ledger = ConsentLedger.open(run);
        synchronized (this) {
            if (closed) {
                return ConsentResult.failure(ErrorCode.CONSENT_CANCELLED, "the admin is closed");
            }
            int n = submissions.getOrDefault(run, 0);
            if (n >= Limits.PROPOSALS_PER_RUN) {
                return ConsentResult.failure(
                        ErrorCode.PROPOSAL_LIMIT,
                        "the run already had " + Limits.PROPOSALS_PER_RUN + " workflow plans submitted");
            }
            submissions.put(run, n + 1);
            pending.computeIfAbsent(run, r -> ConcurrentHashMap.newKeySet()).add(ledger);
        }
        try {
            Optional<Diagnostic> cannotRecord = trail.unavailable();
            if (cannotRecord.isPresent()) {
                // The approval could not be recorded: do not ask a human for a plan that cannot be used.
                return failure(cannotRecord.get());
            }
            ConsentResult<PlanSnapshot> proposed = ledger.proposePlan(plan);
            if (!proposed.isSuccess()) {
                return proposed;
            }
            PlanSnapshot snapshot = proposed.value().orElseThrow();
            AtomicReference<ApprovalDecision> seen = new AtomicReference<>();
            // Fail closed first, so every outcome (exception, null, closed channel, no answer) is a
            // recorded denial with its own code; the ledger bounds the wait by the remaining window.
            ApprovalChannel bounded =
                    ApprovalChannel.failClosed(channel, Duration.ofNanos(Limits.CONSENT_WINDOW_NANOS));
            ApprovalChannel recording = new ApprovalChannel() {
                @Override
                public CompletionStage<ApprovalDecision> request(dev.skillgate.consent.ApprovalRequest request) {
                    return bounded.request(request);
                }

                @Override
                public CompletionStage<ApprovalDecision> requestWorkflow(WorkflowApprovalRequest request) {
                    return bounded.requestWorkflow(request).thenApply(d -> {
                        seen.set(d);
                        return d;
                    });
                }
            };
            ConsentResult<ProposalState> answer = ledger.requestPlanApproval(
                            WorkflowApprovalRequest.forPlan(snapshot), recording)
                    .toCompletableFuture()
                    .join();
            if (!answer.isSuccess()) {
                return ConsentResult.failure(answer.failure().orElseThrow());
            }
            if (answer.value().orElseThrow() != ProposalState.APPROVED) {
                ApprovalDecision decision = seen.get();
                if (decision instanceof ApprovalDecision.Denied d) {
                    return ConsentResult.failure(
                            d.code(), d.reason().isEmpty() ? "the workflow plan was denied" : d.reason());
                }
                return ConsentResult.failure(ErrorCode.CONSENT_TIMEOUT, "no approval within the consent window");
            }
            Sha256Digest digest = AuditTrail.planDigest(plan);
            Optional<Diagnostic> notRecorded = trail.planApproved(plan, digest);
            if (notRecorded.isPresent()) {
                ledger.endRun();
                return failure(notRecorded.get());
            }
            WorkflowId workflow;
            List<Integer> stepMap;
            if (resumed.isPresent()) {
                workflow = resumed.get().workflow();
                stepMap = resumed.get().steps();
            } else {
                workflow = WorkflowId.random();
                stepMap = new ArrayList<>();
                for (int i = 0; i < plan.steps().size(); i++) {
                    stepMap.add(i);
                }
                WorkflowResult<dev.skillgate.workflow.Lease> begun = journal.begin(definition(workflow, plan, digest));
                if (!begun.isSuccess()) {
                    // Not durable, so not installed: a workflow the store cannot hold does not run.
                    ledger.endRun();
                    return ConsentResult.failure(begun.failure().orElseThrow());
                }
            }
            Installed previousOfRun;
            ConsentLedger replaced;
            synchronized (this) {
                Set<ConsentLedger> waiting = pending.get(run);
                if (closed || waiting == null || !waiting.contains(ledger)) {
                    // The run ended (or the admin closed) while the human decided.
                    ledger.endRun();
                    if (resumed.isEmpty()) {
                        journal.end(workflow, EndReason.CANCELLED);
                    }
                    return ConsentResult.failure(
                            ErrorCode.CONSENT_CANCELLED, "the run ended before the plan could be installed");
                }
                PlanSnapshot approved = ledger.findPlan(snapshot.id()).orElseThrow();
                Installed previous = installed.remove(run);
                installed.put(run, new Installed(ledger, approved, digest, workflow, List.copyOf(stepMap)));
                replaced = previous == null ? null : previous.ledger();
                previousOfRun = previous;
                evictBeyondBound();
            }
            if (replaced != null) {
                replaced.endRun();
                if (!previousOfRun.workflow().equals(workflow)) {
                    journal.end(previousOfRun.workflow(), EndReason.CANCELLED);
                }
            }
            return ConsentResult.success(ledger.findPlan(snapshot.id()).orElseThrow());
        } finally {
            synchronized (this) {
                Set<ConsentLedger> waiting = pending.get(run);
                if (waiting != null) {
                    waiting.remove(ledger);
                    if (waiting.isEmpty()) {
                        pending.remove(run);
                    }
                }
            }
        }
    }

    private void evictBeyondBound() {
        while (installed.size() > MAX_RUNS) {
            RunId oldest = installed.keySet().iterator().next();
            installed.remove(oldest).ledger().endRun();
        }
    }

    /**
     * Uses one step of {@code run}'s approved plan for a launch of {@code skill} with
     * {@code binding} (same run, agent and workspace; an unused step covering the skill, revision and,
     * if fixed, the invocation digest).
     *
     * @return the step, or {@code POLICY_NO_PLAN} when no approved plan covers the launch
     */
    public ConsentResult<StepUse> consumeStep(SkillName skill, ConsentBinding binding) {
        Objects.requireNonNull(skill, "skill");
        Objects.requireNonNull(binding, "binding");
        Installed plan;
        synchronized (this) {
            plan = installed.get(binding.run());
        }
        if (plan == null) {
            return ConsentResult.failure(ErrorCode.POLICY_NO_PLAN, "no approved workflow plan for this run");
        }
        ConsentResult<WorkflowStepGrant> step = plan.ledger().consumePlanStep(skill, binding);
        if (!step.isSuccess()) {
            return ConsentResult.failure(step.failure().orElseThrow());
        }
        WorkflowStepGrant grant = step.value().orElseThrow();
        return ConsentResult.success(
                new StepUse(grant, plan.digest(), plan.workflow(), plan.steps().get(grant.step())));
    }

    /** The run's approved plan now (with the steps used so far), if it has one. */
    public Optional<PlanSnapshot> current(RunId run) {
        Installed plan;
        synchronized (this) {
            plan = installed.get(run);
        }
        return plan == null
                ? Optional.empty()
                : plan.ledger().findPlan(plan.plan().id());
    }

    /** Ends {@code run}: its plan and any plan waiting for the human are cancelled. */
    public void endRun(RunId run) {
        Objects.requireNonNull(run, "run");
        List<ConsentLedger> ended = new ArrayList<>();
        synchronized (this) {
            Installed plan = installed.remove(run);
            if (plan != null) {
                ended.add(plan.ledger());
            }
            Set<ConsentLedger> waiting = pending.remove(run);
            if (waiting != null) {
                ended.addAll(waiting);
            }
        }
        ended.forEach(ConsentLedger::endRun);
    }

    /**
     * Ends {@code run} and cancels its durable workflow: a run the host ended does not resume after a
     * restart. ({@link #close} does not: a workflow interrupted by a shutdown stays resumable.)
     */
    public void endRunAndWorkflow(RunId run) {
        Objects.requireNonNull(run, "run");
        Installed plan;
        synchronized (this) {
            plan = installed.get(run);
        }
        endRun(run);
        if (plan != null && journal.owns(plan.workflow())) {
            journal.end(plan.workflow(), EndReason.CANCELLED);
        }
    }

    /**
     * Records that {@code use}'s step is about to launch with exactly {@code input}; a failure (not the
     * owner any more, the store cannot write) must stop the launch.
     */
    public Optional<Diagnostic> stepStarting(StepUse use, byte[] input) {
        WorkflowResult<dev.skillgate.workflow.Lease> r = journal.recordStart(use.workflow(), use.step(), input);
        return r.failure();
    }

    /**
     * Records how {@code use}'s step settled; ends the workflow when every step is done. A failure is
     * returned, never thrown: the run already happened, and the record's absence reads as an unknown
     * effect on recovery.
     */
    public Optional<Diagnostic> stepSettled(StepUse use, ExecutionEnvelope env) {
        CleanupStatus cleanup = env.cleanup().status();
        Optional<byte[]> output = env.status() == dev.skillgate.model.ExecutionStatus.SUCCEEDED
                ? env.output().map(o -> o.getBytes(StandardCharsets.UTF_8))
                : Optional.empty();
        List<ErrorCode> codes = env.errorCodes().stream().distinct().limit(16).toList();
        WorkflowResult<dev.skillgate.workflow.Lease> r =
                journal.recordSettlement(use.workflow(), use.step(), env.status(), cleanup, codes, output);
        if (!r.isSuccess()) {
            return r.failure();
        }
        WorkflowResult<Recovery> now = journal.recover(use.workflow());
        if (now.isSuccess() && now.value().get().steps().stream().allMatch(v -> v.state() == StepState.DONE)) {
            journal.end(use.workflow(), EndReason.COMPLETED);
        }
        return Optional.empty();
    }

    /** The durable workflow behind {@code run}'s installed plan, if it has one. */
    public Optional<WorkflowId> workflowOf(RunId run) {
        synchronized (this) {
            return Optional.ofNullable(installed.get(run)).map(Installed::workflow);
        }
    }

    private static WorkflowDefinition definition(WorkflowId id, WorkflowPlan plan, Sha256Digest digest) {
        List<WorkflowDefinition.Step> steps = new ArrayList<>();
        for (PlannedStep p : plan.steps()) {
            steps.add(new WorkflowDefinition.Step(p.skill(), p.revision(), p.invocationDigest()));
        }
        return new WorkflowDefinition(
                id,
                plan.run(),
                plan.agent(),
                ExecutionScope.workspaceDigest(plan.workspace()),
                plan.workspace().realPath().toString(),
                steps,
                digest);
    }

    /** Cancels every plan; nothing new is approved afterwards. */
    public void close() {
        List<ConsentLedger> ended = new ArrayList<>();
        synchronized (this) {
            closed = true;
            installed.values().forEach(p -> ended.add(p.ledger()));
            pending.values().forEach(ended::addAll);
            installed.clear();
            pending.clear();
        }
        ended.forEach(ConsentLedger::endRun);
    }

    private static <T> ConsentResult<T> failure(Diagnostic d) {
        return ConsentResult.failure(d);
    }
}
