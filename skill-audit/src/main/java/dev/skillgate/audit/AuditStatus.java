package dev.skillgate.audit;

import dev.skillgate.model.Diagnostic;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.apiguardian.api.API;

/**
 * The state of an audit log handle with its report.
 *
 * <p>For a disabled log, {@link #firstBadSequence()} names the first record that could not be
 * verified (one past the last good record when the log is merely short) and the first error
 * diagnostic says why. The report never quotes stored bytes.
 *
 * @param state whether the log yields trust
 * @param writable whether this handle may append (it holds the lock and no fault made it read-only)
 * @param committedSequence the last verified committed sequence number (0 for none)
 * @param logId the log's id (32 lowercase hex), when known
 * @param firstBadSequence the first record that failed verification, for a disabled log
 * @param diagnostics what was found, most important first
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record AuditStatus(
        AuditState state,
        boolean writable,
        long committedSequence,
        Optional<String> logId,
        OptionalLong firstBadSequence,
        List<Diagnostic> diagnostics) {
    public AuditStatus {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(logId, "logId");
        Objects.requireNonNull(firstBadSequence, "firstBadSequence");
        diagnostics = List.copyOf(diagnostics);
        if (committedSequence < 0) {
            throw new IllegalArgumentException("committedSequence must not be negative");
        }
    }

    /** Whether approvals in the log are honoured ({@link AuditState#OK} or {@link AuditState#DEGRADED}). */
    public boolean yieldsTrust() {
        return state == AuditState.OK || state == AuditState.DEGRADED;
    }
}
