package dev.skillgate.audit;

import dev.skillgate.model.Sha256Digest;
import java.time.Instant;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One verified record of the committed log.
 *
 * <p>Records are ordered by {@link #sequence()}, never by time: {@link #recordedAt()} is the local
 * clock's reading when the record was written, for display only, and {@link #clockRegression()}
 * flags a time earlier than the previous record's (the record is still valid).
 *
 * @param sequence the record's sequence number (1 for the first record of a log)
 * @param recordedAt local clock reading at write time (UTC)
 * @param clockRegression whether {@code recordedAt} is earlier than the previous record's
 * @param event what the record says
 * @param chainHash the chain hash after this record (a chain value, not a content digest)
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record AuditRecord(
        long sequence, Instant recordedAt, boolean clockRegression, AuditEvent event, Sha256Digest chainHash) {
    public AuditRecord {
        Objects.requireNonNull(recordedAt, "recordedAt");
        Objects.requireNonNull(event, "event");
        Objects.requireNonNull(chainHash, "chainHash");
        if (sequence < 1) {
            throw new IllegalArgumentException("sequence numbers start at 1");
        }
    }
}
