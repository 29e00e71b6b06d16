package dev.skillgate.runner;

import java.util.concurrent.CompletionStage;

/** A running supervised process. */
public interface SupervisedRun {

    /**
     * Asks the supervisor to cancel: terminate the tree (SIGTERM, grace, SIGKILL) and prove cleanup.
     * Idempotent; a no-op once the run has ended.
     */
    void cancel();

    /** Completes exactly once, with the outcome; never exceptionally for an expected outcome. */
    CompletionStage<SupervisionResult> result();
}
