package dev.skillgate.workflow;

import java.time.Instant;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * What an owner holds: the workflow, the owner, the fencing token the store issued when this owner
 * got the workflow, and when the lease ends (store clock).
 *
 * <p>The fencing token rises by one at every takeover. Every write carries it, and the store rejects
 * a write whose token is not the current one ({@code WORKFLOW_FENCED}) — so an owner that was paused
 * past its lease and resumes after a takeover cannot write, whatever it believes.
 *
 * @param workflow the workflow
 * @param owner the owner
 * @param fencingToken the token (1 for the creator)
 * @param expiresAt when the lease ends unless renewed (the store's clock)
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record Lease(WorkflowId workflow, OwnerIdentity owner, long fencingToken, Instant expiresAt) {
    public Lease {
        Objects.requireNonNull(workflow, "workflow");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(expiresAt, "expiresAt");
        if (fencingToken < 1) {
            throw new IllegalArgumentException("a fencing token is positive");
        }
    }
}
