package dev.skillgate.audit;

/** The effect of the latest decision on a scope. */
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
