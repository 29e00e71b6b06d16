package dev.skillgate.engine;

import dev.skillgate.audit.AppendResult;
import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.audit.AuditStatus;
import dev.skillgate.audit.TrustDecision;
import dev.skillgate.audit.TrustScope;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * The trust store over the audit log, for the host's settings UI: list every trust decision,
 * revoke one, read the verified records, and the operator's repair of a disabled log.
 *
 * <p>Obtained from {@link SkillGateAdmin#trust()}; never reachable from a {@link SkillGate}. Listings
 * hold agent ids, skill names and digests — never source paths, credential values or executable
 * paths. A revocation applies to every later use (activation, trusted-revision launch); it cannot
 * stop a script that is already running.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class TrustAdmin {
    private final AuditLog log;

    TrustAdmin(AuditLog log) {
        this.log = Objects.requireNonNull(log, "log");
    }

    /** The audit log's state (trust is honoured only while it is {@code OK} or {@code DEGRADED}). */
    public AuditStatus status() {
        return log.status();
    }

    /** The latest decision on every scope, in the order decided. */
    public List<TrustDecision> list() {
        return log.list();
    }

    /**
     * Revokes trust in {@code scope}: {@code TRUST_NOT_FOUND} / {@code TRUST_REVOKED} when there is
     * nothing to revoke. A revocation that cannot be made durable still applies in memory.
     */
    public AppendResult revoke(TrustScope scope) {
        return log.revoke(Objects.requireNonNull(scope, "scope"));
    }

    /** Up to {@code limit} verified committed records after sequence {@code after}. */
    public List<AuditRecord> records(long after, int limit) throws IOException {
        return log.records(after, limit);
    }

    /**
     * The operator's answer to an export halt ({@code EXPORT_HALTED}, {@code AUDIT_SINK_FAILED}):
     * delivers every committed record the audit sinks missed and, when all accept, lifts the halt
     * (see {@link AuditLog#resumeExport()}).
     *
     * @return the audit log's status afterwards
     */
    public AuditStatus resumeExport() {
        return log.resumeExport();
    }

    /**
     * The audited operator action that ends a disabled log; every earlier approval is gone and must
     * be made again.
     */
    public AppendResult repair(String reason) {
        return log.repair(Objects.requireNonNull(reason, "reason"));
    }
}
