package dev.skillgate.model;

/** Whether the end of a run's process tree was observed (SPEC §10, §11). */
public enum CleanupStatus {
    /** The supervisor observed every descendant gone (e.g. {@code waitpid} returned {@code ECHILD}). */
    PROVEN,
    /** Cleanup was attempted but could not be proven; processes may survive. */
    UNKNOWN,
    /** No process was started, so there was nothing to clean up. */
    NOT_STARTED
}
