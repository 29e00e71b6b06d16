package dev.skillgate.model;

import org.apiguardian.api.API;

/** How an execution ended (SPEC §10). Only {@link #SUCCEEDED} carries validated output. */
@API(status = API.Status.STABLE, since = "0.1.0")
public enum ExecutionStatus {
    /** Exit code 0, cleanup proven, and stdout was exactly one JSON value valid against the output schema. */
    SUCCEEDED,
    /** The script ran and failed: non-zero exit, signal, invalid or missing output, detached descendants. */
    FAILED,
    /** The deadline passed; the tree was terminated and cleanup was proven. */
    TIMED_OUT,
    /** The caller cancelled; the tree was terminated and cleanup was proven. */
    CANCELLED,
    /** stdout or stderr exceeded its bound; the tree was terminated and cleanup was proven. */
    OUTPUT_LIMIT,
    /** Nothing was started: consent, policy, a gate, validation, the runtime or staging said no. */
    REFUSED,
    /** A process was started and its tree's cleanup could not be proven. Never a success. */
    CLEANUP_UNKNOWN
}
