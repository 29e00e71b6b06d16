package dev.skillgate.audit;

import org.apiguardian.api.API;

/** The effect of the latest decision on a scope. */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public enum TrustStatus {
    /** Approved, not revoked, and the log yields trust: the scope is trusted now. */
    TRUSTED,
    /** Revoked (in the log, or in memory after a revocation could not be made durable). */
    REVOKED,
    /**
     * Approved in the verified records, but not honoured: the log is disabled or still being
     * verified.
     */
    SUSPENDED
}
