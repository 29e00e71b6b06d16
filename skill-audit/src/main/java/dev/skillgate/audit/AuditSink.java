package dev.skillgate.audit;

import java.util.regex.Pattern;
import org.apiguardian.api.API;

/**
 * An export of the trust audit log: receives every record after it is committed to the local
 * hash-chained log, for example to forward it to a SIEM or a remote witness (SPEC §1, §9).
 *
 * <p>The local log stays the source of truth. A sink is told about a record; it never decides
 * whether the record exists, and nothing a sink does can grant trust.
 *
 * <p><b>Who calls it, and how.</b> The {@link AuditLog} it was given to
 * ({@link AuditLogOptions.Builder#sink(AuditSink)}) calls {@link #export} once for each record that
 * log commits — approvals, revocations, consumptions, policy changes, settlements, resolutions,
 * plans, repairs — right after the commit point is durable and before the append returns to its
 * caller. Calls come from one private thread per sink, never from the caller's thread, and never
 * two at a time for the same sink. A sink may be shared by several logs only if it is thread-safe.
 * A sink must not append to the log it exports: that append would wait behind the export and the
 * export would time out.
 *
 * <p><b>Ordering.</b> Within one log handle a sink receives records in strictly increasing
 * sequence order, each sequence number after the previous one with no gap, and the
 * {@link ExportedRecord#previousChainHash()} of each is the {@link AuditRecord#chainHash()} of the
 * one before. Without failures each committed record is exported exactly once in this process.
 *
 * <p><b>Failure is fail-closed</b> (decision 0370): an export that throws anything, or does not
 * return within {@link AuditLogOptions#sinkTimeout()}, halts the log: it enters
 * {@link AuditState#EXPORT_HALTED}, trusts nothing and refuses every append with
 * {@code AUDIT_SINK_FAILED} until {@link AuditLog#resumeExport()} delivers every record the sink
 * missed (read back from the committed log). The record whose export failed is committed locally and
 * is never dropped; after a resume it may be delivered a second time (a timed-out call may still
 * have completed), so a sink should treat ({@code logId}, sequence) as an idempotency key.
 *
 * <p><b>What it does not guarantee.</b> A sink is not the commit point: the record is durable
 * locally before the sink hears of it, so a crash or {@code kill -9} between the commit and the
 * export loses that export. Nothing is replayed after a restart: a new handle starts exporting at
 * the next record it commits. Sequence numbers are contiguous and the chain hashes link, so such a
 * loss shows as a gap at the receiving end (the first record received after a restart does not
 * follow the last one received before); the operator then reads the missing records from the local
 * log ({@link AuditLog#records}, {@code skillgate audit}). A sink that returns normally is taken at
 * its word: if it swallows its own errors, nothing here can tell. Exporting does not make the log
 * tamper-proof against the local user; a remote holder of exported chain hashes makes a rewritten
 * history detectable, as a checkpoint held elsewhere does.
 *
 * <p>Implementations: set them explicitly on {@link AuditLogOptions.Builder#sink} (or
 * {@code SkillGate.Builder#auditSink}); a {@link java.util.ServiceLoader} provider is used only when
 * the host names it ({@code SkillGate.Builder#auditSinkProvider(String)}). The testkit has an
 * in-memory sink and a contract test ({@code AbstractAuditSinkContractTest}).
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public interface AuditSink {
    /** The pattern a sink's {@link #name()} matches. */
    Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9.-]{0,63}");

    /**
     * A short, stable name ({@link #NAME}: lowercase letters, digits, {@code .} and {@code -}, at most
     * 64 characters), used in status reports and to select a provider. Read once, when the log is
     * configured.
     */
    String name();

    /**
     * Exports one committed record. Returning normally means the record was accepted; throwing
     * anything, or not returning in time, is a failure that halts the log (see the class
     * description). Called from a private thread; an interrupt means the call timed out and its
     * result is no longer awaited.
     *
     * @param record the committed record, its log id and the chain hash before it
     * @throws Exception when the record could not be exported
     */
    void export(ExportedRecord record) throws Exception;
}
