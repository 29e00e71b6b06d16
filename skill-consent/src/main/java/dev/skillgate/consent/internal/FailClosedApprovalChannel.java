package dev.skillgate.consent.internal;

import dev.skillgate.consent.ActivationApprovalRequest;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.ProposalId;
import dev.skillgate.consent.WorkflowApprovalRequest;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.model.ErrorCode;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apiguardian.api.API;

/**
 * Wraps an {@link ApprovalChannel} so that every failure is a denial and every request completes
 * within a timeout (the reverse of a guard that suppresses errors), whether the channel answers
 * asynchronously or blocks inside its call (decision 0761).
 *
 * <p>The host's call runs on a bounded pool of named daemon threads ({@code skillgate-approval-N},
 * at most {@value #MAX_CALLS} calls at once; beyond that a request is denied as unavailable at
 * once). The caller never waits for the host's code: the returned stage completes with a timeout
 * denial at the deadline even while the call is still blocked, and the blocked thread is then
 * interrupted. The returned stage is a new future owned here: the delegate's stage is only
 * observed, never completed or cancelled. An answer that arrives after the deadline is ignored and
 * logged as late (once per request, {@code System.Logger} {@code dev.skillgate.consent}). A channel
 * that ignores interrupts keeps its pool thread until it returns; the pool bound keeps such a
 * channel from taking more than {@value #MAX_CALLS} threads.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class FailClosedApprovalChannel implements ApprovalChannel {
    /** Most host channel calls in progress at once, across every wrapper in this JVM. */
    public static final int MAX_CALLS = 64;

    private static final AtomicLong THREADS = new AtomicLong();
    private static final ThreadPoolExecutor CALLS =
            new ThreadPoolExecutor(0, MAX_CALLS, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
                Thread t = new Thread(r, "skillgate-approval-" + THREADS.incrementAndGet());
                t.setDaemon(true);
                return t;
            });

    private final ApprovalChannel delegate;
    private final Duration timeout;

    /** Wraps {@code delegate} with {@code timeout} (positive). */
    public FailClosedApprovalChannel(ApprovalChannel delegate, Duration timeout) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the approval timeout must be positive");
        }
    }

    @Override
    public CompletionStage<ApprovalDecision> request(ApprovalRequest request) {
        return guard(request.proposal(), () -> delegate.request(request));
    }

    @Override
    public CompletionStage<ApprovalDecision> requestWorkflow(WorkflowApprovalRequest request) {
        return guard(request.proposal(), () -> delegate.requestWorkflow(request));
    }

    @Override
    public CompletionStage<ApprovalDecision> requestActivation(ActivationApprovalRequest request) {
        return guard(request.id(), () -> delegate.requestActivation(request));
    }

    private CompletionStage<ApprovalDecision> guard(ProposalId id, Supplier<CompletionStage<ApprovalDecision>> call) {
        CompletableFuture<ApprovalDecision> result = new CompletableFuture<>();
        result.completeOnTimeout(
                new ApprovalDecision.Denied(ErrorCode.CONSENT_TIMEOUT, "no answer within the approval window"),
                saturatedNanos(timeout),
                TimeUnit.NANOSECONDS);
        if (delegate instanceof FailClosedApprovalChannel) {
            // Already guarded: its call returns at once and its stage completes within its own bound.
            invoke(id, call, result, new Blocked());
        } else {
            Blocked blocked = new Blocked();
            try {
                CALLS.execute(() -> invoke(id, call, result, blocked));
            } catch (RejectedExecutionException e) {
                result.complete(unavailable("too many approval requests are being shown at once"));
                return result.minimalCompletionStage();
            }
            // At the deadline a call still blocked in the host's code is interrupted.
            result.whenComplete((d, t) -> blocked.interrupt());
        }
        // A minimal stage: whoever receives it can observe the decision but not complete it.
        return result.minimalCompletionStage();
    }

    /** The pool thread while it is inside the host's call, so that only that call is ever interrupted. */
    private static final class Blocked {
        private Thread inCall; // guarded by this

        synchronized void enter() {
            inCall = Thread.currentThread();
        }

        synchronized void leave() {
            inCall = null;
            Thread.interrupted(); // an interrupt meant for the call never leaks past it
        }

        synchronized void interrupt() {
            if (inCall != null && inCall != Thread.currentThread()) {
                inCall.interrupt();
            }
        }
    }

    private static void invoke(
            ProposalId id,
            Supplier<CompletionStage<ApprovalDecision>> call,
            CompletableFuture<ApprovalDecision> result,
            Blocked blocked) {
        CompletionStage<ApprovalDecision> stage;
        blocked.enter();
        try {
            stage = call.get();
        } catch (RuntimeException | Error e) {
            // An Error from the host's code is a failed channel too; only the JVM's own fatal errors go on.
            blocked.leave();
            answer(
                    id,
                    result,
                    unavailable("the approval channel failed (" + e.getClass().getSimpleName() + ")"));
            if (e instanceof VirtualMachineError && !(e instanceof StackOverflowError)) {
                throw e;
            }
            return;
        }
        blocked.leave();
        if (stage == null) {
            answer(id, result, unavailable("the approval channel returned no answer"));
            return;
        }
        try {
            stage.whenComplete((decision, error) -> {
                if (error != null) {
                    answer(id, result, unavailable("the approval channel failed or was closed"));
                } else if (decision == null) {
                    answer(id, result, unavailable("the approval channel answered nothing"));
                } else {
                    answer(id, result, decision);
                }
            });
        } catch (RuntimeException e) {
            answer(id, result, unavailable("the approval channel's answer could not be observed"));
        }
    }

    private static void answer(ProposalId id, CompletableFuture<ApprovalDecision> result, ApprovalDecision d) {
        if (!result.complete(d) && d.isApproval()) {
            Log.LOG.log(
                    System.Logger.Level.WARNING,
                    "skillgate: an approval of request {0} arrived after its deadline and was ignored",
                    id);
        }
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private static ApprovalDecision unavailable(String reason) {
        return new ApprovalDecision.Denied(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, reason);
    }

    /**
     * The logger, made at the first line logged (decision 0882): {@code System.getLogger} starts
     * {@code java.util.logging}, about 10 ms of a cold CLI start, and this channel logs only a late
     * approval.
     */
    private static final class Log {
        static final System.Logger LOG = System.getLogger("dev.skillgate.consent");
    }
}
