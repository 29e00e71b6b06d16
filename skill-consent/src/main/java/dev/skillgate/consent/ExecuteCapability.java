package dev.skillgate.consent;

import org.apiguardian.api.API;

/**
 * The host-granted right to launch skill scripts, checked by {@link LaunchGates} at every launch.
 *
 * <p>Minted only by {@link PolicyAdmin#grantExecuteCapability(String)} and valid only with the admin that
 * minted it, until {@link PolicyAdmin#revokeExecuteCapability} is called. It has no public
 * constructor, no value equality and no serialised form, so agent code cannot forge or reconstruct
 * one; a host decides which agent integration receives it. Holding it is one gate among three: it
 * implies no consent, and safe mode still refuses.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class ExecuteCapability {
    private final Object issuer;
    private final String label;

    ExecuteCapability(Object issuer, String label) {
        this.issuer = issuer;
        this.label = label;
    }

    boolean issuedBy(Object candidate) {
        return issuer == candidate;
    }

    /** The label the host gave it (for its own bookkeeping; carries no authority). */
    public String label() {
        return label;
    }

    @Override
    public String toString() {
        return "ExecuteCapability[" + label + "]";
    }
}
