package dev.skillgate.audit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.skillgate.audit.AppendResult;
import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditLogOptions;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.AuditStatus;
import dev.skillgate.audit.Checkpoint;
import dev.skillgate.audit.CheckpointKey;
import dev.skillgate.audit.CheckpointVerification;
import dev.skillgate.audit.Fixtures;
import dev.skillgate.audit.TrustScope;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The adversarial table of {@code reference/audit-log.md} §5, one test per row, on real files.
 * Rows 22 (kill -9 loop) are in {@code CrashLoopTest}, 24–27 (locks) in {@code LockTrapsTest},
 * 28–30 (disk full, failed writes) in {@code FaultInjectionTest}. Rows that need a non-root user
 * (41) or root (42) skip themselves with a visible assumption.
 */
class AdversarialTableTest {
    @TempDir
    Path tmp;

    private Path dir;
    private Path logFile;
    private Path headFile;
    private final MutableClock clock = new MutableClock(Instant.parse("2026-03-01T10:00:00Z"));

    /** The standard log: approve p0, p1, e2; revoke p1; approve p4, p5. Trusted: p0, e2, p4, p5. */
    static final List<TrustScope> SCOPES = List.of(
            Fixtures.prompt(0), Fixtures.prompt(1), Fixtures.execution(2), Fixtures.prompt(4), Fixtures.prompt(5));

    private AuditLog open() {
        return AuditLog.open(AuditLogOptions.builder(dir)
                .clock(clock)
                .openWait(Duration.ofSeconds(30))
                .build());
    }

    private void standardLog(Path at) {
        dir = at;
        logFile = dir.resolve("audit.log");
        headFile = dir.resolve("audit.head");
        try (AuditLog log = open()) {
            assertThat(log.approve(SCOPES.get(0)).isCommitted()).isTrue();
            assertThat(log.approve(SCOPES.get(1)).isCommitted()).isTrue();
            assertThat(log.approve(SCOPES.get(2)).isCommitted()).isTrue();
            assertThat(log.revoke(SCOPES.get(1)).isCommitted()).isTrue();
            assertThat(log.approve(SCOPES.get(3)).isCommitted()).isTrue();
            assertThat(log.approve(SCOPES.get(4)).isCommitted()).isTrue();
        }
    }

    private void standardLog() {
        standardLog(tmp.resolve("audit"));
    }

    private List<Long> offsets() throws IOException {
        return Fixtures.frameOffsets(Files.readAllBytes(logFile));
    }

    /** Asserts DISABLED, nothing trusted, appends refused, and the first diagnostic says {@code why}. */
    private AuditStatus assertDisabled(String why, ErrorCode cause) {
        try (AuditLog log = open()) {
            AuditStatus s = log.status();
            assertThat(s.state()).as(s.toString()).isEqualTo(AuditState.DISABLED);
            assertThat(s.writable()).isFalse();
            assertThat(s.diagnostics().get(0).code()).isEqualTo(cause);
            assertThat(s.diagnostics().get(0).message()).contains(why);
            assertThat(s.diagnostics()).extracting(Diagnostic::code).contains(ErrorCode.AUDIT_DISABLED);
            for (TrustScope scope : SCOPES) {
                assertThat(log.isTrusted(scope)).isFalse();
            }
            AppendResult r = log.approve(Fixtures.prompt(99));
            assertThat(r).isInstanceOf(AppendResult.Refused.class);
            assertThat(((AppendResult.Refused) r).reason().code()).isEqualTo(ErrorCode.AUDIT_DISABLED);
            return s;
        }
    }

    private AuditStatus assertDisabled(String why) {
        return assertDisabled(why, ErrorCode.AUDIT_CORRUPT);
    }

    private void assertStandardTrust(AuditLog log) {
        assertThat(log.isTrusted(SCOPES.get(0))).isTrue();
        assertThat(log.isTrusted(SCOPES.get(1))).isFalse();
        assertThat(log.isTrusted(SCOPES.get(2))).isTrue();
        assertThat(log.isTrusted(SCOPES.get(3))).isTrue();
        assertThat(log.isTrusted(SCOPES.get(4))).isTrue();
    }

    private byte[] frameBytes(int index) throws IOException {
        byte[] log = Files.readAllBytes(logFile);
        List<Long> o = Fixtures.frameOffsets(log);
        return Arrays.copyOfRange(log, o.get(index).intValue(), o.get(index + 1).intValue());
    }

    // -------------------------------------------------------------- rows

    @Test
    void row01_bitFlipInTheCommittedRegionIsACrcMismatch() throws IOException {
        standardLog();
        long mid = offsets().get(2) + 40;
        Fixtures.flipBit(logFile, mid, 3);
        AuditStatus s = assertDisabled("CRC mismatch");
        assertThat(s.firstBadSequence()).hasValue(3);
    }

    @Test
    void row02_everyOneOf300RandomBitFlipsIsDetected() throws IOException {
        standardLog();
        byte[] log = Files.readAllBytes(logFile);
        byte[] head = Files.readAllBytes(headFile);
        Random random = new Random(2);
        int detected = 0;
        for (int i = 0; i < 300; i++) {
            boolean inHead = random.nextInt(8) == 0;
            Path target = inHead ? headFile : logFile;
            long offset = random.nextInt(inHead ? head.length : log.length);
            int bit = random.nextInt(8);
            Fixtures.flipBit(target, offset, bit);
            try (AuditLog opened = open()) {
                if (opened.status().state() == AuditState.DISABLED) {
                    detected++;
                }
            }
            Fixtures.flipBit(target, offset, bit);
        }
        assertThat(detected).isEqualTo(300);
        // The full sweep over every bit runs in memory: ScannerSweepTest.
    }

    @Test
    void row03_editedPayloadWithRecomputedCrcIsAChainMismatch() throws IOException {
        standardLog();
        byte[] log = Files.readAllBytes(logFile);
        List<Long> o = Fixtures.frameOffsets(log);
        int start = o.get(1).intValue();
        int end = o.get(2).intValue();
        byte[] frame = Arrays.copyOfRange(log, start, end);
        String payload = new String(frame, 13, frame.length - 49, StandardCharsets.UTF_8);
        String edited = payload.replace("agent-1", "agent-2");
        assertThat(edited).isNotEqualTo(payload);
        System.arraycopy(edited.getBytes(StandardCharsets.UTF_8), 0, frame, 13, frame.length - 49);
        LogBuilder.fixCrc(frame);
        System.arraycopy(frame, 0, log, start, frame.length);
        Fixtures.write(logFile, log);
        AuditStatus s = assertDisabled("chain hash mismatch at seq 2");
        assertThat(s.firstBadSequence()).hasValue(2);
    }

    /** Rewrites record {@code index} (0-based) and re-chains every later frame; returns the new log. */
    private byte[] rewriteAndRechain(int index, String from, String to) throws IOException {
        byte[] log = Files.readAllBytes(logFile);
        List<Long> o = Fixtures.frameOffsets(log);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.writeBytes(Arrays.copyOfRange(log, 0, o.get(index).intValue()));
        byte[] prev = Frames.storedHash(Arrays.copyOfRange(
                log, o.get(index - 1).intValue(), o.get(index).intValue()));
        for (int i = index; i < o.size() - 1; i++) {
            byte[] frame =
                    Arrays.copyOfRange(log, o.get(i).intValue(), o.get(i + 1).intValue());
            byte[] payload = Arrays.copyOfRange(frame, 13, frame.length - 36);
            if (i == index) {
                payload = new String(payload, StandardCharsets.UTF_8)
                        .replace(from, to)
                        .getBytes(StandardCharsets.UTF_8);
            }
            byte[] rebuilt = LogBuilder.frame(i + 1, frame[12], payload, prev);
            prev = Frames.storedHash(rebuilt);
            out.writeBytes(rebuilt);
        }
        return out.toByteArray();
    }

    @Test
    void row04_rechainedRewriteWithTheHeadUntouchedMissesTheCommitPoint() throws IOException {
        standardLog();
        Fixtures.write(logFile, rewriteAndRechain(3, "revision", "revision"));
        // unchanged content re-chained: still valid
        try (AuditLog log = open()) {
            assertThat(log.status().state()).isEqualTo(AuditState.OK);
        }
        byte[] rewritten = rewriteAndRechain(1, "\"agent-1\"", "\"agent-9\"");
        Fixtures.write(logFile, rewritten);
        assertDisabled("the chain does not end at the commit point's tip");
    }

    @Test
    void row05_rechainedRewriteWithARebuiltHeadIsUndetectableLocallyButNotByACheckpoint() throws Exception {
        standardLog();
        CheckpointKey key = CheckpointKey.generate();
        Checkpoint before;
        try (AuditLog log = open()) {
            before = log.checkpoint(key).orElseThrow();
        }
        // Turn the revocation of p1 (record 4) into... an approval of p1 cannot be forged by text
        // replacement of the type byte, so rewrite record 2 to approve another agent instead.
        byte[] rewritten = rewriteAndRechain(1, "\"agent-1\"", "\"agent-9\"");
        Fixtures.write(logFile, rewritten);
        List<Long> o = Fixtures.frameOffsets(rewritten);
        byte[] lastFrame = Arrays.copyOfRange(rewritten, o.get(o.size() - 2).intValue(), rewritten.length);
        Head old = Head.parse(Files.readAllBytes(headFile));
        Fixtures.write(
                headFile,
                new Head(old.logId(), old.sequence(), Frames.storedHash(lastFrame), rewritten.length).encode());
        try (AuditLog log = open()) {
            assertThat(log.status().state()).as("undetectable locally").isEqualTo(AuditState.OK);
            CheckpointVerification v = log.verify(before, Optional.of(key.publicKey()));
            assertThat(v.consistent()).isFalse();
            assertThat(v.diagnostics())
                    .extracting(Diagnostic::code)
                    .containsExactly(ErrorCode.AUDIT_CHECKPOINT_MISMATCH);
        }
    }

    @Test
    void row06_truncatingTheLastThreeRecords() throws IOException {
        standardLog();
        Fixtures.truncate(logFile, offsets().get(3));
        AuditStatus s = assertDisabled("shorter than the commit point");
        assertThat(s.firstBadSequence()).hasValue(4);
    }

    @Test
    void row07_truncatingMidRecord() throws IOException {
        standardLog();
        Fixtures.truncate(logFile, Files.size(logFile) - 17);
        AuditStatus s = assertDisabled("truncated");
        assertThat(s.firstBadSequence()).hasValue(6);
    }

    @Test
    void row08_truncatingToZeroOrIntoTheHeader() throws IOException {
        standardLog();
        byte[] original = Files.readAllBytes(logFile);
        Fixtures.truncate(logFile, 0);
        assertDisabled("shorter than its header");
        Fixtures.write(logFile, Arrays.copyOf(original, 20));
        assertDisabled("shorter than its header");
    }

    @Test
    void row09_reorderingTwoRecords() throws IOException {
        standardLog();
        byte[] log = Files.readAllBytes(logFile);
        List<Long> o = Fixtures.frameOffsets(log);
        byte[] a = Arrays.copyOfRange(log, o.get(1).intValue(), o.get(2).intValue());
        byte[] b = Arrays.copyOfRange(log, o.get(2).intValue(), o.get(3).intValue());
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.writeBytes(Arrays.copyOfRange(log, 0, o.get(1).intValue()));
        out.writeBytes(b);
        out.writeBytes(a);
        out.writeBytes(Arrays.copyOfRange(log, o.get(3).intValue(), log.length));
        Fixtures.write(logFile, out.toByteArray());
        AuditStatus s = assertDisabled("sequence break: expected 2, found 3");
        assertThat(s.firstBadSequence()).hasValue(2);
    }

    @Test
    void row10_duplicatingARecord() throws IOException {
        standardLog();
        byte[] log = Files.readAllBytes(logFile);
        List<Long> o = Fixtures.frameOffsets(log);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.writeBytes(Arrays.copyOfRange(log, 0, o.get(3).intValue()));
        out.writeBytes(Arrays.copyOfRange(log, o.get(2).intValue(), o.get(3).intValue()));
        out.writeBytes(Arrays.copyOfRange(log, o.get(3).intValue(), log.length));
        Fixtures.write(logFile, out.toByteArray());
        assertDisabled("sequence break: expected 4, found 3");
    }

    @Test
    void row11_deletingAMiddleRecordPlainAndRenumbered() throws IOException {
        standardLog();
        byte[] log = Files.readAllBytes(logFile);
        List<Long> o = Fixtures.frameOffsets(log);
        byte[] cut = concat(
                Arrays.copyOfRange(log, 0, o.get(2).intValue()),
                Arrays.copyOfRange(log, o.get(3).intValue(), log.length));
        Fixtures.write(logFile, cut);
        assertDisabled("sequence break: expected 3, found 4");
        // Renumber later frames and fix their CRCs: the chain still breaks.
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.writeBytes(Arrays.copyOfRange(log, 0, o.get(2).intValue()));
        for (int i = 3; i < o.size() - 1; i++) {
            byte[] frame =
                    Arrays.copyOfRange(log, o.get(i).intValue(), o.get(i + 1).intValue());
            ByteBuffer.wrap(frame).putLong(4, i);
            LogBuilder.fixCrc(frame);
            out.writeBytes(frame);
        }
        Fixtures.write(logFile, out.toByteArray());
        assertDisabled("chain hash mismatch at seq 3");
    }

    @Test
    void row12_splicingASameSequenceFrameFromAnotherLog() throws IOException {
        standardLog(tmp.resolve("other"));
        byte[] foreign = frameBytes(2);
        standardLog(tmp.resolve("audit"));
        byte[] own = frameBytes(2);
        assertThat(foreign.length).isEqualTo(own.length);
        assertThat(foreign).isNotEqualTo(own);
        byte[] log = Files.readAllBytes(logFile);
        System.arraycopy(foreign, 0, log, offsets().get(2).intValue(), foreign.length);
        Fixtures.write(logFile, log);
        assertDisabled("chain hash mismatch at seq 3");
    }

    @Test
    void row13_anotherValidLogUnderTheSameHead() throws IOException {
        standardLog(tmp.resolve("other"));
        byte[] foreign = Files.readAllBytes(logFile);
        standardLog(tmp.resolve("audit"));
        Fixtures.write(logFile, foreign);
        assertDisabled("another log was swapped in");
    }

    @Test
    void row14_anotherValidPairIsOkLocallyWithADifferentLogIdThatACheckpointFlags() throws Exception {
        standardLog(tmp.resolve("other"));
        byte[] foreignLog = Files.readAllBytes(logFile);
        byte[] foreignHead = Files.readAllBytes(headFile);
        standardLog(tmp.resolve("audit"));
        String pinned;
        Checkpoint cp;
        CheckpointKey key = CheckpointKey.generate();
        try (AuditLog log = open()) {
            pinned = log.status().logId().orElseThrow();
            cp = log.checkpoint(key).orElseThrow();
        }
        Fixtures.write(logFile, foreignLog);
        Fixtures.write(headFile, foreignHead);
        try (AuditLog log = open()) {
            assertThat(log.status().state()).isEqualTo(AuditState.OK);
            assertThat(log.status().logId()).isPresent().get().isNotEqualTo(pinned);
            CheckpointVerification v = log.verify(cp, Optional.of(key.publicKey()));
            assertThat(v.consistent()).isFalse();
            assertThat(v.diagnostics().get(0).message()).contains("is for log " + pinned);
        }
    }

    @Test
    void row15_olderLogWithTheCurrentHead() throws IOException {
        dir = tmp.resolve("audit");
        logFile = dir.resolve("audit.log");
        headFile = dir.resolve("audit.head");
        byte[] snapshot;
        try (AuditLog log = open()) {
            log.approve(SCOPES.get(0));
            log.approve(SCOPES.get(1));
            snapshot = Files.readAllBytes(logFile);
            log.revoke(SCOPES.get(1));
        }
        Fixtures.write(logFile, snapshot);
        assertDisabled("shorter than the commit point");
    }

    @Test
    void row16_olderLogAndOlderHeadAreUndetectableLocallyButNotByANewerCheckpoint() throws Exception {
        dir = tmp.resolve("audit");
        logFile = dir.resolve("audit.log");
        headFile = dir.resolve("audit.head");
        CheckpointKey key = CheckpointKey.generate();
        byte[] oldLog;
        byte[] oldHead;
        Checkpoint newer;
        try (AuditLog log = open()) {
            log.approve(SCOPES.get(1));
            oldLog = Files.readAllBytes(logFile);
            oldHead = Files.readAllBytes(headFile);
            log.revoke(SCOPES.get(1));
            newer = log.checkpoint(key).orElseThrow();
        }
        Fixtures.write(logFile, oldLog);
        Fixtures.write(headFile, oldHead);
        try (AuditLog log = open()) {
            assertThat(log.status().state()).as("undetectable locally").isEqualTo(AuditState.OK);
            assertThat(log.isTrusted(SCOPES.get(1)))
                    .as("the revocation was rolled back")
                    .isTrue();
            CheckpointVerification v = log.verify(newer, Optional.of(key.publicKey()));
            assertThat(v.consistent()).isFalse();
            assertThat(v.diagnostics().get(0).message()).contains("truncated or rolled back");
        }
    }

    @Test
    void row17a_headRolledBackByOneOverARevocationReCommitsIt() throws IOException {
        dir = tmp.resolve("audit");
        logFile = dir.resolve("audit.log");
        headFile = dir.resolve("audit.head");
        byte[] headBefore;
        try (AuditLog log = open()) {
            log.approve(SCOPES.get(1));
            headBefore = Files.readAllBytes(headFile);
            log.revoke(SCOPES.get(1));
        }
        Fixtures.write(headFile, headBefore);
        try (AuditLog log = open()) {
            AuditStatus s = log.status();
            assertThat(s.state()).isEqualTo(AuditState.DEGRADED);
            assertThat(s.writable()).isTrue();
            assertThat(s.committedSequence()).isEqualTo(2);
            assertThat(s.diagnostics().get(0).code()).isEqualTo(ErrorCode.AUDIT_TAIL_QUARANTINED);
            assertThat(s.diagnostics().get(0).message())
                    .contains("revocation (seq 2)")
                    .contains("re-committed");
            assertThat(log.isTrusted(SCOPES.get(1))).isFalse();
        }
        try (AuditLog log = open()) {
            assertThat(log.status().state()).isEqualTo(AuditState.OK);
            assertThat(log.status().committedSequence()).isEqualTo(2);
            assertThat(log.isTrusted(SCOPES.get(1))).isFalse();
        }
    }

    @Test
    void row17b_headRolledBackByOneOverAnApprovalDropsIt() throws IOException {
        dir = tmp.resolve("audit");
        logFile = dir.resolve("audit.log");
        headFile = dir.resolve("audit.head");
        byte[] headBefore;
        long lengthBefore;
        try (AuditLog log = open()) {
            log.approve(SCOPES.get(0));
            headBefore = Files.readAllBytes(headFile);
            lengthBefore = Files.size(logFile);
            log.approve(SCOPES.get(1));
        }
        Fixtures.write(headFile, headBefore);
        try (AuditLog log = open()) {
            AuditStatus s = log.status();
            assertThat(s.state()).isEqualTo(AuditState.DEGRADED);
            assertThat(s.committedSequence()).isEqualTo(1);
            assertThat(s.diagnostics().get(0).message())
                    .contains("approve record (seq 2)")
                    .contains("grants nothing");
            assertThat(log.isTrusted(SCOPES.get(0))).isTrue();
            assertThat(log.isTrusted(SCOPES.get(1))).isFalse();
        }
        assertThat(Files.size(logFile)).isEqualTo(lengthBefore);
        assertQuarantineFiles(1);
    }

    private void assertQuarantineFiles(int count) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            List<Path> torn = s.filter(p -> p.getFileName().toString().startsWith("audit.log.torn-"))
                    .toList();
            assertThat(torn).hasSize(count);
            for (Path p : torn) {
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(p)))
                        .isEqualTo("rw-------");
            }
        }
    }

    @Test
    void row18_headRolledBackByTwoOrMore() throws IOException {
        dir = tmp.resolve("audit");
        logFile = dir.resolve("audit.log");
        headFile = dir.resolve("audit.head");
        byte[] headBefore;
        try (AuditLog log = open()) {
            log.approve(SCOPES.get(0));
            headBefore = Files.readAllBytes(headFile);
            log.approve(SCOPES.get(1));
            log.revoke(SCOPES.get(1));
        }
        Fixtures.write(headFile, headBefore);
        AuditStatus s = assertDisabled("2 complete frames beyond the commit point");
        assertThat(s.firstBadSequence()).hasValue(2);
    }

    @Test
    void row19_aForgedCorrectlyChainedApprovalBeyondTheHeadIsQuarantined() throws Exception {
        standardLog();
        Head h = Head.parse(Files.readAllBytes(headFile));
        TrustScope forged = Fixtures.prompt(42);
        byte[] frame = Frames.frame(
                h.sequence() + 1,
                RecordType.APPROVE,
                Payloads.encode(new AuditEvent.Approved(forged), Instant.parse("2026-03-01T11:00:00Z")),
                h.tip());
        Fixtures.append(logFile, frame);
        try (AuditLog log = open()) {
            assertThat(log.status().state()).isEqualTo(AuditState.DEGRADED);
            assertThat(log.isTrusted(forged)).isFalse();
            assertStandardTrust(log);
        }
        assertThat(Files.size(logFile)).isEqualTo(h.length());
        assertQuarantineFiles(1);
    }

    @Test
    void row20_halfAFrameBeyondTheHeadIsQuarantinedByTheWriterOnly() throws Exception {
        standardLog();
        Head h = Head.parse(Files.readAllBytes(headFile));
        byte[] frame = Frames.frame(
                h.sequence() + 1,
                RecordType.APPROVE,
                Payloads.encode(new AuditEvent.Approved(Fixtures.prompt(7)), Instant.parse("2026-03-01T11:00:00Z")),
                h.tip());
        Fixtures.append(logFile, Arrays.copyOf(frame, frame.length / 2));
        byte[] torn = Files.readAllBytes(logFile);
        try (AuditLog reader = AuditLog.openReadOnly(dir)) {
            assertThat(reader.status().state()).isEqualTo(AuditState.OK);
            assertStandardTrust(reader);
        }
        assertThat(Files.readAllBytes(logFile)).as("readers never repair").isEqualTo(torn);
        try (AuditLog log = open()) {
            assertThat(log.status().state()).isEqualTo(AuditState.DEGRADED);
            assertThat(log.status().diagnostics().get(0).code()).isEqualTo(ErrorCode.AUDIT_TAIL_QUARANTINED);
            assertStandardTrust(log);
            assertThat(log.approve(Fixtures.prompt(7)).isCommitted()).isTrue();
        }
        assertQuarantineFiles(1);
        try (AuditLog log = open()) {
            assertThat(log.status().state()).isEqualTo(AuditState.OK);
            assertThat(log.isTrusted(Fixtures.prompt(7))).isTrue();
        }
    }

    @Test
    void row21_zerosOrGarbageBeyondTheHead() throws IOException {
        standardLog();
        long committed = Files.size(logFile);
        Fixtures.append(logFile, new byte[4096]);
        try (AuditLog log = open()) {
            assertThat(log.status().state()).isEqualTo(AuditState.DEGRADED);
            assertStandardTrust(log);
        }
        assertThat(Files.size(logFile)).isEqualTo(committed);
        byte[] garbage = new byte[100];
        new Random(21).nextBytes(garbage);
        Fixtures.append(logFile, garbage);
        try (AuditLog log = open()) {
            assertThat(log.status().state()).isEqualTo(AuditState.DEGRADED);
            assertStandardTrust(log);
        }
        byte[] tooMuch = new byte[Frames.MAX_FRAME + 1];
        new Random(22).nextBytes(tooMuch);
        Fixtures.append(logFile, tooMuch);
        AuditStatus s = assertDisabled("more than one frame");
        assertThat(s.firstBadSequence()).hasValue(7);
    }

    @Test
    void row23_simulatedPowerLossWithTornWritesNeverDisables() throws IOException {
        // Every state a power loss can leave while appending: the committed log plus any prefix of
        // the next frame (or zeros over it), under the old head; or the whole frame under the old
        // or the new head. The head file is only ever replaced whole (rename).
        LogBuilder b = new LogBuilder(23);
        for (int i = 0; i < 5; i++) {
            b.add(i == 3 ? new AuditEvent.Revoked(SCOPES.get(1)) : new AuditEvent.Approved(SCOPES.get(i)));
        }
        dir = tmp.resolve("audit");
        logFile = dir.resolve("audit.log");
        headFile = dir.resolve("audit.head");
        Random random = new Random(23);
        int states = 0;
        for (int n = 0; n < 5; n++) {
            byte[] committedLog = b.logUpTo(n);
            byte[] next = b.frames.get(n);
            for (int round = 0; round < 12; round++) {
                int cut = random.nextInt(next.length);
                byte[] tail = round % 3 == 0 ? new byte[cut] : Arrays.copyOf(next, cut);
                b.writeTo(dir, concat(committedLog, tail), b.headAt(n));
                assertRecovered(n, n);
                states++;
            }
            b.writeTo(dir, b.logUpTo(n + 1), b.headAt(n));
            assertRecovered(n, n + 1);
            b.writeTo(dir, b.logUpTo(n + 1), b.headAt(n + 1));
            assertRecovered(n + 1, n + 1);
            states += 2;
        }
        assertThat(states).isEqualTo(70);
    }

    private void assertRecovered(int committed, int atMost) {
        try (AuditLog log = open()) {
            AuditStatus s = log.status();
            assertThat(s.state()).as(s.toString()).isIn(AuditState.OK, AuditState.DEGRADED);
            assertThat(s.committedSequence()).isBetween((long) committed, (long) atMost);
        }
    }

    @Test
    void row31_headDeletedOrGarbage() throws IOException {
        standardLog();
        byte[] head = Files.readAllBytes(headFile);
        Files.delete(headFile);
        assertDisabled("commit point is missing but the log holds records");
        Fixtures.write(headFile, "garbage\n".getBytes(StandardCharsets.US_ASCII));
        assertDisabled("the commit point is unreadable");
        Fixtures.write(headFile, head);
        try (AuditLog log = open()) {
            assertThat(log.status().state()).isEqualTo(AuditState.OK);
        }
    }

    @Test
    void row32_logDeletedHeadKept() throws IOException {
        standardLog();
        Files.delete(logFile);
        assertDisabled("the log is missing but its commit point exists");
    }

    @Test
    void row33_bothDeletedIsAnEmptyLogThatTrustsNothing() throws IOException {
        standardLog();
        Files.delete(logFile);
        Files.delete(headFile);
        try (AuditLog log = open()) {
            assertThat(log.status().state()).isEqualTo(AuditState.OK);
            assertThat(log.status().committedSequence()).isZero();
            for (TrustScope scope : SCOPES) {
                assertThat(log.isTrusted(scope)).isFalse();
            }
        }
    }

    @Test
    void row34_hugeOrNegativeLengthFields() throws IOException {
        standardLog();
        long at = offsets().get(1);
        byte[] log = Files.readAllBytes(logFile);
        ByteBuffer.wrap(log).putInt((int) at, 0x7FFFFFFF);
        Fixtures.write(logFile, log);
        assertDisabled("length field out of range");
        ByteBuffer.wrap(log).putInt((int) at, -5);
        Fixtures.write(logFile, log);
        assertDisabled("length field out of range");
    }

    @Test
    void row35_unknownVersionTypeOrSchemaVersion() throws IOException {
        dir = tmp.resolve("audit");
        logFile = dir.resolve("audit.log");
        headFile = dir.resolve("audit.head");
        LogBuilder b = new LogBuilder(35).add(new AuditEvent.Approved(SCOPES.get(0)));
        byte[] log = b.log();
        log[9] = 2; // header version 2, CRC fixed
        ByteBuffer.wrap(log).putInt(28, Frames.crc(log, 0, 28));
        b.writeTo(dir, log, b.head());
        assertDisabled("unknown log format version 2");

        LogBuilder t = new LogBuilder(35).add(new AuditEvent.Approved(SCOPES.get(0)));
        // 12 is the first type byte schema version 1 does not define (1-5 trust and evidence, 6-9
        // settlements, resolutions and workflow plans, 10 durable workflow changes, 11 late answers).
        t.addRaw(
                12,
                t.frames.get(0).length > 0
                        ? Payloads.encode(new AuditEvent.Approved(SCOPES.get(3)), Instant.EPOCH)
                        : null);
        t.writeTo(dir, t.log(), t.head());
        AuditStatus s = assertDisabled("unknown record type 12");
        assertThat(s.firstBadSequence()).hasValue(2);

        LogBuilder v = new LogBuilder(35);
        String payload = new String(
                        Payloads.encode(new AuditEvent.Approved(SCOPES.get(0)), Instant.EPOCH), StandardCharsets.UTF_8)
                .replace("\"v\":1", "\"v\":2");
        v.addRaw(RecordType.APPROVE.code, payload.getBytes(StandardCharsets.UTF_8));
        v.writeTo(dir, v.log(), v.head());
        assertDisabled("schema version is not 1");
    }

    @Test
    void row36_duplicateJsonKeysAreNeverLastWins() throws IOException {
        dir = tmp.resolve("audit");
        LogBuilder b = new LogBuilder(36);
        String good = new String(
                Payloads.encode(new AuditEvent.Approved(SCOPES.get(0)), Instant.EPOCH), StandardCharsets.UTF_8);
        String duplicated = good.replace("{\"recordedAt\"", "{\"recordedAt\":\"2026-01-01T00:00:00Z\",\"recordedAt\"");
        assertThat(duplicated).isNotEqualTo(good);
        b.addRaw(RecordType.APPROVE.code, duplicated.getBytes(StandardCharsets.UTF_8));
        b.writeTo(dir, b.log(), b.head());
        assertDisabled("keys are not in strictly ascending order");
    }

    @Test
    void row37_valuesOutsideTheCanonicalSubsetAreRejectedAndNothingIsWritten() throws IOException {
        standardLog();
        byte[] before = Files.readAllBytes(logFile);
        try (AuditLog log = open()) {
            assertThatThrownBy(() -> log.repair("lone \ud800")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> log.repair("tab\there")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(
                            () -> new AuditEvent.PolicyChanged("", dev.skillgate.model.Sha256Digest.hash(new byte[0])))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> CanonicalJson.write(java.util.Map.of("f", 1.5)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CanonicalJson.write(java.util.Map.of("n", 1L << 53)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(Files.readAllBytes(logFile)).isEqualTo(before);
    }

    @Test
    void row38_symlinksSwappedInForTheLogOrTheHead() throws IOException {
        standardLog();
        Path real = tmp.resolve("elsewhere.log");
        Files.move(logFile, real);
        Files.createSymbolicLink(logFile, real);
        assertDisabled("audit.log is a symbolic link");
        Files.delete(logFile);
        Files.move(real, logFile);
        Path realHead = tmp.resolve("elsewhere.head");
        Files.move(headFile, realHead);
        Files.createSymbolicLink(headFile, realHead);
        assertDisabled("audit.head is a symbolic link");
    }

    @Test
    void row39_theAuditDirectoryReplacedByASymlink() throws IOException {
        standardLog(tmp.resolve("real"));
        Path link = tmp.resolve("audit");
        Files.createSymbolicLink(link, tmp.resolve("real"));
        dir = link;
        assertDisabled("the audit directory is a symbolic link");
    }

    @Test
    void row38b_aSymlinkedLockFileIsNeverOpened() throws IOException {
        standardLog();
        Path target = tmp.resolve("elsewhere.lock");
        Files.delete(dir.resolve("audit.lock"));
        Files.createSymbolicLink(dir.resolve("audit.lock"), target);
        assertDisabled("audit.lock is a symbolic link or not a regular file");
        assertThat(target).doesNotExist();
    }

    @Test
    void row40_widenedPermissionsAreTightenedOrDisable() throws IOException {
        standardLog();
        Files.setPosixFilePermissions(logFile, PosixFilePermissions.fromString("rw-r--r--"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        try (AuditLog log = open()) {
            assertThat(log.status().state()).isEqualTo(AuditState.DEGRADED);
            assertThat(log.status().diagnostics()).extracting(Diagnostic::code).contains(ErrorCode.AUDIT_PERMISSIONS);
            assertStandardTrust(log);
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(logFile)))
                .isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)))
                .isEqualTo("rwx------");
        Files.setPosixFilePermissions(logFile, PosixFilePermissions.fromString("rw-rw-r--"));
        assertDisabled("writable by group or others", ErrorCode.AUDIT_PERMISSIONS);
        Files.setPosixFilePermissions(logFile, PosixFilePermissions.fromString("rw-------"));
        Files.setPosixFilePermissions(headFile, PosixFilePermissions.fromString("rw-rw-rw-"));
        assertDisabled("writable by group or others", ErrorCode.AUDIT_PERMISSIONS);
        Files.setPosixFilePermissions(headFile, PosixFilePermissions.fromString("rw-------"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxr-x"));
        assertDisabled("cannot be vouched for", ErrorCode.AUDIT_PERMISSIONS);
        // The operator's repair tightens the directory and starts over.
        try (AuditLog log = open()) {
            assertThat(log.repair("directory was group-writable").isCommitted()).isTrue();
            assertThat(log.status().state()).isEqualTo(AuditState.OK);
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)))
                .isEqualTo("rwx------");
    }

    @Test
    void row41_anUnreadableLogDisablesWithoutBlockingStartUp() throws IOException {
        assumeFalse(Fixtures.runningAsRoot(), "row 41 skipped: root ignores file modes, so chmod 000 is readable");
        standardLog();
        Files.setPosixFilePermissions(logFile, PosixFilePermissions.fromString("---------"));
        try {
            try (AuditLog log = open()) {
                assertThat(log.status().state()).isEqualTo(AuditState.DISABLED);
                assertThat(log.status().diagnostics().get(0).code()).isEqualTo(ErrorCode.AUDIT_IO);
                for (TrustScope scope : SCOPES) {
                    assertThat(log.isTrusted(scope)).isFalse();
                }
            }
        } finally {
            Files.setPosixFilePermissions(logFile, PosixFilePermissions.fromString("rw-------"));
        }
    }

    @Test
    void row42_aForeignOwnerDisables() throws IOException {
        assumeTrue(Fixtures.runningAsRoot(), "row 42 skipped: only root can give a file to another uid");
        standardLog();
        Files.setAttribute(logFile, "unix:uid", 12345, LinkOption.NOFOLLOW_LINKS);
        assertDisabled("owned by another user", ErrorCode.AUDIT_PERMISSIONS);
    }

    @Test
    void row43_aClockSetBackwardsIsFlaggedNotFatal() throws IOException {
        dir = tmp.resolve("audit");
        try (AuditLog log = open()) {
            log.approve(SCOPES.get(0));
            clock.set(Instant.parse("2020-01-01T00:00:00Z"));
            assertThat(log.approve(SCOPES.get(3)).isCommitted()).isTrue();
        }
        try (AuditLog log = open()) {
            assertThat(log.status().state()).isEqualTo(AuditState.OK);
            List<AuditRecord> r = log.records(0, 10);
            assertThat(r).extracting(AuditRecord::clockRegression).containsExactly(false, true);
            assertThat(log.isTrusted(SCOPES.get(3))).isTrue();
        }
    }

    @Test
    void row44_aClockFarInTheFutureThenCorrected() throws IOException {
        dir = tmp.resolve("audit");
        try (AuditLog log = open()) {
            clock.set(Instant.parse("9999-12-31T00:00:00Z"));
            assertThat(log.approve(SCOPES.get(0)).isCommitted()).isTrue();
            clock.set(Instant.parse("2026-03-02T00:00:00Z"));
            assertThat(log.approve(SCOPES.get(3)).isCommitted()).isTrue();
        }
        try (AuditLog log = open()) {
            assertThat(log.status().state()).isEqualTo(AuditState.OK);
            assertThat(log.records(0, 10))
                    .extracting(AuditRecord::clockRegression)
                    .containsExactly(false, true);
            assertThat(log.isTrusted(SCOPES.get(0))).isTrue();
            assertThat(log.isTrusted(SCOPES.get(3))).isTrue();
        }
    }

    @Test
    void row45_aConcurrentReaderAlwaysSeesACommittedPrefix() throws Exception {
        dir = tmp.resolve("audit");
        AtomicReference<String> failure = new AtomicReference<>();
        try (AuditLog writer = open()) {
            Thread reader = new Thread(() -> {
                long last = 0;
                for (int i = 0; i < 200 && failure.get() == null; i++) {
                    try (AuditLog r = AuditLog.openReadOnly(dir)) {
                        AuditStatus s = r.status();
                        if (s.state() == AuditState.DISABLED || s.committedSequence() < last) {
                            failure.set(s.toString());
                        }
                        last = s.committedSequence();
                    }
                }
            });
            reader.start();
            for (int i = 0; i < 60; i++) {
                assertThat(writer.approve(Fixtures.prompt(100 + i)).isCommitted())
                        .isTrue();
            }
            reader.join();
        }
        assertThat(failure.get()).isNull();
    }

    @Test
    void row46_aLargeLogVerifiesInTheBackgroundWithoutTrustUntilDone() throws IOException {
        dir = tmp.resolve("audit");
        LogBuilder b = new LogBuilder(46);
        for (int i = 0; i < 100_000; i++) {
            b.add(new AuditEvent.Approved(Fixtures.prompt(i)));
        }
        b.writeTo(dir, b.log(), b.head());
        long started = System.nanoTime();
        try (AuditLog log = AuditLog.open(
                AuditLogOptions.builder(dir).openWait(Duration.ZERO).build())) {
            long openMillis = (System.nanoTime() - started) / 1_000_000;
            AuditStatus first = log.status();
            if (first.state() == AuditState.VERIFYING) {
                assertThat(log.isTrusted(Fixtures.prompt(5))).isFalse();
                assertThat(first.diagnostics().get(0).code()).isEqualTo(ErrorCode.AUDIT_VERIFYING);
            }
            assertThat(openMillis)
                    .as("open returns without waiting for verification")
                    .isLessThan(5_000);
            AuditStatus done = log.awaitReady(Duration.ofSeconds(60));
            assertThat(done.state()).isEqualTo(AuditState.OK);
            assertThat(done.committedSequence()).isEqualTo(100_000);
            assertThat(log.isTrusted(Fixtures.prompt(5))).isTrue();
            assertThat(log.isTrusted(Fixtures.prompt(99_999))).isTrue();
        }
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** A settable clock for the clock rows. */
    static final class MutableClock extends Clock {
        private volatile Instant now;

        MutableClock(Instant now) {
            this.now = now;
        }

        void set(Instant instant) {
            now = instant;
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            Instant t = now;
            now = now.plusMillis(1);
            return t;
        }
    }
}
