package dev.skillgate.audit;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.Sha256Digest;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * The outcome of an append: committed (durable, acknowledged), refused (nothing was written) or
 * failed (an I/O fault; whether the record reached the disk is unknown until the next open).
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public sealed interface AppendResult {
    /** Whether the record is durably committed. */
    default boolean isCommitted() {
        return this instanceof Committed;
    }

    /**
     * The record and the commit point are durable (both fsync'd, the head renamed and the directory
     * fsync'd).
     *
     * @param sequence the record's sequence number
     * @param chainHash the chain hash after it
     */
    record Committed(long sequence, Sha256Digest chainHash) implements AppendResult {
        public Committed {
            Objects.requireNonNull(chainHash, "chainHash");
        }
    }

    /**
     * Nothing was written: the log is disabled, read-only or still verifying, or the request has
     * nothing to do (e.g. {@code TRUST_NOT_FOUND}, {@code TRUST_REVOKED}).
     *
     * @param reason why
     */
    record Refused(Diagnostic reason) implements AppendResult {
        public Refused {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * An I/O fault interrupted the append. The handle re-verified the log and, if it could not,
     * became read-only. A revocation is applied in memory regardless.
     *
     * @param reason what failed
     */
    record Failed(Diagnostic reason) implements AppendResult {
        public Failed {
            Objects.requireNonNull(reason, "reason");
        }
    }
}
