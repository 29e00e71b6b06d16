package dev.skillgate.audit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AppendResult;
import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.Checkpoint;
import dev.skillgate.audit.CheckpointKey;
import dev.skillgate.audit.Fixtures;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rows 24–27 of the adversarial table: single writer across processes and within one JVM, and the
 * two lock traps of {@code FileLock} — the JDK behaviour is demonstrated first, then shown not to
 * affect the audit log.
 */
class LockTrapsTest {
    @TempDir
    Path tmp;

    private int probe(String mode, Path path) throws Exception {
        return Fixtures.await(Fixtures.startJvm(LockProbe.class, mode, path.toString()));
    }

    @Test
    void row24_aSecondProcessGetsAReadOnlyHandleAndTheFirstIsUnaffected() throws Exception {
        Path dir = tmp.resolve("audit");
        try (AuditLog log = Fixtures.open(dir)) {
            assertThat(probe("audit", dir)).as("second process refused").isEqualTo(3);
            assertThat(log.approve(Fixtures.prompt(1)).isCommitted()).isTrue();
        }
        assertThat(probe("audit", dir)).as("free again after close").isZero();

        Process holder = Fixtures.startJvm(LockProbe.class, "hold", dir.toString());
        BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
        assertThat(out.readLine()).isEqualTo("ready");
        try (AuditLog log = Fixtures.open(dir)) {
            assertThat(log.status().writable()).isFalse();
            assertThat(log.status().diagnostics()).extracting(Diagnostic::code).contains(ErrorCode.AUDIT_LOCKED);
            assertThat(log.isTrusted(Fixtures.prompt(1)))
                    .as("read-only handles still answer")
                    .isTrue();
            AppendResult refused = log.approve(Fixtures.prompt(2));
            assertThat(((AppendResult.Refused) refused).reason().code()).isEqualTo(ErrorCode.AUDIT_LOCKED);
            // A revocation that cannot be written still applies to this handle.
            AppendResult revoke = log.revoke(Fixtures.prompt(1));
            assertThat(((AppendResult.Refused) revoke).reason().code()).isEqualTo(ErrorCode.AUDIT_LOCKED);
            assertThat(log.isTrusted(Fixtures.prompt(1))).isFalse();
        }
        holder.getOutputStream().close();
        assertThat(Fixtures.await(holder)).as("the holder could still append").isZero();
    }

    @Test
    void row25_trapDemonstrated_closingAnotherChannelToTheLockedFileDropsTheLock() throws Exception {
        Path file = tmp.resolve("demo.lock");
        try (FileChannel holder = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            FileLock lock = holder.tryLock();
            assertThat(lock).isNotNull();
            assertThat(probe("raw", file)).isEqualTo(3);
            FileChannel.open(file, StandardOpenOption.READ).close();
            assertThat(lock.isValid())
                    .as("the JDK still believes the lock is held")
                    .isTrue();
            assertThat(probe("raw", file))
                    .as("but another process can now take it")
                    .isZero();
        }
    }

    @Test
    void row25_readersInTheWritersJvmNeverReleaseItsLock() throws Exception {
        Path dir = tmp.resolve("audit");
        try (AuditLog log = Fixtures.open(dir)) {
            log.approve(Fixtures.prompt(1));
            Checkpoint cp = log.checkpoint(CheckpointKey.generate()).orElseThrow();
            for (int i = 0; i < 20; i++) {
                try (AuditLog reader = AuditLog.openReadOnly(dir)) {
                    assertThat(reader.status().state()).isEqualTo(AuditState.OK);
                }
                assertThat(log.records(0, 10)).hasSize(1);
                assertThat(log.verify(cp, Optional.empty()).consistent()).isTrue();
            }
            try (AuditLog second = Fixtures.open(dir)) {
                assertThat(second.status().writable()).isFalse();
            }
            assertThat(probe("audit", dir))
                    .as("still refused after reader activity")
                    .isEqualTo(3);
            assertThat(log.approve(Fixtures.prompt(2)).isCommitted()).isTrue();
        }
    }

    @Test
    void row26_trapDemonstrated_anInterruptDuringChannelIoDropsTheLock() throws Exception {
        Path file = tmp.resolve("demo.lock");
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = ch.tryLock();
        assertThat(probe("raw", file)).isEqualTo(3);
        Thread.currentThread().interrupt();
        try {
            ch.write(ByteBuffer.wrap(new byte[] {1}));
            throw new AssertionError("expected ClosedByInterruptException");
        } catch (ClosedByInterruptException expected) {
            assertThat(Thread.interrupted()).isTrue();
        }
        assertThat(lock.isValid()).isFalse();
        assertThat(probe("raw", file)).as("another process takes the lock").isZero();
    }

    @Test
    void row26_interruptedCallersNeverCloseTheLogOrLoseTheLock() throws Exception {
        Path dir = tmp.resolve("audit");
        try (AuditLog log = Fixtures.open(dir)) {
            Thread.currentThread().interrupt();
            AppendResult r = log.approve(Fixtures.prompt(1));
            assertThat(Thread.interrupted())
                    .as("the caller's interrupt is kept")
                    .isTrue();
            assertThat(r.isCommitted()).isTrue();

            AtomicBoolean stop = new AtomicBoolean();
            Thread appender = Thread.currentThread();
            Thread interrupter = new Thread(() -> {
                while (!stop.get()) {
                    appender.interrupt();
                    Thread.onSpinWait();
                }
            });
            interrupter.start();
            int committed = 0;
            try {
                for (int i = 0; i < 40; i++) {
                    if (log.approve(Fixtures.prompt(100 + i)).isCommitted()) {
                        committed++;
                    }
                }
            } finally {
                stop.set(true);
                joinUninterruptibly(interrupter);
            }
            assertThat(committed).isEqualTo(40);
            assertThat(log.status().state()).isEqualTo(AuditState.OK);
            assertThat(probe("audit", dir)).as("lock still held").isEqualTo(3);
        }
        try (AuditLog log = Fixtures.open(dir)) {
            assertThat(log.status().committedSequence()).isEqualTo(41);
        }
    }

    @Test
    void row26_anInterruptReachingTheWriterThreadFailsClosedAndKeepsTheLock() throws Exception {
        Path dir = tmp.resolve("audit");
        int[] committedTotal = {0};
        try (Engine engine = Engine.open(dir, Clock.systemUTC(), false, Duration.ofSeconds(30))) {
            engine.approve(Fixtures.prompt(1));
            Thread worker = engine.workerThread();
            AtomicBoolean stop = new AtomicBoolean();
            Thread interrupter = new Thread(() -> {
                java.util.Random random = new java.util.Random(26);
                while (!stop.get()) {
                    worker.interrupt();
                    try {
                        Thread.sleep(random.nextInt(40));
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            interrupter.start();
            int committed = 0;
            int failed = 0;
            try {
                for (int i = 0; i < 40; i++) {
                    AppendResult r = engine.approve(Fixtures.prompt(100 + i));
                    if (r.isCommitted()) {
                        committed++;
                    } else {
                        failed++;
                        Diagnostic reason =
                                r instanceof AppendResult.Failed f ? f.reason() : ((AppendResult.Refused) r).reason();
                        assertThat(reason.code()).isEqualTo(ErrorCode.AUDIT_IO);
                    }
                }
            } finally {
                stop.set(true);
                interrupter.join();
            }
            assertThat(committed + failed).isEqualTo(40);
            assertThat(committed)
                    .as("the handle re-verifies and carries on after each fault")
                    .isPositive();
            assertThat(engine.status().writable()).isTrue();
            assertThat(engine.lockHeld()).isTrue();
            assertThat(probe("audit", dir))
                    .as("lock still held: it is never touched by I/O")
                    .isEqualTo(3);
            System.out.printf(
                    "worker interrupts: %d committed, %d failed closed, writable at the end: %s%n",
                    committed, failed, engine.status().writable());
            committedTotal[0] = committed;
            long seq = engine.status().committedSequence();
            assertThat(seq).isGreaterThanOrEqualTo(1 + committed);
        }
        try (AuditLog log = Fixtures.open(dir)) {
            assertThat(log.status().state()).isIn(AuditState.OK, AuditState.DEGRADED);
            assertThat(log.isTrusted(Fixtures.prompt(1))).isTrue();
            assertThat(log.status().committedSequence()).isGreaterThanOrEqualTo(1 + committedTotal[0]);
        }
    }

    @Test
    void row26_anInterruptLeftOnTheIdleWriterThreadIsClearedBeforeAnyIo() throws Exception {
        Path dir = tmp.resolve("audit");
        try (Engine engine = Engine.open(dir, Clock.systemUTC(), false, Duration.ofSeconds(30))) {
            engine.workerThread().interrupt();
            assertThat(engine.approve(Fixtures.prompt(1)).isCommitted()).isTrue();
            assertThat(engine.status().state()).isEqualTo(AuditState.OK);
            assertThat(engine.lockHeld()).isTrue();
        }
    }

    private static void joinUninterruptibly(Thread t) {
        while (t.isAlive()) {
            Thread.interrupted();
            try {
                t.join(100);
            } catch (InterruptedException e) {
                // the interrupter may still be running; try again
            }
        }
        Thread.interrupted();
    }

    @Test
    void row27_twoHandlesInOneJvmNeverThrowOverlappingFileLock() throws Exception {
        Path dir = tmp.resolve("audit");
        try (AuditLog first = Fixtures.open(dir)) {
            first.approve(Fixtures.prompt(1));
            try (AuditLog second = Fixtures.open(dir)) {
                assertThat(second.status().writable()).isFalse();
                assertThat(second.status().diagnostics().get(0).message())
                        .contains("already open for writing in this JVM");
                assertThat(second.isTrusted(Fixtures.prompt(1))).isTrue();
            }
            assertThat(first.approve(Fixtures.prompt(2)).isCommitted()).isTrue();
            assertThat(probe("audit", dir)).isEqualTo(3);
        }
        try (AuditLog third = Fixtures.open(dir)) {
            assertThat(third.status().writable()).isTrue();
        }
    }
}
