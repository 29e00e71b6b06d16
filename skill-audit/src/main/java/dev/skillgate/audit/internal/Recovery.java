package dev.skillgate.audit.internal;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditState;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Severity;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The writer's recovery rule (docs/audit.md, "Open: verification and the recovery rule"), at open
 * and after a write fault: verify the committed prefix against the commit point, then deal with
 * whatever lies beyond it. No head and at most a header: a new log is started. A torn tail, or one
 * unconfirmed frame that is not a revocation, is quarantined to a new {@code 0600} file and the log
 * truncated to the commit point (it grants nothing). One unconfirmed revocation is kept and
 * re-committed (trust only ever shrinks). Anything else is {@code DISABLED}.
 *
 * <p>The tree is recomputed by the scan and must match a version 2 head; the state it leaves has
 * head and tree in step. Publishes the outcome; never throws for what it finds on disk, only for
 * I/O failures the caller turns into a state. Worker-confined.
 */
final class Recovery {
    /** Quarantined tails kept; older ones are deleted. */
    static final int KEEP_QUARANTINED = 8;

    private final LogState state;
    private final AuditDirectory files;
    private final CommitPoint commit;
    private final FileOps ops;
    private final Clock clock;

    Recovery(LogState state, AuditDirectory files, CommitPoint commit, FileOps ops, Clock clock) {
        this.state = state;
        this.files = files;
        this.commit = commit;
        this.ops = ops;
        this.clock = clock;
    }

    /**
     * Verifies the committed prefix, then quarantines or re-commits the tail, and publishes the
     * resulting view ({@code DEGRADED} at best when {@code afterFault}).
     */
    void recover(List<Diagnostic> notes, boolean afterFault) throws IOException {
        LogState s = state;
        s.closeLog();
        s.forget();
        Path logP = files.resolve(AuditDirectory.LOG);
        HeadPlacement.Found found = HeadPlacement.check(s, files, true, notes);
        if (found instanceof HeadPlacement.NoLogYet fresh) {
            if (fresh.logExists()) {
                notes.add(Diagnostic.info(
                        ErrorCode.AUDIT_TAIL_QUARANTINED,
                        AuditDirectory.LOG,
                        "an initialisation interrupted by a crash was redone"));
                Files.delete(logP);
            }
            try {
                startNewLog();
            } catch (IOException e) {
                s.closeLog();
                s.head = null;
                List<Diagnostic> d = new ArrayList<>(notes);
                Diagnostic io = Diagnostic.error(
                        ErrorCode.AUDIT_IO,
                        AuditDirectory.LOG,
                        "a new log could not be created (" + e.getClass().getSimpleName() + ")");
                d.add(0, io);
                s.publish(AuditState.DEGRADED, false, d, io);
                return;
            }
            s.publish(afterFault ? AuditState.DEGRADED : AuditState.OK, true, notes, null);
            return;
        }
        if (!(found instanceof HeadPlacement.Parsed parsed)) {
            return;
        }
        Head h = parsed.head();
        s.log = AuditDirectory.openForWriting(logP);
        LogScanner.Result r = LogScanner.scan(Source.of(s.log), h, null);
        s.trust = r.trust;
        s.verifiedSequence = r.verifiedSequence;
        s.lastRecordedAt = r.lastRecordedAt;
        if (r.problem != null) {
            s.publishDisabled(
                    r.problem.code(), AuditDirectory.LOG, r.problem.firstBadSequence(), r.problem.reason(), h, notes);
            return;
        }
        s.tree = r.tree.copy();
        s.head = h.withRoot(s.tree.root().bytes());
        h = s.head;
        LogScanner.Tail tail = r.tail;
        try {
            switch (tail.kind()) {
                case NONE -> {
                    s.publish(
                            afterFault || hasWarnings(notes) ? AuditState.DEGRADED : AuditState.OK, true, notes, null);
                    return;
                }
                case CORRUPT -> {
                    s.publishDisabled(
                            ErrorCode.AUDIT_CORRUPT, AuditDirectory.LOG, h.sequence() + 1, tail.reason(), h, notes);
                    return;
                }
                case TORN -> {
                    String q = quarantine(h, tail.bytes());
                    notes.add(
                            0,
                            Diagnostic.warning(
                                    ErrorCode.AUDIT_TAIL_QUARANTINED,
                                    AuditDirectory.LOG,
                                    tail.reason() + "; moved to " + q));
                }
                case SINGLE -> recoverSingle(h, tail, notes);
            }
        } catch (ClosedByInterruptException e) {
            throw e; // recoverAfterFault retries
        } catch (IOException e) {
            Diagnostic io = Diagnostic.error(
                    ErrorCode.AUDIT_IO,
                    AuditDirectory.LOG,
                    "the unconfirmed tail could not be quarantined ("
                            + e.getClass().getSimpleName() + "); read-only until reopened");
            List<Diagnostic> d = new ArrayList<>();
            d.add(io);
            d.add(Diagnostic.warning(ErrorCode.AUDIT_TAIL_QUARANTINED, AuditDirectory.LOG, tail.reason()));
            d.addAll(notes);
            s.publish(AuditState.DEGRADED, false, d, io);
            return;
        }
        s.publish(AuditState.DEGRADED, true, notes, null);
    }

    /** One complete unconfirmed frame: a revocation is re-committed, anything else quarantined. */
    private void recoverSingle(Head h, LogScanner.Tail tail, List<Diagnostic> notes) throws IOException {
        LogState s = state;
        Payloads.Decoded d = tail.decoded().orElseThrow();
        long seq = h.sequence() + 1;
        if (tail.type().orElseThrow() == RecordType.REVOKE) {
            // Only ever reduce trust: an unconfirmed revocation is kept.
            s.revokedInMemory.add(
                    ScopeKey.of(((AuditEvent.Revoked) d.event()).scope().id()));
            TreeState next = new TreeState(h, s.tree)
                    .extend(tail.leafHash().orElseThrow(), tail.chainHash(), tail.frameLength());
            commit.write(next.head());
            s.advance(next);
            LogScanner.apply(s.trust, seq, d);
            s.verifiedSequence = seq;
            s.lastRecordedAt = d.recordedAt();
            notes.add(
                    0,
                    Diagnostic.warning(
                            ErrorCode.AUDIT_TAIL_QUARANTINED,
                            AuditDirectory.LOG,
                            "an unconfirmed revocation (seq " + seq
                                    + ") beyond the commit point was kept and re-committed"));
        } else {
            String q = quarantine(h, tail.bytes());
            notes.add(
                    0,
                    Diagnostic.warning(
                            ErrorCode.AUDIT_TAIL_QUARANTINED,
                            AuditDirectory.LOG,
                            "an unconfirmed "
                                    + tail.type().orElseThrow().name().toLowerCase(Locale.ROOT) + " record (seq " + seq
                                    + ") beyond the commit point grants nothing; moved to " + q));
        }
    }

    /**
     * Recovery after a write fault (or a channel closed under the worker): re-verifies as at open,
     * retrying a few times when a stray interrupt closes the channel mid-read; when that fails too,
     * the handle keeps its last view, read-only.
     */
    void recoverAfterFault(Diagnostic cause) {
        LogState.View before = state.view();
        for (int attempt = 0; ; attempt++) {
            List<Diagnostic> notes = new ArrayList<>();
            notes.add(cause);
            // A stray interrupt closes channels mid-read; clear it and try again a few times.
            Thread.interrupted();
            try {
                recover(notes, true);
                return;
            } catch (ClosedByInterruptException e) {
                if (attempt < 3) {
                    continue;
                }
                failRecovery(before, cause, e);
                return;
            } catch (IOException | RuntimeException e) {
                failRecovery(before, cause, e);
                return;
            }
        }
    }

    /** Starts an empty log: a new id, the header, and the genesis commit point. */
    void startNewLog() throws IOException {
        LogState s = state;
        byte[] logId = AuditDirectory.newLogId();
        s.log = AuditDirectory.create(files.resolve(AuditDirectory.LOG), true);
        ops.write(s.log, ByteBuffer.wrap(Frames.header(logId)), 0);
        ops.force(s.log, true);
        TreeState genesis = TreeState.genesis(logId);
        commit.write(genesis.head());
        s.advance(genesis);
        s.trust = new TrustTable();
        s.verifiedSequence = 0;
    }

    private void failRecovery(LogState.View before, Diagnostic cause, Exception e) {
        LogState s = state;
        s.closeLog();
        List<Diagnostic> d = new ArrayList<>();
        Diagnostic io = Diagnostic.error(
                ErrorCode.AUDIT_IO,
                AuditDirectory.LOG,
                "the log could not be re-verified after a fault ("
                        + e.getClass().getSimpleName() + "); read-only until reopened");
        d.add(io);
        d.add(cause);
        s.trust = before.trust();
        s.head = before.head();
        s.publish(
                before.status().state() == AuditState.DISABLED ? AuditState.DISABLED : AuditState.DEGRADED,
                false,
                d,
                io);
    }

    /** Copies the tail to a new {@code 0600} file, truncates the log to the commit point, syncs. */
    private String quarantine(Head h, long bytes) throws IOException {
        FileChannel log = state.log;
        String name = AuditDirectory.TORN_PREFIX + AuditDirectory.timestamp(clock.instant()) + "-" + (h.sequence() + 1)
                + "-" + AuditDirectory.randomHex(4);
        ByteBuffer tail = ByteBuffer.allocate((int) bytes);
        while (tail.hasRemaining()) {
            if (log.read(tail, h.length() + tail.position()) < 0) {
                break;
            }
        }
        tail.flip();
        try (FileChannel out = AuditDirectory.create(files.resolve(name), false)) {
            ops.write(out, tail, 0);
            ops.force(out, true);
        }
        log.truncate(h.length());
        ops.force(log, true);
        ops.syncDirectory(files.dir());
        pruneQuarantine();
        return name;
    }

    private void pruneQuarantine() {
        List<Path> torn = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(files.dir(), AuditDirectory.TORN_PREFIX + "*")) {
            s.forEach(torn::add);
        } catch (IOException e) {
            return;
        }
        torn.sort(null);
        for (int i = 0; i < torn.size() - KEEP_QUARANTINED; i++) {
            try {
                Files.deleteIfExists(torn.get(i));
            } catch (IOException e) {
                return;
            }
        }
    }

    private static boolean hasWarnings(List<Diagnostic> notes) {
        return notes.stream().anyMatch(d -> d.severity() != Severity.INFO);
    }
}
