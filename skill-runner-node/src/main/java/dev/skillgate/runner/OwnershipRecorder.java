package dev.skillgate.runner;

import java.io.IOException;
import org.apiguardian.api.API;

/**
 * Records, durably, who owns a run's processes before the child is allowed to start (SPEC §11's
 * start barrier). If recording fails the supervisor must not start the child.
 */
@FunctionalInterface
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public interface OwnershipRecorder {

    /** Records the owner; must be durable (fsync'd) when it returns. */
    void record(SupervisorIdentity owner) throws IOException;

    /** A recorder that keeps nothing, for supervisors used without staging (tests, probes). */
    static OwnershipRecorder none() {
        return owner -> {};
    }
}
