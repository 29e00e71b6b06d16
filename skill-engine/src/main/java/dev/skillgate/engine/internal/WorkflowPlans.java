package dev.skillgate.engine.internal;

import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ConsentBinding;
import dev.skillgate.consent.ConsentLedger;
import dev.skillgate.consent.ConsentResult;
import dev.skillgate.consent.PlanSnapshot;
import dev.skillgate.consent.ProposalState;
import dev.skillgate.consent.WorkflowApprovalRequest;
import dev.skillgate.consent.WorkflowPlan;
import dev.skillgate.consent.WorkflowStepGrant;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
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
 * its plan and any plan still waiting for the human. Memory only: nothing survives the process.
 */
public final class WorkflowPlans {
    /** Most runs with a plan kept at once; the oldest run's plan is cancelled beyond this. */
    static final int MAX_RUNS = 256;

    private record Installed(ConsentLedger ledger, PlanSnapshot plan, Sha256Digest digest) {}

    /**
     * One used step and the digest of the plan it belongs to.
     *
     * @param grant the step grant (the launch's authorisation)
     * @param plan the plan's digest, as in its audit record
     */
    public record StepUse(WorkflowStepGrant grant, Sha256Digest plan) {
        public StepUse {
            Objects.requireNonNull(grant, "grant");
            Objects.requireNonNull(plan, "plan");
        }
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
            ConsentLedger replaced;
            synchronized (this) {
                Set<ConsentLedger> waiting = pending.get(run);
                if (closed || waiting == null || !waiting.contains(ledger)) {
                    // The run ended (or the admin closed) while the human decided.
                    ledger.endRun();
                    return ConsentResult.failure(
                            ErrorCode.CONSENT_CANCELLED, "the run ended before the plan could be installed");
                }
                PlanSnapshot approved = ledger.findPlan(snapshot.id()).orElseThrow();
                Installed previous = installed.remove(run);
                installed.put(run, new Installed(ledger, approved, digest));
                replaced = previous == null ? null : previous.ledger();
                evictBeyondBound();
            }
            if (replaced != null) {
                replaced.endRun();
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
        return ConsentResult.success(new StepUse(step.value().orElseThrow(), plan.digest()));
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
