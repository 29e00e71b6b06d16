package dev.skillgate.runner;

import java.io.IOException;

/**
 * Records, durably, who owns a run's processes before the child is allowed to start (SPEC §11's
 * start barrier). If recording fails the supervisor must not start the child.
 */
@FunctionalInterface
public interface OwnershipRecorder {

    /** Records the owner; must be durable (fsync'd) when it returns. */
    void record(SupervisorIdentity owner) throws IOException;

    /** A recorder that keeps nothing, for supervisors used without staging (tests, probes). */
    static OwnershipRecorder none() {
        return owner -> {};
    }
}
