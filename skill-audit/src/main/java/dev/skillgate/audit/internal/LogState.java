package dev.skillgate.audit.internal;

import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.AuditStatus;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.tlog.CompactTree;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one engine knows about its log, shared by the parts that open, recover, append, export and
 * repair it: the worker-confined fields (commit point, tree, trust table, the open log channel) and
 * the published {@link View} that readers see without blocking.
 *
 * <p>Only the worker thread writes the fields and publishes; {@link #view()} and {@link
 * #revokedInMemory} are safe from any thread. It checks nothing itself.
 */
final class LogState {
    /** The published state: immutable apart from the trust table, which only the worker mutates. */
    record View(AuditStatus status, TrustTable trust, Head head, Diagnostic readOnlyReason) {
        /** Before start-up verification has finished: nothing trusted, nothing writable. */
        static View verifying() {
            return new View(
                    new AuditStatus(
                            AuditState.VERIFYING,
                            false,
                            0,
                            Optional.empty(),
                            OptionalLong.empty(),
                            List.of(Diagnostic.info(
                                    ErrorCode.AUDIT_VERIFYING,
                                    "",
                                    "the audit log is being verified; nothing is trusted yet"))),
                    new TrustTable(),
                    null,
                    Diagnostic.error(ErrorCode.AUDIT_VERIFYING, "", "the audit log is still being verified"));
        }

        /** This view, no longer writable because the handle is closed. */
        View closed() {
            return new View(
                    new AuditStatus(
                            status.state(),
                            false,
                            status.committedSequence(),
                            status.logId(),
                            status.firstBadSequence(),
                            status.diagnostics()),
                    trust,
                    head,
                    Diagnostic.error(ErrorCode.AUDIT_LOCKED, "", "the audit log is closed"));
        }
    }

    /** The verified commit point, or null (none yet, or unreadable). */
    Head head;
    /** The Merkle tree over the committed frames; always in step with {@link #head} while writable. */
    CompactTree tree = CompactTree.empty();

    TrustTable trust = new TrustTable();
    /** The log, open for writing while this handle is a writer; else null. */
    FileChannel log;
    /** The last sequence number whose record verified. */
    long verifiedSequence;

    Instant lastRecordedAt;
    /** Why the log was disabled, for the repair record. */
    ErrorCode disabledCause = ErrorCode.AUDIT_CORRUPT;

    long disabledFirstBad = -1;
    /** Revocations honoured although they could not be made durable: trust only ever shrinks. */
    final Set<ScopeKey> revokedInMemory = ConcurrentHashMap.newKeySet();

    private volatile View view = View.verifying();

    /** The published view. */
    View view() {
        return view;
    }

    /** Publishes {@code v} as it is. */
    void show(View v) {
        view = v;
    }

    /** Forgets what a previous scan found: no head, an empty trust table, nothing verified. */
    void forget() {
        trust = new TrustTable();
        verifiedSequence = 0;
        head = null;
    }

    /** Makes {@code next} the current commit point and tree. */
    void advance(TreeState next) {
        head = next.head();
        tree = next.tree();
    }

    /** Publishes the current head and trust table in {@code state}. */
    void publish(AuditState state, boolean writable, List<Diagnostic> diagnostics, Diagnostic readOnlyReason) {
        long seq = head == null ? 0 : head.sequence();
        Optional<String> id = head == null ? Optional.empty() : Optional.of(head.logIdHex());
        view = new View(
                new AuditStatus(state, writable, seq, id, OptionalLong.empty(), diagnostics),
                trust,
                head,
                writable ? null : readOnlyReason);
    }

    /**
     * Publishes {@link AuditState#DISABLED}: nothing trusted, appends refused until a repair.
     *
     * @param firstBad the first bad sequence number, or a value below 1 for none
     * @param knownHead the commit point as read (may be null); it becomes {@link #head}
     */
    void publishDisabled(
            ErrorCode cause, String location, long firstBad, String reason, Head knownHead, List<Diagnostic> notes) {
        List<Diagnostic> d = new ArrayList<>();
        d.add(Diagnostic.error(
                cause, location, firstBad > 0 ? reason + " (first bad record: seq " + firstBad + ")" : reason));
        d.add(Diagnostic.error(
                ErrorCode.AUDIT_DISABLED, "", "nothing is trusted and appends are refused until an operator repair"));
        d.addAll(notes);
        disabledCause = cause;
        disabledFirstBad = firstBad;
        head = knownHead;
        Optional<String> id = knownHead == null ? Optional.empty() : Optional.of(knownHead.logIdHex());
        view = new View(
                new AuditStatus(
                        AuditState.DISABLED,
                        false,
                        verifiedSequence,
                        id,
                        firstBad > 0 ? OptionalLong.of(firstBad) : OptionalLong.empty(),
                        d),
                trust,
                knownHead,
                d.get(1));
    }

    /** Closes the log channel, if open. */
    void closeLog() {
        if (log != null) {
            try {
                log.close();
            } catch (IOException e) {
                // nothing more to do; the channel is gone either way
            }
            log = null;
        }
    }
}
