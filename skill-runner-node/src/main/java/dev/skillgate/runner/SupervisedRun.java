package dev.skillgate.runner;

import java.util.concurrent.CompletionStage;
import org.apiguardian.api.API;

/** A running supervised process. */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public interface SupervisedRun {

    /**
     * Asks the supervisor to cancel: terminate the tree (SIGTERM, grace, SIGKILL) and prove cleanup.
     * Idempotent; a no-op once the run has ended.
     */
    void cancel();

    /** Completes exactly once, with the outcome; never exceptionally for an expected outcome. */
    CompletionStage<SupervisionResult> result();
}
