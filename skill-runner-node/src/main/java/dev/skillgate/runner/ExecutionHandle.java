package dev.skillgate.runner;

import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.RunId;
import java.util.concurrent.CompletionStage;
import org.apiguardian.api.API;

/**
 * A started execution: cancel it, or wait for its envelope.
 *
 * <p>The envelope completes exactly once and never exceptionally for an expected outcome
 * (refusal, failure, timeout, cancel, overflow, unproven cleanup are all envelopes).
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public interface ExecutionHandle {

    /** The run the execution belongs to. */
    RunId runId();

    /**
     * Cancels: before spawn the execution is refused with {@code EXEC_ABORTED}; while the script
     * runs its tree is terminated (SIGTERM, grace, SIGKILL) and the envelope says {@code CANCELLED}
     * (or {@code CLEANUP_UNKNOWN} when cleanup is not proven). Idempotent; a no-op once settled.
     */
    void cancel();

    /** The envelope, once the execution has settled. */
    CompletionStage<ExecutionEnvelope> envelope();
}
