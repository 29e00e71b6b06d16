package dev.skillgate.audit;

import dev.skillgate.model.Sha256Digest;
import java.util.Objects;
import java.util.regex.Pattern;
import org.apiguardian.api.API;

/**
 * One committed audit record as an {@link AuditSink} receives it: the record, the id of the log it
 * belongs to, and the chain hash before it, so that a receiver can check that what it holds is
 * contiguous ({@link #follows}).
 *
 * <p>It carries what the record says (agent ids, skill names, digests, codes), never a source path,
 * a credential value or script input and output. The chain hashes let a remote holder detect a
 * later rewrite of the local history; they do not let it recompute a hash (the stored bytes are not
 * exported), so an exported record is evidence of what the log said, not a proof of it.
 *
 * @param logId the log's id (32 lowercase hex); it changes when an operator repair starts a new log
 * @param previousChainHash the chain hash after the previous record (the genesis value for record 1)
 * @param record the committed record
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record ExportedRecord(String logId, Sha256Digest previousChainHash, AuditRecord record) {
    private static final Pattern LOG_ID = Pattern.compile("[0-9a-f]{32}");

    public ExportedRecord {
        Objects.requireNonNull(logId, "logId");
        Objects.requireNonNull(previousChainHash, "previousChainHash");
        Objects.requireNonNull(record, "record");
        if (!LOG_ID.matcher(logId).matches()) {
            throw new IllegalArgumentException("a log id is 32 lowercase hex digits");
        }
    }

    /** The record's sequence number. */
    public long sequence() {
        return record.sequence();
    }

    /**
     * Whether this record directly follows {@code previous}: the same log, the next sequence number,
     * and this record's previous chain hash is the chain hash after {@code previous}.
     */
    public boolean follows(ExportedRecord previous) {
        Objects.requireNonNull(previous, "previous");
        return logId.equals(previous.logId())
                && record.sequence() == previous.sequence() + 1
                && previousChainHash.equals(previous.record().chainHash());
    }
}
