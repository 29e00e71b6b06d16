package dev.skillgate.consent.shared;

import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.ConsentBinding;
import dev.skillgate.consent.ConsentResult;
import dev.skillgate.consent.PlanSnapshot;
import dev.skillgate.consent.ProposalId;
import dev.skillgate.consent.ProposalSnapshot;
import dev.skillgate.consent.ProposalState;
import dev.skillgate.consent.WorkflowApprovalRequest;
import dev.skillgate.consent.WorkflowPlan;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SkillName;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apiguardian.api.API;

/**
 * The consent state machine of one live run (SPEC §8): proposals, decisions and one-use grants.
 *
 * <p>Lifecycle of an invocation proposal: {@code PENDING → APPROVED | DENIED}; {@code APPROVED →
 * CONSUMED} exactly once, atomically; {@code PENDING | APPROVED → EXPIRED | STALE | CANCELLED |
 * MISMATCHED}. Terminal states never change. A second decision on a decided proposal is
 * {@link ErrorCode#DUPLICATE_DECISION} or {@link ErrorCode#CONFLICTING_DECISION}, never an
 * approval. Consuming needs the identical binding; a different one is
 * {@link ErrorCode#BINDING_MISMATCH} and makes the proposal unusable. The window is
 * {@link Limits#CONSENT_WINDOW_NANOS} from creation on the monotonic {@link Ticker}: a proposal is
 * usable while less than the window has elapsed and expired from the exact window on; wall time is
 * only for display. At most {@link Limits#PROPOSALS_PER_RUN} proposals (plans included) per run; a
 * new proposal for the same skill stales earlier pending or approved ones; ending or aborting the
 * run cancels everything outstanding and refuses new proposals.
 *
 * <p>Memory only: nothing is persisted, so a new ledger (another run instance, or after a restart)
 * knows no old grants and answers {@link ErrorCode#UNKNOWN_PROPOSAL}. The ledger keeps bindings
 * (which hold the invocation digest), never the invocation text: {@link #requestApproval} passes
 * the request to the channel and keeps no reference to it once the decision is recorded. There is
 * no automatic retry. Every method is thread-safe; all state changes happen under one lock, so
 * racing consumers get exactly one grant and racing deciders exactly one decision.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class ConsentLedger {

    private enum Kind {
        INVOCATION,
        PLAN
    }

    /** One proposal's mutable state; guarded by {@link #lock}. */
    private static final class Entry {
        final ProposalId id;
        final Kind kind;
        final SkillName skill; // INVOCATION only
        final ConsentBinding binding; // INVOCATION only
        final WorkflowPlan plan; // PLAN only
        final long createdNanos;
        final Instant createdAt;
        ProposalState state = ProposalState.PENDING;
        Boolean approvedDecision; // null until decided
        final BitSet usedSteps = new BitSet();
        /** Callers of requestApproval waiting for this pending proposal's answer; emptied when it leaves PENDING. */
        final List<CompletableFuture<ConsentResult<ProposalState>>> waiters = new ArrayList<>();

        Entry(
                ProposalId id,
                Kind kind,
                SkillName skill,
                ConsentBinding binding,
                WorkflowPlan plan,
                long createdNanos,
                Instant createdAt) {
            this.id = id;
            this.kind = kind;
            this.skill = skill;
            this.binding = binding;
            this.plan = plan;
            this.createdNanos = createdNanos;
            this.createdAt = createdAt;
        }
    }

    private static final Duration WINDOW = Duration.ofNanos(Limits.CONSENT_WINDOW_NANOS);

    private final RunId run;
    private final Ticker ticker;
    private final Clock wallClock;
    private final Object lock = new Object();
    private final Map<ProposalId, Entry> entries = new LinkedHashMap<>();
    private boolean ended;

    private ConsentLedger(RunId run, Ticker ticker, Clock wallClock) {
        this.run = Objects.requireNonNull(run, "run");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.wallClock = Objects.requireNonNull(wallClock, "wallClock");
    }

    /** A ledger for {@code run} on the system monotonic clock, with UTC wall time for display. */
    public static ConsentLedger open(RunId run) {
        return new ConsentLedger(run, Ticker.system(), Clock.systemUTC());
    }

    /** A ledger with an injected monotonic ticker and a display clock (tests, simulations). */
    public static ConsentLedger open(RunId run, Ticker ticker, Clock wallClock) {
        return new ConsentLedger(run, ticker, wallClock);
    }

    /** The run this ledger belongs to. */
    public RunId run() {
        return run;
    }

    /**
     * Records a new pending proposal for {@code skill} with exactly {@code binding}, staling earlier
     * pending or approved proposals for the same skill. Refused (nothing changes) when the run has
     * ended ({@link ErrorCode#CONSENT_CANCELLED}), the binding names another run
     * ({@link ErrorCode#BINDING_MISMATCH}) or the run already has 64 proposals
     * ({@link ErrorCode#PROPOSAL_LIMIT}).
     */
    public ConsentResult<ProposalSnapshot> propose(SkillName skill, ConsentBinding binding) {
        Objects.requireNonNull(skill, "skill");
        Objects.requireNonNull(binding, "binding");
        synchronized (lock) {
            Optional<ConsentResult<ProposalSnapshot>> refusal = admissionRefusal(binding.run());
            if (refusal.isPresent()) {
                return refusal.get();
            }
            long now = ticker.nanos();
            for (Entry e : entries.values()) {
                settle(e, now);
                if (e.kind == Kind.INVOCATION && e.skill.equals(skill) && !e.state.isTerminal()) {
                    transition(e, ProposalState.STALE);
                }
            }
            Entry entry =
                    new Entry(ProposalId.random(), Kind.INVOCATION, skill, binding, null, now, wallClock.instant());
            entries.put(entry.id, entry);
            return ConsentResult.success(snapshot(entry));
        }
    }

    /**
     * Records the human's decision for a pending proposal (invocation or plan).
     *
     * @return the new state, or: {@link ErrorCode#UNKNOWN_PROPOSAL} for an id this ledger does not
     *     know; {@link ErrorCode#BINDING_MISMATCH} for an approval that names another request (a
     *     pending proposal then becomes {@link ProposalState#MISMATCHED}, decision 0760); {@link ErrorCode#DUPLICATE_DECISION} / {@link ErrorCode#CONFLICTING_DECISION} when
     *     a decision was already recorded; the terminal state's code (expired, stale, cancelled,
     *     binding mismatch) when it ended undecided. A failure never changes a decided state.
     */
    public ConsentResult<ProposalState> decide(ProposalId id, ApprovalDecision decision) {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(decision, "decision");
        synchronized (lock) {
            Entry entry = entries.get(id);
            if (entry == null) {
                return unknown();
            }
            settle(entry, ticker.nanos());
            if (!decision.answers(id)) {
                // An approval for another request (decision 0760): a confused or hostile host UI. The
                // proposal can no longer be trusted to be answered by the human who saw it.
                if (entry.state == ProposalState.PENDING) {
                    transition(entry, ProposalState.MISMATCHED);
                }
                return ConsentResult.failure(
                        ErrorCode.BINDING_MISMATCH, "the approval names another request than this proposal");
            }
            if (entry.approvedDecision != null) {
                return entry.approvedDecision == decision.isApproval()
                        ? ConsentResult.failure(ErrorCode.DUPLICATE_DECISION, "the proposal was already decided")
                        : ConsentResult.failure(
                                ErrorCode.CONFLICTING_DECISION, "the proposal was already decided differently");
            }
            if (entry.state != ProposalState.PENDING) {
                return ConsentResult.failure(
                        entry.state.refusal(), "the proposal is " + entry.state + " and can no longer be decided");
            }
            entry.approvedDecision = decision.isApproval();
            transition(entry, decision.isApproval() ? ProposalState.APPROVED : ProposalState.DENIED);
            return ConsentResult.success(entry.state);
        }
    }

    /**
     * Consumes an approved invocation proposal exactly once, atomically, if {@code presented} is
     * identical to the approved binding.
     *
     * @return the grant, or: {@link ErrorCode#UNKNOWN_PROPOSAL}; {@link ErrorCode#BINDING_MISMATCH}
     *     (the proposal becomes {@link ProposalState#MISMATCHED}, terminal);
     *     {@link ErrorCode#CONSENT_NOT_APPROVED} while pending;
     *     {@link ErrorCode#CONSENT_ALREADY_CONSUMED}; or the terminal state's code.
     */
    public ConsentResult<ConsumedGrant> consume(ProposalId id, ConsentBinding presented) {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(presented, "presented");
        synchronized (lock) {
            Entry entry = entries.get(id);
            if (entry == null || entry.kind != Kind.INVOCATION) {
                return unknown();
            }
            settle(entry, ticker.nanos());
            if (entry.state.isTerminal()) {
                return ConsentResult.failure(entry.state.refusal(), "the proposal is " + entry.state);
            }
            if (!entry.binding.equals(presented)) {
                transition(entry, ProposalState.MISMATCHED);
                return ConsentResult.failure(
                        ErrorCode.BINDING_MISMATCH, "the presented binding differs from the proposed one");
            }
            if (entry.state == ProposalState.PENDING) {
                return ConsentResult.failure(ErrorCode.CONSENT_NOT_APPROVED, "the proposal is not approved");
            }
            transition(entry, ProposalState.CONSUMED);
            return ConsentResult.success(new ConsumedGrant(entry.id, entry.skill, entry.binding, wallClock.instant()));
        }
    }

    /**
     * Cancels one outstanding (pending or approved) proposal or plan, e.g. when a later check
     * refuses the launch.
     *
     * @return {@link ProposalState#CANCELLED}, {@link ErrorCode#UNKNOWN_PROPOSAL}, or the terminal
     *     state's code (nothing changes)
     */
    public ConsentResult<ProposalState> cancel(ProposalId id) {
        Objects.requireNonNull(id, "id");
        synchronized (lock) {
            Entry entry = entries.get(id);
            if (entry == null) {
                return unknown();
            }
            settle(entry, ticker.nanos());
            if (entry.state.isTerminal()) {
                return ConsentResult.failure(entry.state.refusal(), "the proposal is already " + entry.state);
            }
            transition(entry, ProposalState.CANCELLED);
            return ConsentResult.success(entry.state);
        }
    }

    /**
     * Ends the run: every outstanding proposal and plan is cancelled and new proposals are refused.
     * Idempotent.
     *
     * @return how many proposals this call cancelled
     */
    public int endRun() {
        synchronized (lock) {
            ended = true;
            long now = ticker.nanos();
            int cancelled = 0;
            for (Entry e : entries.values()) {
                settle(e, now);
                if (!e.state.isTerminal()) {
                    transition(e, ProposalState.CANCELLED);
                    cancelled++;
                }
            }
            return cancelled;
        }
    }

    /** Aborts the run: the same effect as {@link #endRun()}. */
    public int abortRun() {
        return endRun();
    }

    /** Whether the run has ended or been aborted. */
    public boolean isEnded() {
        synchronized (lock) {
            return ended;
        }
    }

    /** The current state of an invocation proposal, expiry applied. */
    public Optional<ProposalSnapshot> find(ProposalId id) {
        Objects.requireNonNull(id, "id");
        synchronized (lock) {
            Entry entry = entries.get(id);
            if (entry == null || entry.kind != Kind.INVOCATION) {
                return Optional.empty();
            }
            settle(entry, ticker.nanos());
            return Optional.of(snapshot(entry));
        }
    }

    /** Every invocation proposal of the run, oldest first, expiry applied. */
    public List<ProposalSnapshot> proposals() {
        synchronized (lock) {
            long now = ticker.nanos();
            List<ProposalSnapshot> out = new ArrayList<>();
            for (Entry e : entries.values()) {
                if (e.kind == Kind.INVOCATION) {
                    settle(e, now);
                    out.add(snapshot(e));
                }
            }
            return List.copyOf(out);
        }
    }

    /** How many proposals and plans are outstanding (pending or approved) now, expiry applied. */
    public int outstandingCount() {
        synchronized (lock) {
            long now = ticker.nanos();
            int n = 0;
            for (Entry e : entries.values()) {
                settle(e, now);
                if (!e.state.isTerminal()) {
                    n++;
                }
            }
            return n;
        }
    }

    /** How many proposals (plans included) the run has used of its {@link Limits#PROPOSALS_PER_RUN}. */
    public int proposalCount() {
        synchronized (lock) {
            return entries.size();
        }
    }

    /**
     * Sends {@code request} to {@code channel} and records the answer with {@link #decide}.
     *
     * <p>The request must describe a pending proposal of this ledger with the identical skill and
     * binding, otherwise nothing is sent. The channel is wrapped by
     * {@link ApprovalChannel#failClosed} with the proposal's remaining window as the timeout, so a
     * timeout, exception or closed channel records a denial. An answer that arrives after the
     * window (by the ledger's ticker) is {@link ErrorCode#CONSENT_EXPIRED}. When the proposal stops
     * being pending by another path first — a newer proposal stales it, {@link #cancel},
     * {@link #endRun} or {@link #abortRun} cancels it, a direct {@link #decide} records an answer —
     * the returned stage completes at once with that outcome ({@link ErrorCode#CONSENT_STALE},
     * {@link ErrorCode#CONSENT_CANCELLED}, …); the channel's later answer then changes nothing. The
     * ledger keeps no reference to the request.
     */
    public CompletionStage<ConsentResult<ProposalState>> requestApproval(
            ApprovalRequest request, ApprovalChannel channel) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(channel, "channel");
        Duration remaining;
        CompletableFuture<ConsentResult<ProposalState>> waiter;
        synchronized (lock) {
            Entry entry = entries.get(request.proposal());
            if (entry == null || entry.kind != Kind.INVOCATION) {
                return CompletableFuture.completedFuture(unknown());
            }
            long now = ticker.nanos();
            settle(entry, now);
            if (entry.state != ProposalState.PENDING) {
                return CompletableFuture.completedFuture(
                        ConsentResult.failure(stateRefusal(entry), "the proposal is " + entry.state));
            }
            if (!entry.binding.equals(request.binding()) || !entry.skill.equals(request.skill())) {
                return CompletableFuture.completedFuture(ConsentResult.failure(
                        ErrorCode.BINDING_MISMATCH, "the request does not describe the proposed binding"));
            }
            remaining = remaining(entry, now);
            waiter = new CompletableFuture<>();
            entry.waiters.add(waiter);
        }
        ProposalId id = request.proposal();
        ApprovalChannel.failClosed(channel, remaining)
                .request(request)
                .thenApply(d -> decide(id, d))
                .thenAccept(waiter::complete);
        return waiter.minimalCompletionStage();
    }

    // --- workflow plans ---

    /**
     * Records a pending workflow plan for this run (host-verified; see {@link WorkflowPlan}),
     * staling earlier pending or approved plans. Same refusals as {@link #propose}.
     */
    public ConsentResult<PlanSnapshot> proposePlan(WorkflowPlan plan) {
        Objects.requireNonNull(plan, "plan");
        synchronized (lock) {
            Optional<ConsentResult<PlanSnapshot>> refusal = admissionRefusal(plan.run());
            if (refusal.isPresent()) {
                return refusal.get();
            }
            long now = ticker.nanos();
            for (Entry e : entries.values()) {
                settle(e, now);
                if (e.kind == Kind.PLAN && !e.state.isTerminal()) {
                    transition(e, ProposalState.STALE);
                }
            }
            Entry entry = new Entry(ProposalId.random(), Kind.PLAN, null, null, plan, now, wallClock.instant());
            entries.put(entry.id, entry);
            return ConsentResult.success(planSnapshot(entry));
        }
    }

    /** The current state of a plan proposal. */
    public Optional<PlanSnapshot> findPlan(ProposalId id) {
        Objects.requireNonNull(id, "id");
        synchronized (lock) {
            Entry entry = entries.get(id);
            if (entry == null || entry.kind != Kind.PLAN) {
                return Optional.empty();
            }
            settle(entry, ticker.nanos());
            return Optional.of(planSnapshot(entry));
        }
    }

    /**
     * Sends a plan to {@code channel} (fail-closed, remaining window as timeout) and records the
     * answer. The request must describe a pending plan of this ledger exactly.
     */
    public CompletionStage<ConsentResult<ProposalState>> requestPlanApproval(
            WorkflowApprovalRequest request, ApprovalChannel channel) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(channel, "channel");
        Duration remaining;
        CompletableFuture<ConsentResult<ProposalState>> waiter;
        synchronized (lock) {
            Entry entry = entries.get(request.proposal());
            if (entry == null || entry.kind != Kind.PLAN) {
                return CompletableFuture.completedFuture(unknown());
            }
            long now = ticker.nanos();
            settle(entry, now);
            if (entry.state != ProposalState.PENDING) {
                return CompletableFuture.completedFuture(
                        ConsentResult.failure(stateRefusal(entry), "the plan is " + entry.state));
            }
            if (!entry.plan.equals(request.plan())) {
                return CompletableFuture.completedFuture(ConsentResult.failure(
                        ErrorCode.BINDING_MISMATCH, "the request does not describe the proposed plan"));
            }
            remaining = remaining(entry, now);
            waiter = new CompletableFuture<>();
            entry.waiters.add(waiter);
        }
        ProposalId id = request.proposal();
        ApprovalChannel.failClosed(channel, remaining)
                .requestWorkflow(request)
                .thenApply(d -> decide(id, d))
                .thenAccept(waiter::complete);
        return waiter.minimalCompletionStage();
    }

    /**
     * Uses one step of the run's approved plan for a launch of {@code skill} with {@code binding}:
     * the binding must be for this run, the plan's agent and workspace, and an unused step must
     * cover the skill, revision and (if fixed) invocation digest. Each step is used at most once;
     * when all are used the plan is {@link ProposalState#CONSUMED}.
     *
     * @return the step grant, or {@link ErrorCode#POLICY_NO_PLAN} when no approved plan covers the
     *     launch (nothing changes)
     */
    public ConsentResult<WorkflowStepGrant> consumePlanStep(SkillName skill, ConsentBinding binding) {
        Objects.requireNonNull(skill, "skill");
        Objects.requireNonNull(binding, "binding");
        synchronized (lock) {
            long now = ticker.nanos();
            for (Entry e : entries.values()) {
                settle(e, now);
                if (e.kind != Kind.PLAN || e.state != ProposalState.APPROVED) {
                    continue;
                }
                WorkflowPlan plan = e.plan;
                if (!binding.run().equals(run)
                        || !plan.agent().equals(binding.agent())
                        || !plan.workspace().equals(binding.workspace())) {
                    continue;
                }
                for (int i = 0; i < plan.steps().size(); i++) {
                    if (!e.usedSteps.get(i) && plan.steps().get(i).covers(skill, binding)) {
                        e.usedSteps.set(i);
                        if (e.usedSteps.cardinality() == plan.steps().size()) {
                            transition(e, ProposalState.CONSUMED);
                        }
                        return ConsentResult.success(new WorkflowStepGrant(e.id, i, skill, binding));
                    }
                }
            }
            return ConsentResult.failure(
                    ErrorCode.POLICY_NO_PLAN, "no approved workflow plan of this run covers this launch");
        }
    }

    // --- internals (all called with the lock held) ---

    private <T> Optional<ConsentResult<T>> admissionRefusal(RunId bindingRun) {
        if (ended) {
            return Optional.of(ConsentResult.failure(ErrorCode.CONSENT_CANCELLED, "the run has ended"));
        }
        if (!bindingRun.equals(run)) {
            return Optional.of(ConsentResult.failure(ErrorCode.BINDING_MISMATCH, "the binding names another run"));
        }
        if (entries.size() >= Limits.PROPOSALS_PER_RUN) {
            return Optional.of(ConsentResult.failure(
                    ErrorCode.PROPOSAL_LIMIT, "the run already has " + Limits.PROPOSALS_PER_RUN + " proposals"));
        }
        return Optional.empty();
    }

    /**
     * Moves {@code e} to {@code next}. When it leaves {@code PENDING}, every caller still waiting in
     * {@link #requestApproval} / {@link #requestPlanApproval} gets its answer now — the decision, or the
     * code of the state that ended the proposal (stale, cancelled, expired, mismatched) — instead of
     * waiting for a human whose answer can no longer count (decision 0364). Completed asynchronously,
     * so no caller code runs under the lock.
     */
    private static void transition(Entry e, ProposalState next) {
        e.state = next;
        if (next == ProposalState.PENDING || e.waiters.isEmpty()) {
            return;
        }
        ConsentResult<ProposalState> answer = e.approvedDecision != null
                        && (next == ProposalState.APPROVED || next == ProposalState.DENIED)
                ? ConsentResult.success(next)
                : ConsentResult.failure(stateRefusal(e), "the proposal is " + next + " and can no longer be decided");
        for (CompletableFuture<ConsentResult<ProposalState>> w : e.waiters) {
            w.completeAsync(() -> answer);
        }
        e.waiters.clear();
    }

    /**
     * Applies the monotonic window: a pending proposal, an approved invocation proposal, expires
     * once the elapsed time reaches the window (or the ticker went backwards). An approved plan is
     * run-scoped and does not expire.
     */
    private static void settle(Entry e, long now) {
        boolean windowed =
                e.state == ProposalState.PENDING || (e.state == ProposalState.APPROVED && e.kind == Kind.INVOCATION);
        if (windowed && expired(e.createdNanos, now)) {
            transition(e, ProposalState.EXPIRED);
        }
    }

    static boolean expired(long createdNanos, long now) {
        long elapsed = now - createdNanos;
        return elapsed < 0 || elapsed >= Limits.CONSENT_WINDOW_NANOS;
    }

    private static Duration remaining(Entry e, long now) {
        long left = Limits.CONSENT_WINDOW_NANOS - (now - e.createdNanos);
        return Duration.ofNanos(Math.max(1, left));
    }

    private static ErrorCode stateRefusal(Entry e) {
        if (e.approvedDecision != null) {
            return ErrorCode.DUPLICATE_DECISION;
        }
        return e.state.refusal();
    }

    private static <T> ConsentResult<T> unknown() {
        return ConsentResult.failure(ErrorCode.UNKNOWN_PROPOSAL, "this ledger does not know the proposal");
    }

    private static ProposalSnapshot snapshot(Entry e) {
        return new ProposalSnapshot(e.id, e.skill, e.binding, e.state, e.createdAt, e.createdAt.plus(WINDOW));
    }

    private static PlanSnapshot planSnapshot(Entry e) {
        List<Integer> used = new ArrayList<>();
        e.usedSteps.stream().forEach(used::add);
        return new PlanSnapshot(e.id, e.plan, e.state, used, e.createdAt, e.createdAt.plus(WINDOW));
    }
}
