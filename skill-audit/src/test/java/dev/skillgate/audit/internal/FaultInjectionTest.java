package dev.skillgate.audit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AppendResult;
import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.AuditStatus;
import dev.skillgate.audit.Fixtures;
import dev.skillgate.model.ErrorCode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rows 28–30: a full disk or failing writes, injected through the {@link FileOps} seam because a
 * small tmpfs cannot be mounted here. Real files throughout; only the failing call is simulated.
 */
class FaultInjectionTest {
    @TempDir
    Path tmp;

    /** Real file operations that fail on demand with the error a full disk gives. */
    static final class FaultyOps implements FileOps {
        volatile int failWriteNumber = -1;
        volatile boolean failAllWrites;
        volatile boolean partial;
        private int writes;

        void failNthWrite(int n, boolean partialWrite) {
            writes = 0;
            failWriteNumber = n;
            partial = partialWrite;
        }

        void heal() {
            failWriteNumber = -1;
            failAllWrites = false;
        }

        @Override
        public void write(FileChannel channel, ByteBuffer src, long position) throws IOException {
            writes++;
            if (failAllWrites || writes == failWriteNumber) {
                if (partial) {
                    ByteBuffer half = src.duplicate();
                    half.limit(half.position() + half.remaining() / 2);
                    FileOps.REAL.write(channel, half, position);
                }
                throw new IOException("No space left on device");
            }
            FileOps.REAL.write(channel, src, position);
        }

        @Override
        public void force(FileChannel channel, boolean metadata) throws IOException {
            FileOps.REAL.force(channel, metadata);
        }

        @Override
        public void move(Path from, Path to) throws IOException {
            FileOps.REAL.move(from, to);
        }

        @Override
        public void syncDirectory(Path dir) throws IOException {
            FileOps.REAL.syncDirectory(dir);
        }
    }

    private Engine open(Path dir, FileOps ops) {
        return Engine.open(dir, Clock.systemUTC(), false, Duration.ofSeconds(30), ops);
    }

    @Test
    void row28_diskFullWhileWritingTheHeadAfterTheFrameWasDurable() throws Exception {
        Path dir = tmp.resolve("audit");
        FaultyOps ops = new FaultyOps();
        try (Engine e = open(dir, ops)) {
            assertThat(e.approve(Fixtures.prompt(1)).isCommitted()).isTrue();
            ops.failNthWrite(2, false); // 1 = the frame, 2 = the head's temporary file
            ops.failAllWrites = false;
            AppendResult r = e.approve(Fixtures.prompt(2));
            assertThat(r).isInstanceOf(AppendResult.Failed.class);
            assertThat(((AppendResult.Failed) r).reason().code()).isEqualTo(ErrorCode.AUDIT_IO);
            assertThat(e.isTrusted(Fixtures.prompt(1))).isTrue();
            assertThat(e.isTrusted(Fixtures.prompt(2))).isFalse();
            assertThat(e.status().committedSequence()).isEqualTo(1);
        }
        ops.heal();
        try (Engine e = open(dir, FileOps.REAL)) {
            assertThat(e.status().state()).isIn(AuditState.OK, AuditState.DEGRADED);
            assertThat(e.isTrusted(Fixtures.prompt(1))).isTrue();
            assertThat(e.isTrusted(Fixtures.prompt(2))).isFalse();
            assertThat(e.approve(Fixtures.prompt(3)).isCommitted()).isTrue();
        }
        assertThat(dir.resolve(Engine.HEAD_TMP)).doesNotExist();
    }

    @Test
    void row28_diskFullMidFrameLeavesATornTailThatTheNextOpenQuarantines() throws Exception {
        Path dir = tmp.resolve("audit");
        FaultyOps ops = new FaultyOps();
        try (Engine e = open(dir, ops)) {
            e.approve(Fixtures.prompt(1));
            ops.failAllWrites = true;
            ops.partial = true;
            assertThat(e.approve(Fixtures.prompt(2))).isInstanceOf(AppendResult.Failed.class);
            AuditStatus s = e.status();
            assertThat(s.state()).isEqualTo(AuditState.DEGRADED);
            assertThat(s.writable())
                    .as("the quarantine could not be written either")
                    .isFalse();
            assertThat(e.isTrusted(Fixtures.prompt(1))).isTrue();
            AppendResult refused = e.approve(Fixtures.prompt(3));
            assertThat(refused).isInstanceOf(AppendResult.Refused.class);
        }
        ops.heal();
        try (Engine e = open(dir, FileOps.REAL)) {
            assertThat(e.status().state()).isEqualTo(AuditState.DEGRADED);
            assertThat(e.status().diagnostics().get(0).code()).isEqualTo(ErrorCode.AUDIT_TAIL_QUARANTINED);
            assertThat(e.isTrusted(Fixtures.prompt(1))).isTrue();
            assertThat(e.status().writable()).isTrue();
        }
    }

    @Test
    void row29_diskFullDuringOpenTimeRecoveryDegradesWithoutThrowing() throws Exception {
        Path dir = tmp.resolve("audit");
        LogBuilder b = new LogBuilder(29)
                .add(new AuditEvent.Approved(Fixtures.prompt(1)))
                .add(new AuditEvent.Approved(Fixtures.prompt(2)));
        byte[] log = b.log();
        b.writeTo(dir, Arrays.copyOf(log, log.length - 20), b.headAt(1)); // torn second frame
        FaultyOps ops = new FaultyOps();
        ops.failAllWrites = true;
        try (Engine e = open(dir, ops)) {
            AuditStatus s = e.status();
            assertThat(s.state()).isEqualTo(AuditState.DEGRADED);
            assertThat(s.writable()).isFalse();
            assertThat(s.diagnostics().get(0).code()).isEqualTo(ErrorCode.AUDIT_IO);
            assertThat(e.isTrusted(Fixtures.prompt(1)))
                    .as("trust from the verified prefix")
                    .isTrue();
            assertThat(e.isTrusted(Fixtures.prompt(2))).isFalse();
        }
        // A full disk at the very first open: no log can be created, nothing is trusted, no throw.
        try (Engine e = open(tmp.resolve("fresh"), ops)) {
            assertThat(e.status().state()).isEqualTo(AuditState.DEGRADED);
            assertThat(e.status().writable()).isFalse();
        }
    }

    @Test
    void row30_aRevocationThatCannotBePersistedStillAppliesInMemory() throws Exception {
        Path dir = tmp.resolve("audit");
        FaultyOps ops = new FaultyOps();
        try (Engine e = open(dir, ops)) {
            e.approve(Fixtures.prompt(1));
            ops.failNthWrite(1, false);
            AppendResult r = e.revoke(Fixtures.prompt(1));
            assertThat(r).isInstanceOf(AppendResult.Failed.class);
            assertThat(e.isTrusted(Fixtures.prompt(1))).isFalse();
            assertThat(e.status().state()).isEqualTo(AuditState.DEGRADED);
            assertThat(e.list().get(0).status()).isEqualTo(dev.skillgate.audit.TrustStatus.REVOKED);
        }
        try (Engine e = open(dir, FileOps.REAL)) {
            assertThat(e.isTrusted(Fixtures.prompt(1)))
                    .as("the revocation never reached the disk; only the live handle honoured it")
                    .isTrue();
        }
    }

    @Test
    void aStaleHeadTemporaryFileIsIgnoredAndRemoved() throws Exception {
        Path dir = tmp.resolve("audit");
        try (Engine e = open(dir, FileOps.REAL)) {
            e.approve(Fixtures.prompt(1));
        }
        Files.write(dir.resolve(Engine.HEAD_TMP), "skillgate-audit/v1/head\nlog 00".getBytes());
        try (Engine e = open(dir, FileOps.REAL)) {
            assertThat(e.status().state()).isEqualTo(AuditState.OK);
            assertThat(e.isTrusted(Fixtures.prompt(1))).isTrue();
        }
        assertThat(dir.resolve(Engine.HEAD_TMP)).doesNotExist();
    }
}
