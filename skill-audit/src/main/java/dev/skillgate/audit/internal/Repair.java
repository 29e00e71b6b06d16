package dev.skillgate.audit.internal;

import dev.skillgate.audit.AppendResult;
import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.AuditStatus;
import dev.skillgate.audit.ExportedRecord;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Sha256Digest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The audited repair of a disabled log (docs/audit.md, "Disabled, and the audited repair"): the old
 * log and head move, unchanged, into a new {@code audit.corrupt-*} evidence directory, and a new log
 * starts whose first record ({@code REPAIR}) names the reason, the cause, the old log id and the
 * digests of the old files. Nothing from the old log is trusted afterwards.
 *
 * <p>Crash-safe in order: the new log is written complete under a temporary name first, and the old
 * head moves before the old log, so a crash leaves a log without a commit point (still disabled),
 * never an empty log that would hide the repair. Only a writer holding the lock repairs, and only a
 * {@code DISABLED} log. Worker-confined.
 */
final class Repair {
    private final LogState state;
    private final AuditDirectory files;
    private final WriterLock lock;
    private final CommitPoint commit;
    private final Exporter exporter;
    private final FileOps ops;
    private final Clock clock;

    Repair(
            LogState state,
            AuditDirectory files,
            WriterLock lock,
            CommitPoint commit,
            Exporter exporter,
            FileOps ops,
            Clock clock) {
        this.state = state;
        this.files = files;
        this.lock = lock;
        this.commit = commit;
        this.exporter = exporter;
        this.ops = ops;
        this.clock = clock;
    }

    /** Starts a new log after corruption, keeping the old files as evidence; audited by its first record. */
    AppendResult repair(String reason) {
        LogState s = state;
        LogState.View v = s.view();
        if (v.status().state() != AuditState.DISABLED) {
            return new AppendResult.Refused(Diagnostic.error(
                    ErrorCode.AUDIT_REPAIR_NOT_NEEDED,
                    "",
                    "the audit log is " + v.status().state() + "; nothing to repair"));
        }
        if (!lock.valid()) {
            return new AppendResult.Refused(
                    Diagnostic.error(
                            ErrorCode.AUDIT_DISABLED,
                            "",
                            "a repair needs this handle to hold the lock on a usable audit directory (fix the directory by hand, then reopen)"));
        }
        Path logP = files.resolve(AuditDirectory.LOG);
        Path headP = files.resolve(AuditDirectory.HEAD);
        try {
            files.restoreMode();
            String evidenceName = AuditDirectory.EVIDENCE_PREFIX + AuditDirectory.timestamp(clock.instant()) + "-"
                    + AuditDirectory.randomHex(4);
            Optional<Sha256Digest> headDigest = AuditDirectory.digestIfRegular(headP);
            Optional<Sha256Digest> logDigest = AuditDirectory.digestIfRegular(logP);
            Optional<String> oldId = oldLogId(headP, logP);
            s.closeLog();
            byte[] newId = AuditDirectory.newLogId();
            AuditEvent.Repaired event = new AuditEvent.Repaired(
                    reason,
                    s.disabledCause,
                    s.disabledFirstBad > 0 ? OptionalLong.of(s.disabledFirstBad) : OptionalLong.empty(),
                    oldId,
                    logDigest,
                    headDigest,
                    evidenceName);
            Instant at = clock.instant().truncatedTo(ChronoUnit.MILLIS);
            byte[] frame = Frames.frame(1, RecordType.REPAIR, Payloads.encode(event, at), Frames.genesis(newId));
            Path tmpLog = files.resolve(AuditDirectory.REPAIR_TMP);
            Files.deleteIfExists(tmpLog);
            try (FileChannel ch = AuditDirectory.create(tmpLog, false)) {
                ops.write(ch, ByteBuffer.wrap(Frames.header(newId)), 0);
                ops.write(ch, ByteBuffer.wrap(frame), Frames.HEADER_SIZE);
                ops.force(ch, true);
            }
            Path evidence = files.resolve(evidenceName);
            if (Permissions.posix(files.dir())) {
                Files.createDirectory(evidence, Permissions.dirAttribute());
            } else {
                Files.createDirectory(evidence);
            }
            // The head goes first: a crash from here on leaves a log without a commit point, which
            // stays disabled, never an empty log that would hide the repair.
            if (Files.exists(headP, LinkOption.NOFOLLOW_LINKS)) {
                ops.move(headP, evidence.resolve(AuditDirectory.HEAD));
            }
            if (Files.exists(logP, LinkOption.NOFOLLOW_LINKS)) {
                ops.move(logP, evidence.resolve(AuditDirectory.LOG));
            }
            ops.syncDirectory(evidence);
            ops.move(tmpLog, logP);
            TreeState next = TreeState.genesis(newId).extend(frame);
            commit.write(next.head());
            s.tree = next.tree();
            s.log = AuditDirectory.openForWriting(logP);
            s.head = next.head();
            s.trust = new TrustTable();
            s.verifiedSequence = 1;
            s.disabledFirstBad = -1;
            s.lastRecordedAt = at;
            s.publish(
                    AuditState.OK,
                    true,
                    List.of(Diagnostic.info(
                            ErrorCode.AUDIT_DISABLED,
                            "",
                            "repaired: a new log was started; the old files are kept in " + evidenceName)),
                    null);
            // A new log: every sink starts again at its first record.
            exporter.startAfter(0);
            Sha256Digest hash = Sha256Digest.of(next.head().tip());
            exporter.exportCommitted(new ExportedRecord(
                    next.head().logIdHex(),
                    Sha256Digest.of(Frames.genesis(newId)),
                    new AuditRecord(1, at, false, event, hash)));
            return new AppendResult.Committed(1, hash);
        } catch (IOException | RuntimeException e) {
            Diagnostic io = Diagnostic.error(
                    ErrorCode.AUDIT_IO,
                    "",
                    "the repair failed (" + e.getClass().getSimpleName() + "); the log stays disabled");
            List<Diagnostic> d = new ArrayList<>(v.status().diagnostics());
            d.add(0, io);
            s.show(new LogState.View(
                    new AuditStatus(
                            AuditState.DISABLED,
                            false,
                            v.status().committedSequence(),
                            v.status().logId(),
                            v.status().firstBadSequence(),
                            d),
                    v.trust(),
                    v.head(),
                    v.readOnlyReason()));
            return new AppendResult.Failed(io);
        }
    }

    /** The old log's id, from its head if readable, else from its header. */
    private static Optional<String> oldLogId(Path headP, Path logP) {
        try {
            if (Files.isRegularFile(headP, LinkOption.NOFOLLOW_LINKS)) {
                return Optional.of(Head.parse(AuditDirectory.readBounded(headP, Head.MAX_SIZE + 1))
                        .logIdHex());
            }
        } catch (IOException | Frames.FormatException e) {
            // fall through to the log header
        }
        try {
            if (Files.isRegularFile(logP, LinkOption.NOFOLLOW_LINKS)) {
                return Optional.of(HexFormat.of()
                        .formatHex(Frames.parseHeader(AuditDirectory.readBounded(logP, Frames.HEADER_SIZE))));
            }
        } catch (IOException | Frames.FormatException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }
}
