package dev.skillgate.engine.internal;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.CleanupReport;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.Limits;
import dev.skillgate.model.ProcessExit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SkillName;
import dev.skillgate.runner.ExecutionHandle;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One execution in the process-wide settlement registry: what was delivered to the caller, what the
 * runner finally observed, and the runner's handle once the launch was handed over.
 *
 * <p>Two outcomes, never confused: {@link #outcome()} completes exactly once with what the caller
 * gets — the runner's envelope, or an early one when the caller cancelled, its deadline passed or
 * the engine closed; {@link #settlement()} completes when the runner settled (or with the refusal
 * when nothing was handed to it). A late settlement never changes a delivered outcome: it only
 * lets the runner release ownership and remove staging.
 */
public final class Execution {

    /** Why an execution was stopped from outside. */
    public enum Cause {
        /** The caller cancelled. */
        CALLER_CANCEL,
        /** The caller's deadline passed. */
        CALLER_DEADLINE,
        /** The engine is closing. */
        CLOSE
    }

    private final Path dataDirectory;
    private final long gateId;
    private final RunId run;
    private final AgentId agent;
    private final SkillName skill;
    private final Instant startedAt = Instant.now();
    private final long startNanos = System.nanoTime();
    private final CompletableFuture<ExecutionEnvelope> outcome = new CompletableFuture<>();
    private final CompletableFuture<ExecutionEnvelope> settlement = new CompletableFuture<>();
    private final CompletableFuture<Cause> stopSignal = new CompletableFuture<>();
    private final java.util.concurrent.atomic.AtomicBoolean registryUpdated =
            new java.util.concurrent.atomic.AtomicBoolean();
    /**
     * Who delivers the outcome of a launched run: still open, the settlement (its record is being
     * written, so an early delivery must not slip in between the record and the delivery), or the
     * early delivery.
     */
    private final java.util.concurrent.atomic.AtomicInteger delivery =
            new java.util.concurrent.atomic.AtomicInteger(DELIVERY_OPEN);

    private static final int DELIVERY_OPEN = 0;
    private static final int DELIVERY_BY_SETTLEMENT = 1;
    private static final int DELIVERY_EARLY = 2;

    // Guarded by this.
    private ExecutionHandle handle;
    private Cause stopped;
    private Optional<Revision> revision = Optional.empty();
    private long settleDeadlineNanos = Long.MAX_VALUE;
    private AuditEvent.Settled.Authority authority;
    private AuditEvent.Settled unrecordedSettlement;

    Execution(Path dataDirectory, long gateId, RunId run, AgentId agent, SkillName skill) {
        this.dataDirectory = Objects.requireNonNull(dataDirectory, "dataDirectory");
        this.gateId = gateId;
        this.run = Objects.requireNonNull(run, "run");
        this.agent = Objects.requireNonNull(agent, "agent");
        this.skill = Objects.requireNonNull(skill, "skill");
    }

    public RunId run() {
        return run;
    }

    public SkillName skill() {
        return skill;
    }

    public Instant startedAt() {
        return startedAt;
    }

    Path dataDirectory() {
        return dataDirectory;
    }

    long gateId() {
        return gateId;
    }

    /** What the caller gets; completes exactly once. */
    public CompletableFuture<ExecutionEnvelope> outcome() {
        return outcome;
    }

    /** What the runner finally observed (or the refusal, when nothing was handed to it). */
    public CompletableFuture<ExecutionEnvelope> settlement() {
        return settlement;
    }

    /** Completes when the execution is stopped from outside (cancel, deadline, close). */
    CompletableFuture<Cause> stopSignal() {
        return stopSignal;
    }

    public synchronized Optional<Revision> revision() {
        return revision;
    }

    synchronized void revision(Revision r) {
        revision = Optional.of(r);
    }

    private Optional<dev.skillgate.consent.SkillLocation> location = Optional.empty(); // guarded by this

    /** Where the skill was found (decision 0767), for the approval request. */
    synchronized void location(Optional<dev.skillgate.consent.SkillLocation> where) {
        this.location = where;
    }

    synchronized Optional<dev.skillgate.consent.SkillLocation> location() {
        return location;
    }

    private WorkflowPlans.StepUse workflowStep; // guarded by this

    /** The durable workflow step this execution advances (set once its start was recorded). */
    synchronized void workflowStep(WorkflowPlans.StepUse use) {
        this.workflowStep = use;
    }

    /** The durable workflow step this execution advances, if any. */
    synchronized Optional<WorkflowPlans.StepUse> workflowStep() {
        return Optional.ofNullable(workflowStep);
    }

    /**
     * Marks the launch authorised (and its authorisation recorded where it has a record of its own):
     * from now on, however the execution ends, its settlement is recorded in the audit log.
     */
    synchronized void authorised(AuditEvent.Settled.Authority how) {
        authority = Objects.requireNonNull(how, "how");
    }

    /**
     * The audit record of {@code settled}: empty unless the launch was authorised. States the real
     * settlement, and whether the caller received an earlier, different outcome.
     */
    synchronized Optional<AuditEvent.Settled> settlementRecord(ExecutionEnvelope settled) {
        // From here on no early delivery can start: the caller gets this settlement, or already got
        // an early outcome — and the record says which.
        delivery.compareAndSet(DELIVERY_OPEN, DELIVERY_BY_SETTLEMENT);
        if (authority == null || revision.isEmpty()) {
            return Optional.empty();
        }
        ExecutionEnvelope delivered = outcome.getNow(null);
        boolean early = delivery.get() == DELIVERY_EARLY || (delivered != null && delivered != settled);
        return Optional.of(new AuditEvent.Settled(
                run,
                agent,
                revision.get(),
                authority,
                settled.status(),
                settled.cleanup().status(),
                settled.hardening(),
                AuditEvent.Settled.boundedCodes(settled.errorCodes()),
                early,
                settled.runtimeSha256(),
                Optional.of(settled.confinement())));
    }

    /** Keeps a settlement record the audit log did not commit, for a later resolve to retry. */
    synchronized void unrecorded(AuditEvent.Settled record) {
        unrecordedSettlement = record;
    }

    /** The settlement record not committed yet, if any. */
    public synchronized Optional<AuditEvent.Settled> unrecordedSettlement() {
        return Optional.ofNullable(unrecordedSettlement);
    }

    /** The settlement record was committed after all. */
    public synchronized void settlementRecorded() {
        unrecordedSettlement = null;
    }

    /** Whether the launch was handed to the runner. */
    public synchronized boolean launched() {
        return handle != null;
    }

    synchronized Optional<Cause> stopped() {
        return Optional.ofNullable(stopped);
    }

    /** Monotonic deadline by which the runner must have settled (timeout + grace + kill deadline + watchdog). */
    synchronized long settleDeadlineNanos() {
        return settleDeadlineNanos;
    }

    Duration elapsed() {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    /**
     * Hands the launch to the runner unless the execution was stopped first. Atomic with
     * {@link #stop}: after a stop nothing is launched, and a stop after the launch cancels the run.
     *
     * @return the handle, or empty when the execution was stopped before launch
     */
    synchronized Optional<ExecutionHandle> launch(Supplier<ExecutionHandle> starter, Duration settleBound) {
        if (stopped != null) {
            return Optional.empty();
        }
        handle = starter.get();
        long bound = settleBound.toNanos();
        settleDeadlineNanos = System.nanoTime() + bound;
        return Optional.of(handle);
    }

    /**
     * How long a caller's cancel of a running script waits for the runner's own envelope before the
     * early {@code CLEANUP_UNKNOWN} is delivered (decision 0363): half the termination grace. A script
     * that ends on SIGTERM settles well within it and the caller gets the runner's {@code CANCELLED}
     * with proven cleanup; one that ignores SIGTERM is still being terminated at that point (SIGKILL
     * comes only at the end of the grace) and is reported early, as SPEC §12 allows.
     */
    static final Duration COOPERATIVE_CANCEL_WAIT = Duration.ofMillis(Limits.TERMINATION_GRACE_MILLIS / 2);

    /**
     * Stops the execution: before launch nothing will be launched and the outcome is a refusal;
     * after launch the run is cancelled. A caller's cancel then delivers the runner's envelope if it
     * settles within {@link #COOPERATIVE_CANCEL_WAIT}, and otherwise {@code CLEANUP_UNKNOWN} (the
     * tree is still being cleaned up); a caller deadline or close delivers {@code CLEANUP_UNKNOWN} at
     * once. Idempotent; no-op once an outcome was delivered.
     */
    void stop(Cause cause) {
        ExecutionHandle h;
        synchronized (this) {
            if (stopped != null || outcome.isDone()) {
                return;
            }
            stopped = cause;
            h = handle;
        }
        stopSignal.complete(cause);
        if (h == null) {
            ErrorCode code = switch (cause) {
                case CALLER_CANCEL -> ErrorCode.EXEC_ABORTED;
                case CALLER_DEADLINE -> ErrorCode.EXEC_CALLER_DEADLINE;
                case CLOSE -> ErrorCode.ENGINE_CLOSED;
            };
            deliver(ExecutionEnvelope.refused(
                    run, revision(), elapsed(), List.of(Diagnostic.error(code, "", "stopped before launch"))));
            return;
        }
        h.cancel();
        if (cause == Cause.CALLER_CANCEL) {
            // The runner's settle() delivers first when the script ends on SIGTERM; this is a no-op then.
            CompletableFuture.delayedExecutor(COOPERATIVE_CANCEL_WAIT.toNanos(), TimeUnit.NANOSECONDS)
                    .execute(() -> deliverEarly(cause));
            return;
        }
        deliverEarly(cause);
    }

    /** Delivers the early {@code CLEANUP_UNKNOWN} of a launched run, unless an outcome was delivered. */
    private void deliverEarly(Cause cause) {
        if (outcome.isDone() || !delivery.compareAndSet(DELIVERY_OPEN, DELIVERY_EARLY)) {
            // Delivered, or the settlement is being recorded and is delivered right after.
            return;
        }
        ErrorCode code = cause == Cause.CALLER_DEADLINE ? ErrorCode.EXEC_CALLER_DEADLINE : ErrorCode.EXEC_CANCELLED;
        deliver(new ExecutionEnvelope(
                ExecutionStatus.CLEANUP_UNKNOWN,
                run,
                revision(),
                Optional.empty(),
                elapsed(),
                ProcessExit.notObserved(),
                Optional.empty(),
                List.of(
                        Diagnostic.error(code, "", "stopped while the script ran"),
                        Diagnostic.error(
                                ErrorCode.CLEANUP_UNKNOWN,
                                "",
                                "delivered before the process tree settled; cleanup continues in the background")),
                CleanupReport.unknown(0, false, Optional.empty()),
                HardeningLayer.NONE));
    }

    /** The caller cancels: {@link #stop} with {@link Cause#CALLER_CANCEL}. */
    public void cancel() {
        stop(Cause.CALLER_CANCEL);
    }

    /** Delivers {@code envelope} unless an outcome was already delivered. */
    boolean deliver(ExecutionEnvelope envelope) {
        return outcome.complete(envelope);
    }

    /**
     * Records the runner's final envelope (or the refusal), then delivers it unless something was
     * delivered already. Settlement first, so the registry is up to date when the caller wakes.
     */
    void settle(ExecutionEnvelope envelope) {
        // The registry first, so that whoever wakes up on the settlement sees an up-to-date registry.
        if (registryUpdated.compareAndSet(false, true)) {
            Settlements.settled(this, envelope);
        }
        settlement.complete(envelope);
        deliver(envelope);
    }

    @Override
    public String toString() {
        return "Execution[" + run + ", " + skill + "]";
    }
}
