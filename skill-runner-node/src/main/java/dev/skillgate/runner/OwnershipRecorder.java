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

    /**
     * Optionally makes the record for {@code expected} durable ahead of {@link #record}, so that the
     * durable write can overlap the supervisor's own set-up (decision 0855). A supervisor may call it
     * once, before {@code record}, with the identity it expects to pass to {@code record}; it may
     * also not call it at all.
     *
     * <p>Guaranteed: nothing. It grants no start: the child may start only after {@link #record}
     * returned, and {@code record} is still called (with the identity actually checked) and must
     * still leave the record durable, rewriting it if {@code expected} was not what it got. A failure
     * here is ignored by the supervisor; {@code record} then does the whole write. The default does
     * nothing.
     */
    default void recordAhead(SupervisorIdentity expected) throws IOException {}

    /** A recorder that keeps nothing, for supervisors used without staging (tests, probes). */
    static OwnershipRecorder none() {
        return owner -> {};
    }
}
