package dev.skillgate.audit;

import org.apiguardian.api.API;

/**
 * Whether the audit log yields trust. See {@link AuditStatus} for the report that goes with it.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public enum AuditState {
    /** Verification is still running after start-up; nothing is trusted yet, appends wait. */
    VERIFYING,
    /** The committed log verified; trust follows its records. */
    OK,
    /**
     * The committed log verified and trust follows it, but something needed attention: an
     * unconfirmed tail was quarantined or a trailing revocation re-committed, permissions were
     * tightened, or a write fault made this handle read-only. The diagnostics say which.
     */
    DEGRADED,
    /**
     * Something before the commit point is wrong (or the files cannot be vouched for): nothing is
     * trusted and appends are refused until {@link AuditLog#repair(String)}.
     */
    DISABLED,
    /**
     * The committed log verified, but an {@link AuditSink} failed or timed out exporting a committed
     * record (decision 0370): nothing is trusted and appends are refused ({@code AUDIT_SINK_FAILED})
     * until {@link AuditLog#resumeExport()} has delivered every record the sinks missed. Lives in this
     * handle only; the log on disk is unaffected.
     */
    EXPORT_HALTED
}
