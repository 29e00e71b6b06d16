package dev.skillgate.workflow;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * A store's view of one workflow's head: its owner, fencing token and lease, how many records it
 * holds, and whether (and when) it ended. Written only by the store's atomic operations.
 *
 * @param id the workflow
 * @param owner the current owner
 * @param fencingToken the current fencing token
 * @param leaseExpiresAt when the owner's lease ends (store clock)
 * @param records how many records it holds (the next record's sequence number)
 * @param createdAt when it was created (store clock)
 * @param endedAt when its final record was appended (store clock), if it ended
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record StoredWorkflow(
        WorkflowId id,
        OwnerIdentity owner,
        long fencingToken,
        Instant leaseExpiresAt,
        int records,
        Instant createdAt,
        Optional<Instant> endedAt) {
    public StoredWorkflow {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(leaseExpiresAt, "leaseExpiresAt");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(endedAt, "endedAt");
        if (fencingToken < 1 || records < 0) {
            throw new IllegalArgumentException("a fencing token is positive and a record count not negative");
        }
    }

    /** The lease this head describes. */
    public Lease lease() {
        return new Lease(id, owner, fencingToken, leaseExpiresAt);
    }

    /** Whether the workflow ended. */
    public boolean ended() {
        return endedAt.isPresent();
    }
}
