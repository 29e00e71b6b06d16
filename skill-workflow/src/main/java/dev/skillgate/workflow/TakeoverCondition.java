package dev.skillgate.workflow;

import org.apiguardian.api.API;

/** What a takeover relies on; the store checks the condition and the fencing token in one atomic step. */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public enum TakeoverCondition {
    /** The owner's lease has ended by the store's clock (a remote owner). The store checks the expiry itself. */
    LEASE_EXPIRED,
    /**
     * The caller proved the owner's process dead on this host (pid gone or reused by another start
     * time). The store checks only that the fencing token is still the one the proof was made for.
     */
    OWNER_PROVEN_DEAD
}
