package dev.skillgate.audit.internal;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditState;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A reader's open: verifies the committed prefix as a writer would but changes nothing — no file is
 * created, tightened, quarantined or truncated. A tail beyond the commit point is reported (a
 * writer may be appending it now); an unconfirmed revocation is still honoured in memory. When the
 * log looks corrupt while its head moved during the scan, it looks again (three times at most), so
 * a writer committing meanwhile is not mistaken for corruption. Publishes a read-only view.
 * Worker-confined.
 */
final class ReadOnlyOpen {
    private final LogState state;
    private final AuditDirectory files;
    private final boolean requested;

    /**
     * @param requested whether the caller asked for a reader (else a writer fell back to reading, and
     *     the directory was checked already)
     */
    ReadOnlyOpen(LogState state, AuditDirectory files, boolean requested) {
        this.state = state;
        this.files = files;
        this.requested = requested;
    }

    /** Verifies and publishes; {@code notes} are the findings so far. */
    void open(List<Diagnostic> notes) throws IOException {
        LogState s = state;
        if (!AuditDirectory.present(files.dir())) {
            notes.add(Diagnostic.info(ErrorCode.AUDIT_VERIFYING, "", "no audit log exists yet; nothing is trusted"));
            s.publish(AuditState.OK, false, notes, readOnlyReason(notes));
            return;
        }
        String fatal = requested ? files.prepare(notes, false) : null;
        if (fatal != null || files.problem() != null) {
            s.publishDisabled(
                    fatal != null ? ErrorCode.AUDIT_CORRUPT : ErrorCode.AUDIT_PERMISSIONS,
                    "",
                    -1,
                    fatal != null ? fatal : files.problem(),
                    null,
                    notes);
            return;
        }
        Path logP = files.resolve(AuditDirectory.LOG);
        Path headP = files.resolve(AuditDirectory.HEAD);
        for (int attempt = 0; attempt < 3; attempt++) {
            List<Diagnostic> n = new ArrayList<>(notes);
            s.forget();
            HeadPlacement.Found found = HeadPlacement.check(s, files, false, n);
            if (found instanceof HeadPlacement.NoLogYet) {
                n.add(Diagnostic.info(ErrorCode.AUDIT_VERIFYING, "", "no audit log exists yet; nothing is trusted"));
                s.publish(AuditState.OK, false, n, readOnlyReason(n));
                return;
            }
            if (!(found instanceof HeadPlacement.Parsed parsed)) {
                return;
            }
            byte[] headBytes = parsed.bytes();
            Head h = parsed.head();
            LogScanner.Result r;
            try (FileChannel ch = FileChannel.open(logP, AuditDirectory.READ_NOFOLLOW)) {
                r = LogScanner.scan(Source.of(ch), h, null);
            }
            boolean headMoved = !Arrays.equals(headBytes, AuditDirectory.readBounded(headP, Head.MAX_SIZE + 1));
            if ((r.problem != null || r.tail.kind() == LogScanner.TailKind.CORRUPT) && headMoved) {
                continue; // a writer committed meanwhile; look again
            }
            s.trust = r.trust;
            s.verifiedSequence = r.verifiedSequence;
            if (r.problem != null) {
                s.publishDisabled(
                        r.problem.code(), AuditDirectory.LOG, r.problem.firstBadSequence(), r.problem.reason(), h, n);
                return;
            }
            s.head = h.withRoot(r.tree.root().bytes());
            switch (r.tail.kind()) {
                case NONE -> {}
                case CORRUPT -> {
                    s.publishDisabled(
                            ErrorCode.AUDIT_CORRUPT, AuditDirectory.LOG, h.sequence() + 1, r.tail.reason(), h, n);
                    return;
                }
                case SINGLE -> {
                    Payloads.Decoded d = r.tail.decoded().orElseThrow();
                    if (d.event() instanceof AuditEvent.Revoked v) {
                        s.revokedInMemory.add(ScopeKey.of(v.scope().id()));
                        n.add(Diagnostic.info(
                                ErrorCode.AUDIT_TAIL_QUARANTINED,
                                AuditDirectory.LOG,
                                "an unconfirmed revocation beyond the commit point is honoured in memory"));
                    } else {
                        n.add(Diagnostic.info(
                                ErrorCode.AUDIT_TAIL_QUARANTINED,
                                AuditDirectory.LOG,
                                r.tail.reason() + "; it grants nothing (a writer may be committing it now)"));
                    }
                }
                case TORN ->
                    n.add(Diagnostic.info(
                            ErrorCode.AUDIT_TAIL_QUARANTINED,
                            AuditDirectory.LOG,
                            r.tail.reason() + "; ignored (a writer may be appending now)"));
            }
            s.publish(AuditState.OK, false, n, readOnlyReason(n));
            return;
        }
        s.publishDisabled(
                ErrorCode.AUDIT_CORRUPT,
                AuditDirectory.LOG,
                -1,
                "the log kept changing while it was read",
                null,
                notes);
    }

    private static Diagnostic readOnlyReason(List<Diagnostic> notes) {
        for (Diagnostic d : notes) {
            if (d.code() == ErrorCode.AUDIT_LOCKED) {
                return d;
            }
        }
        return Diagnostic.error(ErrorCode.AUDIT_LOCKED, "", "this handle was opened read-only");
    }
}
