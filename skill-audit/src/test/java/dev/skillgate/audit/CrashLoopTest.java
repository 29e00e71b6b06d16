package dev.skillgate.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Acceptance: a child JVM appending in a loop is {@code kill -9}ed at random points 100 times (row
 * 22 of the adversarial table). After each kill, {@code open()} succeeds, every acknowledged record
 * is present with its effect on trust, at most one unacknowledged record was committed, and every
 * record verifies (no torn record is accepted).
 */
class CrashLoopTest {
    static final int ITERATIONS = Integer.getInteger("skillgate.crashloop.iterations", 100);

    @TempDir
    Path tmp;

    @Test
    void row22_kill9AtRandomPointsLosesNoAcknowledgedRecord() throws Exception {
        Path dir = tmp.resolve("audit");
        Random random = new Random(22);
        Map<Integer, Boolean> expected = new HashMap<>(); // scope number -> trusted, from committed records
        long committed = 0;
        int killedDuringOpen = 0;
        int withUnacknowledgedCommit = 0;
        int recovered = 0;
        for (int it = 0; it < ITERATIONS; it++) {
            Path ackFile = tmp.resolve("acks-" + it + ".txt");
            Process child =
                    Fixtures.startJvm(CrashLoopChild.class, dir.toString(), Integer.toString(it), ackFile.toString());
            List<String> lines = Collections.synchronizedList(new ArrayList<>());
            CountDownLatch ready = new CountDownLatch(1);
            Thread reader = new Thread(() -> {
                try (BufferedReader in =
                        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = in.readLine()) != null) {
                        if (line.startsWith("ready")) {
                            ready.countDown();
                        }
                    }
                } catch (IOException e) {
                    // the child was killed
                }
            });
            reader.start();
            if (random.nextInt(10) == 0) {
                Thread.sleep(random.nextInt(400));
                killedDuringOpen += ready.getCount() == 1 ? 1 : 0;
            } else {
                assertThat(ready.await(60, TimeUnit.SECONDS))
                        .as("child became ready")
                        .isTrue();
                // Kill a writer that is writing: wait (bounded) for its first acknowledged append, so
                // that a loaded machine, where a child takes hundreds of milliseconds from ready to its
                // first commit, still kills mid-append instead of before the first record.
                awaitFirstAck(ackFile);
                Thread.sleep(random.nextInt(60));
            }
            child.destroyForcibly();
            child.waitFor(30, TimeUnit.SECONDS);
            reader.join(10_000);
            if (java.nio.file.Files.exists(ackFile)) {
                lines.addAll(java.nio.file.Files.readAllLines(ackFile, StandardCharsets.UTF_8));
            }
            assertThat(lines).noneMatch(l -> l.startsWith("not-writable") || l.startsWith("result"));

            long maxAck = committed;
            for (String line : List.copyOf(lines)) {
                String[] f = line.split(" ");
                if (f[0].equals("ack")) {
                    long seq = Long.parseLong(f[1]);
                    assertThat(seq).as("acks are consecutive").isEqualTo(maxAck + 1);
                    maxAck = seq;
                    expected.put(Integer.parseInt(f[3]), f[2].equals("A"));
                }
            }
            try (AuditLog log = Fixtures.open(dir)) {
                AuditStatus s = log.status();
                assertThat(s.state()).as("iteration %d: %s", it, s).isIn(AuditState.OK, AuditState.DEGRADED);
                assertThat(s.writable()).isTrue();
                recovered += s.state() == AuditState.DEGRADED ? 1 : 0;
                assertThat(s.committedSequence())
                        .as(
                                "iteration %d: every acknowledged record is committed, at most one more; child said %s; log %s",
                                it, lines, log.records(Math.max(0, maxAck - 2), 10))
                        .isBetween(maxAck, maxAck + 1);
                if (s.committedSequence() == maxAck + 1) {
                    withUnacknowledgedCommit++;
                    AuditRecord extra = log.records(maxAck, 1).get(0);
                    if (extra.event() instanceof AuditEvent.Approved a) {
                        expected.put(CrashLoopChild.number((PromptSkillScope) a.scope()), true);
                    } else if (extra.event() instanceof AuditEvent.Revoked r) {
                        expected.put(CrashLoopChild.number((PromptSkillScope) r.scope()), false);
                    }
                }
                committed = s.committedSequence();
                List<AuditRecord> all = log.records(0, Integer.MAX_VALUE);
                assertThat(all).hasSize((int) committed);
                for (int i = 0; i < all.size(); i++) {
                    assertThat(all.get(i).sequence()).isEqualTo(i + 1);
                }
                // The tree root after recovery equals a recomputation from the log's bytes.
                assertThat(log.tree().orElseThrow().root())
                        .as("iteration %d: tree root", it)
                        .isEqualTo(recomputedRoot(dir, committed));
                for (Map.Entry<Integer, Boolean> e : expected.entrySet()) {
                    assertThat(log.isTrusted(Fixtures.prompt(e.getKey())))
                            .as("iteration %d: scope %d", it, e.getKey())
                            .isEqualTo(e.getValue());
                }
            }
        }
        System.out.printf(
                "crash loop: %d kills, %d records committed, %d kills before ready, %d recoveries, %d unacknowledged commits%n",
                ITERATIONS, committed, killedDuringOpen, recovered, withUnacknowledgedCommit);
        // The loop must have killed writers that were writing: nine kills in ten come after the
        // child's first acknowledged append, so at least that many records were committed.
        assertThat(committed).isGreaterThan(ITERATIONS / 2);
    }

    /** RFC 6962 root of the first {@code n} frames of audit.log, framed by their length fields only. */
    private static void awaitFirstAck(Path ackFile) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if (java.nio.file.Files.exists(ackFile)
                    && java.nio.file.Files.readString(ackFile, StandardCharsets.UTF_8)
                            .contains("\nack ")) {
                return;
            }
            Thread.sleep(2);
        }
    }

    private static dev.skillgate.tlog.MerkleHash recomputedRoot(Path dir, long n) throws java.io.IOException {
        byte[] bytes = java.nio.file.Files.readAllBytes(dir.resolve("audit.log"));
        java.util.List<dev.skillgate.tlog.MerkleHash> leaves = new java.util.ArrayList<>();
        int pos = 32;
        while (leaves.size() < n) {
            int len = java.nio.ByteBuffer.wrap(bytes, pos, 4).getInt();
            int total = 13 + len + 36;
            leaves.add(dev.skillgate.tlog.Rfc6962.leafHash(bytes, pos, total));
            pos += total;
        }
        return dev.skillgate.tlog.Rfc6962.root(leaves);
    }
}
