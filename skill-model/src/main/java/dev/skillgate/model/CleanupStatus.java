package dev.skillgate.model;

import org.apiguardian.api.API;

/** Whether the end of a run's process tree was observed (SPEC §10, §11). */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public enum CleanupStatus {
    /** The supervisor observed every descendant gone (e.g. {@code waitpid} returned {@code ECHILD}). */
    PROVEN,
    /** Cleanup was attempted but could not be proven; processes may survive. */
    UNKNOWN,
    /** No process was started, so there was nothing to clean up. */
    NOT_STARTED
}
