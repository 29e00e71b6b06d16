package dev.skillgate.audit;

import java.time.Instant;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * The latest decision on one scope, as listed by {@link AuditLog#list()}.
 *
 * <p>Holds the scope (agent, revision, digests), the status and when it was decided; never a
 * source path, a credential value or an executable path.
 *
 * @param scope the scope
 * @param status the effect of the decision now
 * @param sequence the sequence number of the deciding record (0 for a revocation held only in memory)
 * @param decidedAt the deciding record's time (local clock, display only)
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record TrustDecision(TrustScope scope, TrustStatus status, long sequence, Instant decidedAt) {
    public TrustDecision {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(decidedAt, "decidedAt");
        if (sequence < 0) {
            throw new IllegalArgumentException("sequence must not be negative");
        }
    }
}
