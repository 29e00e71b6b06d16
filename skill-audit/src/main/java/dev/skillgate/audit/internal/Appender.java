package dev.skillgate.audit.internal;

import dev.skillgate.audit.AppendResult;
import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.ExportedRecord;
import dev.skillgate.audit.TrustScope;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Sha256Digest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * The append path: a record is framed, written after the commit point, forced, and committed by
 * writing the next head ({@link CommitPoint}); only then is it acknowledged, applied to the trust
 * table and handed to the sinks. A failed write or force is never acknowledged: the log is
 * re-verified ({@link Recovery#recoverAfterFault}), and a revocation is honoured in memory even so
 * (trust only ever shrinks).
 *
 * <p>Refuses while the handle is not writable, when the lock was lost, and for an event that does
 * not encode (a bounded payload, {@code AUDIT_RECORD_INVALID}). Worker-confined.
 */
final class Appender {
    private final LogState state;
    private final WriterLock lock;
    private final CommitPoint commit;
    private final Recovery recovery;
    private final Exporter exporter;
    private final FileOps ops;
    private final Clock clock;

    Appender(
            LogState state,
            WriterLock lock,
            CommitPoint commit,
            Recovery recovery,
            Exporter exporter,
            FileOps ops,
            Clock clock) {
        this.state = state;
        this.lock = lock;
        this.commit = commit;
        this.recovery = recovery;
        this.exporter = exporter;
        this.ops = ops;
        this.clock = clock;
    }

    /** Why {@code v} refuses appends: disabled, or read-only for its reason. */
    static AppendResult refusedByState(LogState.View v) {
        if (v.status().state() == AuditState.DISABLED) {
            return new AppendResult.Refused(Diagnostic.error(
                    ErrorCode.AUDIT_DISABLED,
                    "",
                    "the audit log is disabled; appends are refused until an operator repair"));
        }
        Diagnostic reason = v.readOnlyReason() != null
                ? v.readOnlyReason()
                : Diagnostic.error(ErrorCode.AUDIT_LOCKED, "", "this handle cannot write");
        return new AppendResult.Refused(reason);
    }

    /** Appends a revocation of a scope whose latest decision is an approval; applied in memory even when not durable. */
    AppendResult revoke(TrustScope scope) {
        ScopeKey id = ScopeKey.of(scope.id());
        LogState.View v = state.view();
        if (!v.status().writable()) {
            state.revokedInMemory.add(id);
            return refusedByState(v);
        }
        TrustTable.Entry entry = v.trust().get(id);
        if (entry == null) {
            return new AppendResult.Refused(
                    Diagnostic.error(ErrorCode.TRUST_NOT_FOUND, "", "no decision is recorded for this scope"));
        }
        if (!entry.approved()) {
            return new AppendResult.Refused(Diagnostic.error(
                    ErrorCode.TRUST_REVOKED, "", "the scope was already revoked at seq " + entry.sequence()));
        }
        return append(new AuditEvent.Revoked(scope));
    }

    /** Appends {@code event} and returns whether it was committed. */
    AppendResult append(AuditEvent event) {
        LogState s = state;
        LogState.View v = s.view();
        if (!v.status().writable()) {
            return refusedByState(v);
        }
        if (!lock.valid()) {
            Diagnostic lost = Diagnostic.error(
                    ErrorCode.AUDIT_LOCKED,
                    AuditDirectory.LOCK,
                    "the lock on the audit log was lost; read-only until reopened");
            List<Diagnostic> d = new ArrayList<>(v.status().diagnostics());
            d.add(0, lost);
            s.publish(AuditState.DEGRADED, false, d, lost);
            return new AppendResult.Refused(lost);
        }
        if (s.log == null || !s.log.isOpen()) {
            // The channel was closed under us (e.g. an interrupt reached this thread): re-verify first.
            recovery.recoverAfterFault(Diagnostic.warning(
                    ErrorCode.AUDIT_IO,
                    AuditDirectory.LOG,
                    "the log channel was closed unexpectedly; the log was re-verified"));
            if (!s.view().status().writable()) {
                return refusedByState(s.view());
            }
        }
        Instant at = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        byte[] payload;
        try {
            payload = Payloads.encode(event, at);
        } catch (InvalidValueException e) {
            return new AppendResult.Refused(Diagnostic.error(
                    ErrorCode.AUDIT_RECORD_INVALID,
                    "",
                    e.getMessage().substring(e.code().name().length() + 2)));
        }
        RecordType type = Payloads.typeOf(event);
        long seq = s.head.sequence() + 1;
        byte[] previousTip = s.head.tip();
        byte[] frame = Frames.frame(seq, type, payload, previousTip);
        TreeState next = new TreeState(s.head, s.tree).extend(frame);
        byte[] hash = next.head().tip();
        try {
            ops.write(s.log, ByteBuffer.wrap(frame), s.head.length());
            ops.force(s.log, false);
            commit.write(next.head());
        } catch (IOException e) {
            if (event instanceof AuditEvent.Revoked r) {
                s.revokedInMemory.add(ScopeKey.of(r.scope().id()));
            }
            Diagnostic failure = Diagnostic.error(
                    ErrorCode.AUDIT_IO,
                    AuditDirectory.LOG,
                    "an append of seq " + seq + " failed (" + e.getClass().getSimpleName()
                            + "); it is not acknowledged");
            recovery.recoverAfterFault(failure);
            if (s.view().status().writable()) {
                // The recovery may have re-committed the failed frame (a trailing revocation).
                exporter.exportCommitted(null);
            }
            return new AppendResult.Failed(failure);
        }
        s.advance(next);
        s.verifiedSequence = seq;
        boolean regression = s.lastRecordedAt != null && at.isBefore(s.lastRecordedAt);
        s.lastRecordedAt = at;
        LogScanner.apply(s.trust, seq, Payloads.Decoded.of(at, event));
        s.publish(v.status().state(), true, v.status().diagnostics(), null);
        exporter.exportCommitted(new ExportedRecord(
                next.head().logIdHex(),
                Sha256Digest.of(previousTip),
                new AuditRecord(seq, at, regression, event, Sha256Digest.of(hash))));
        return new AppendResult.Committed(seq, Sha256Digest.of(hash));
    }
}
