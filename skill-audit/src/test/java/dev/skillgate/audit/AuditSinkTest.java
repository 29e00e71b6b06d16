package dev.skillgate.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Sha256Digest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@link AuditSink} export (decision 0370): every committed record reaches each sink once, in
 * sequence order with linked chain hashes; a sink that throws or hangs halts the log fail-closed
 * (nothing trusted, appends refused with {@code AUDIT_SINK_FAILED}, nothing half-written) until
 * {@link AuditLog#resumeExport()} delivers what it missed. Real fsync'd logs on a temporary directory.
 */
@Timeout(60)
class AuditSinkTest {
    @TempDir
    Path tmp;

    private AuditLog open(Path dir, Duration timeout, AuditSink... sinks) {
        return AuditLog.open(AuditLogOptions.builder(dir)
                .openWait(Duration.ofSeconds(30))
                .sinks(List.of(sinks))
                .sinkTimeout(timeout)
                .build());
    }

    private static void assertContiguous(List<ExportedRecord> records) {
        for (int i = 1; i < records.size(); i++) {
            assertThat(records.get(i).follows(records.get(i - 1)))
                    .as(
                            "record %d follows record %d",
                            records.get(i).sequence(), records.get(i - 1).sequence())
                    .isTrue();
        }
    }

    @Test
    void everySinkReceivesExactlyTheCommittedRecordsInOrderOnItsOwnThread() throws Exception {
        Path dir = tmp.resolve("audit");
        RecordingSink first = new RecordingSink("siem");
        RecordingSink second = new RecordingSink("witness");
        try (AuditLog log = open(dir, Duration.ofSeconds(5), first, second)) {
            assertThat(log.approve(Fixtures.prompt(1)).isCommitted()).isTrue();
            assertThat(log.approve(Fixtures.execution(2)).isCommitted()).isTrue();
            assertThat(log.revoke(Fixtures.prompt(1)).isCommitted()).isTrue();
            // Refusals commit nothing and export nothing.
            assertThat(log.revoke(Fixtures.prompt(1)).isCommitted()).isFalse();
            for (AuditEvent e : Fixtures.evidence(3)) {
                AppendResult r = e instanceof AuditEvent.Settled s
                        ? log.recordSettlement(s)
                        : e instanceof AuditEvent.Resolved v
                                ? log.recordResolution(v)
                                : e instanceof AuditEvent.PlanApproved p
                                        ? log.recordPlanApproval(p)
                                        : log.recordPlanStep((AuditEvent.PlanStepConsumed) e);
                assertThat(r.isCommitted()).isTrue();
            }
            List<AuditRecord> committed = log.records(0, 100);
            assertThat(committed).hasSize(7);
            String logId = log.status().logId().orElseThrow();
            for (RecordingSink sink : List.of(first, second)) {
                assertThat(sink.accepted).extracting(ExportedRecord::record).containsExactlyElementsOf(committed);
                assertThat(sink.attempts).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
                assertThat(sink.accepted).allSatisfy(r -> assertThat(r.logId()).isEqualTo(logId));
                assertContiguous(sink.accepted);
                assertThat(sink.threads)
                        .allSatisfy(t -> assertThat(t).startsWith("skillgate-audit-sink-" + sink.name() + "-"));
            }
            assertThat(log.status().state()).isEqualTo(AuditState.OK);
        }
    }

    @Test
    void nothingIsReplayedAtOpenSoARestartShowsAsAGap() throws Exception {
        Path dir = tmp.resolve("audit");
        RecordingSink before = new RecordingSink("siem");
        try (AuditLog log = open(dir, Duration.ofSeconds(5), before)) {
            log.approve(Fixtures.prompt(1));
            log.approve(Fixtures.prompt(2));
        }
        // Records committed while no sink was configured.
        try (AuditLog log = Fixtures.open(dir)) {
            log.approve(Fixtures.prompt(3));
        }
        RecordingSink after = new RecordingSink("siem");
        try (AuditLog log = open(dir, Duration.ofSeconds(5), after)) {
            assertThat(after.attempts).as("nothing replayed at open").isEmpty();
            log.approve(Fixtures.prompt(4));
        }
        assertThat(before.acceptedSequences()).containsExactly(1L, 2L);
        assertThat(after.acceptedSequences()).containsExactly(4L);
        assertThat(after.accepted.get(0).follows(before.accepted.get(1)))
                .as("the receiver can see the gap")
                .isFalse();
    }

    @Test
    void aThrowingSinkHaltsTheLogUntilResumeAndNothingIsLostOrHalfWritten() throws Exception {
        Path dir = tmp.resolve("audit");
        RecordingSink healthy = new RecordingSink("witness");
        RecordingSink failing = new RecordingSink("siem");
        failing.failFrom = 1;
        try (AuditLog log = open(dir, Duration.ofSeconds(5), failing, healthy)) {
            assertThat(log.approve(Fixtures.prompt(1)).isCommitted()).isTrue();
            assertThat(log.isTrusted(Fixtures.prompt(1))).isTrue();

            // The record is committed locally (the local log is the truth) — the export failed.
            AppendResult second = log.approve(Fixtures.prompt(2));
            assertThat(second.isCommitted()).isTrue();
            AuditStatus halted = log.status();
            assertThat(halted.state()).isEqualTo(AuditState.EXPORT_HALTED);
            assertThat(halted.writable()).isFalse();
            assertThat(halted.yieldsTrust()).isFalse();
            assertThat(halted.committedSequence()).isEqualTo(2);
            assertThat(halted.diagnostics().get(0).code()).isEqualTo(ErrorCode.AUDIT_SINK_FAILED);
            assertThat(halted.diagnostics().get(0).message())
                    .contains("seq 2", "'siem'", "IOException")
                    .doesNotContain("unreachable");
            // A healthy sink still got the record; the failing one did not acknowledge it.
            assertThat(healthy.acceptedSequences()).containsExactly(1L, 2L);
            assertThat(failing.acceptedSequences()).containsExactly(1L);

            // Fail closed: nothing is trusted, every append is refused, nothing is written.
            assertThat(log.isTrusted(Fixtures.prompt(1))).isFalse();
            assertThat(log.list()).allSatisfy(d -> assertThat(d.status()).isEqualTo(TrustStatus.SUSPENDED));
            byte[] logBytes = Files.readAllBytes(dir.resolve("audit.log"));
            byte[] headBytes = Files.readAllBytes(dir.resolve("audit.head"));
            assertThat(refusal(log.approve(Fixtures.prompt(3)))).isEqualTo(ErrorCode.AUDIT_SINK_FAILED);
            assertThat(refusal(log.recordSettlement(Fixtures.settled(4)))).isEqualTo(ErrorCode.AUDIT_SINK_FAILED);
            assertThat(refusal(log.revoke(Fixtures.prompt(1)))).isEqualTo(ErrorCode.AUDIT_SINK_FAILED);
            assertThat(Files.readAllBytes(dir.resolve("audit.log"))).isEqualTo(logBytes);
            assertThat(Files.readAllBytes(dir.resolve("audit.head"))).isEqualTo(headBytes);
            assertThat(healthy.attempts).containsExactly(1L, 2L);

            // Still failing: the resume keeps the halt, with a fresh report.
            AuditStatus stillHalted = log.resumeExport();
            assertThat(stillHalted.state()).isEqualTo(AuditState.EXPORT_HALTED);
            assertThat(stillHalted.diagnostics().stream()
                            .filter(d -> d.code() == ErrorCode.AUDIT_SINK_FAILED)
                            .count())
                    .as("diagnostics do not pile up")
                    .isEqualTo(2);

            // The operator fixes the sink and resumes: the missed record is delivered from the log.
            failing.failFrom = -1;
            AuditStatus resumed = log.resumeExport();
            assertThat(resumed.state()).isEqualTo(AuditState.OK);
            assertThat(resumed.writable()).isTrue();
            assertThat(failing.acceptedSequences()).containsExactly(1L, 2L);
            assertThat(failing.accepted.get(1).record())
                    .isEqualTo(log.records(1, 1).get(0));
            assertContiguous(failing.accepted);
            assertThat(healthy.attempts)
                    .as("the healthy sink gets nothing twice")
                    .containsExactly(1L, 2L);
            // The revocation refused while halted still applies in memory (it can only reduce trust).
            assertThat(log.isTrusted(Fixtures.prompt(1))).isFalse();
            assertThat(log.isTrusted(Fixtures.prompt(2))).isTrue();
            assertThat(log.approve(Fixtures.prompt(5)).isCommitted()).isTrue();
            assertThat(failing.acceptedSequences()).containsExactly(1L, 2L, 3L);
            assertThat(log.resumeExport().state()).as("nothing to resume").isEqualTo(AuditState.OK);
        }
        try (AuditLog reopened = Fixtures.open(dir)) {
            assertThat(reopened.status().state()).isEqualTo(AuditState.OK);
            assertThat(reopened.status().committedSequence()).isEqualTo(3);
        }
    }

    @Test
    void aHangingSinkCountsAsAFailureAfterItsBoundAndDoesNotBlockTheNextExport() throws Exception {
        Path dir = tmp.resolve("audit");
        RecordingSink hanging = new RecordingSink("siem");
        hanging.hangFrom = 1;
        try (AuditLog log = open(dir, Duration.ofMillis(300), hanging)) {
            assertThat(log.approve(Fixtures.prompt(1)).isCommitted()).isTrue();
            // Returns (the test's own timeout bounds it), committed locally, export failed.
            assertThat(log.approve(Fixtures.prompt(2)).isCommitted()).isTrue();
            AuditStatus s = log.status();
            assertThat(s.state()).isEqualTo(AuditState.EXPORT_HALTED);
            assertThat(s.diagnostics().get(0).code()).isEqualTo(ErrorCode.AUDIT_SINK_FAILED);
            assertThat(s.diagnostics().get(0).message()).contains("did not return within 300 ms");
            assertThat(refusal(log.approve(Fixtures.prompt(3)))).isEqualTo(ErrorCode.AUDIT_SINK_FAILED);
            waitFor(() -> hanging.interrupted.get() == 1);

            // The hung call was abandoned: the resume runs on a fresh thread and succeeds.
            hanging.hangFrom = -1;
            assertThat(log.resumeExport().state()).isEqualTo(AuditState.OK);
            assertThat(hanging.acceptedSequences()).containsExactly(1L, 2L);
            assertThat(hanging.threads.get(0)).isNotEqualTo(hanging.threads.get(2));
        }
    }

    @Test
    void concurrentAppendsReachTheSinkStrictlyInSequenceWithoutGaps() throws Exception {
        Path dir = tmp.resolve("audit");
        RecordingSink sink = new RecordingSink("siem");
        int threads = 6;
        int each = 15;
        try (AuditLog log = open(dir, Duration.ofSeconds(5), sink)) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<?>> futures = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int base = t * each;
                    futures.add(pool.submit(() -> {
                        for (int i = 0; i < each; i++) {
                            AppendResult r = (base + i) % 2 == 0
                                    ? log.approve(Fixtures.prompt(base + i))
                                    : log.recordSettlement(Fixtures.settled(base + i));
                            assertThat(r.isCommitted()).isTrue();
                        }
                        return null;
                    }));
                }
                for (Future<?> f : futures) {
                    f.get(60, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(sink.acceptedSequences())
                    .containsExactlyElementsOf(
                            LongStream.rangeClosed(1, threads * each).boxed().toList());
            assertContiguous(sink.accepted);
            assertThat(sink.accepted)
                    .extracting(ExportedRecord::record)
                    .containsExactlyElementsOf(log.records(0, 1000));
        }
    }

    @Test
    void aRepairStartsTheExportAgainWithTheNewLog() throws Exception {
        Path dir = tmp.resolve("audit");
        try (AuditLog log = Fixtures.open(dir)) {
            log.approve(Fixtures.prompt(1));
            log.approve(Fixtures.prompt(2));
        }
        Fixtures.flipBit(
                dir.resolve("audit.log"),
                Fixtures.frameOffsets(Files.readAllBytes(dir.resolve("audit.log")))
                                .get(1)
                        + 20,
                0);
        RecordingSink sink = new RecordingSink("siem");
        try (AuditLog log = open(dir, Duration.ofSeconds(5), sink)) {
            assertThat(log.status().state()).isEqualTo(AuditState.DISABLED);
            assertThat(refusal(log.approve(Fixtures.prompt(3)))).isEqualTo(ErrorCode.AUDIT_DISABLED);
            assertThat(sink.attempts).isEmpty();
            assertThat(log.repair("operator: bit rot").isCommitted()).isTrue();
            log.approve(Fixtures.prompt(3));
            assertThat(sink.acceptedSequences()).containsExactly(1L, 2L);
            assertThat(sink.accepted.get(0).record().event()).isInstanceOf(AuditEvent.Repaired.class);
            assertThat(sink.accepted.get(0).logId())
                    .isEqualTo(log.status().logId().orElseThrow());
            assertContiguous(sink.accepted);
        }
    }

    @Test
    void optionsRejectBadSinkConfigurations() {
        Path dir = tmp.resolve("audit");
        assertThatThrownBy(() -> AuditLogOptions.builder(dir)
                        .sink(new RecordingSink("siem"))
                        .sink(new RecordingSink("siem"))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("two audit sinks");
        for (String bad : List.of("", "SIEM", "-siem", "si em", "x".repeat(65))) {
            assertThatThrownBy(() -> AuditLogOptions.builder(dir)
                            .sink(new RecordingSink(bad))
                            .build())
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> AuditLogOptions.builder(dir)
                        .readOnly(true)
                        .sink(new RecordingSink("siem"))
                        .build())
                .isInstanceOf(IllegalArgumentException.class);
        for (Duration bad : List.of(Duration.ZERO, Duration.ofNanos(999_999), Duration.ofSeconds(61))) {
            assertThatThrownBy(
                            () -> AuditLogOptions.builder(dir).sinkTimeout(bad).build())
                    .isInstanceOf(IllegalArgumentException.class);
        }
        AuditLogOptions.Builder nine = AuditLogOptions.builder(dir);
        for (int i = 0; i < 9; i++) {
            nine.sink(new RecordingSink("s" + i));
        }
        assertThatThrownBy(nine::build).isInstanceOf(IllegalArgumentException.class);
        assertThat(new AuditLogOptions(dir, java.time.Clock.systemUTC(), false, Duration.ZERO).sinks())
                .isEmpty();
    }

    @Test
    void exportedRecordsCheckTheirLink() {
        Sha256Digest a = Sha256Digest.hash(new byte[] {1});
        Sha256Digest b = Sha256Digest.hash(new byte[] {2});
        Sha256Digest c = Sha256Digest.hash(new byte[] {3});
        String id = "0123456789abcdef0123456789abcdef";
        AuditEvent e = new AuditEvent.Approved(Fixtures.prompt(1));
        java.time.Instant t = java.time.Instant.EPOCH;
        ExportedRecord one = new ExportedRecord(id, a, new AuditRecord(1, t, false, e, b));
        ExportedRecord two = new ExportedRecord(id, b, new AuditRecord(2, t, false, e, c));
        assertThat(two.follows(one)).isTrue();
        assertThat(one.follows(two)).isFalse();
        assertThat(new ExportedRecord(id, a, new AuditRecord(2, t, false, e, c)).follows(one))
                .as("broken link")
                .isFalse();
        assertThat(new ExportedRecord(id, b, new AuditRecord(3, t, false, e, c)).follows(one))
                .as("gap")
                .isFalse();
        assertThat(new ExportedRecord(id.replace('0', 'f'), b, new AuditRecord(2, t, false, e, c)).follows(one))
                .as("another log")
                .isFalse();
        assertThatThrownBy(() -> new ExportedRecord("ABC", a, one.record()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static ErrorCode refusal(AppendResult r) {
        assertThat(r).isInstanceOf(AppendResult.Refused.class);
        Diagnostic reason = ((AppendResult.Refused) r).reason();
        return reason.code();
    }

    private static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not reached in 20 s");
            }
            Thread.sleep(10);
        }
    }
}
