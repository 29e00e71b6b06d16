package dev.skillgate.runner;

import org.apiguardian.api.API;

/**
 * Progress events from a supervised run. Events carry counts, never output contents. Called on a
 * supervisor thread; implementations must be quick and must not throw (exceptions are ignored).
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public interface SupervisionListener {

    /** A listener that ignores everything. */
    SupervisionListener NONE = new SupervisionListener() {};

    /** The child was started (after the ownership record was written). */
    default void started(long childPid) {}

    /** Total stdout and stderr bytes received so far. */
    default void outputBytes(long stdoutBytes, long stderrBytes) {}

    /** Termination of the tree began, and why. */
    default void terminating(SupervisionResult.Outcome reason) {}

    /** The supervisor finished; the result is about to complete. */
    default void settled() {}
}
