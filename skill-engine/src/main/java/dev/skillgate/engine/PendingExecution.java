package dev.skillgate.engine;

import dev.skillgate.engine.internal.Execution;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SkillName;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import org.apiguardian.api.API;

/**
 * An execution that was started with {@link SkillGate#executeAsync}: cancel it, or wait for its
 * outcome.
 *
 * <p>Two results, never confused. {@link #outcome()} is what the caller gets, delivered exactly
 * once: the runner's envelope, or — when the caller cancels a script that does not end on
 * SIGTERM, its deadline passes or the engine closes — an early envelope ({@code REFUSED} if nothing
 * was launched yet, otherwise {@code CLEANUP_UNKNOWN}: the process tree is still being terminated). {@link #settlement()} is
 * what the runner finally observed; it completes later and never rewrites the delivered outcome.
 * Neither stage ever completes exceptionally for an expected outcome.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class PendingExecution {
    private final Execution execution;

    PendingExecution(Execution execution) {
        this.execution = Objects.requireNonNull(execution, "execution");
    }

    /** The run. */
    public RunId run() {
        return execution.run();
    }

    /** The skill. */
    public SkillName skill() {
        return execution.skill();
    }

    /**
     * Stops the execution: nothing is launched if it was not launched yet (the outcome is then a
     * {@code REFUSED} delivered at once); a running script's tree is terminated (SIGTERM, grace,
     * SIGKILL). A script that ends on SIGTERM within 500 ms is delivered as the runner saw it
     * ({@code CANCELLED}, cleanup proven); otherwise the outcome is delivered after those 500 ms as
     * {@code CLEANUP_UNKNOWN} while the tree is still being cleaned up, and {@link #settlement()}
     * completes later. Returns at once. Idempotent; a no-op once an outcome was delivered. It cannot
     * undo what the script already did.
     */
    public void cancel() {
        execution.cancel();
    }

    /** The delivered outcome. */
    public CompletionStage<ExecutionEnvelope> outcome() {
        return execution.outcome().minimalCompletionStage();
    }

    /** What the runner finally observed (the same as the outcome unless it was delivered early). */
    public CompletionStage<ExecutionEnvelope> settlement() {
        return execution.settlement().minimalCompletionStage();
    }

    /**
     * Waits for the outcome. If the waiting thread is interrupted, the execution is cancelled, the
     * interrupt flag is kept and the (early) outcome is returned.
     */
    public ExecutionEnvelope await() {
        try {
            return execution.outcome().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            cancel();
            return execution.outcome().join();
        } catch (ExecutionException e) {
            throw new IllegalStateException("the outcome failed", e.getCause());
        }
    }

    @Override
    public String toString() {
        return "PendingExecution[" + execution.run() + ", " + execution.skill() + "]";
    }
}
