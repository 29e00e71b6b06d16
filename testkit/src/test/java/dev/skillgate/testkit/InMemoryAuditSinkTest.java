package dev.skillgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.audit.AppendResult;
import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditLogOptions;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.ExportedRecord;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link InMemoryAuditSink}: its chain check catches every break, it is thread-safe, and it can fail on purpose. */
@Timeout(60)
class InMemoryAuditSinkTest {
    private static final String LOG = "0123456789abcdef0123456789abcdef";
    private static final String OTHER_LOG = "fedcba9876543210fedcba9876543210";

    @TempDir
    Path tmp;

    private static Sha256Digest h(int n) {
        return Sha256Digest.hash(("hash " + n).getBytes(StandardCharsets.UTF_8));
    }

    private static AuditEvent consumed(int n) {
        return new AuditEvent.Consumed(
                RunId.of("run-" + n),
                AgentId.of("agent"),
                Revision.parse(h(1000 + n).toString()),
                h(2000 + n));
    }

    /** Record {@code seq} of a chain whose hash after record n is h(n). */
    private static ExportedRecord link(String log, long seq) {
        return new ExportedRecord(
                log, h((int) seq - 1), new AuditRecord(seq, Instant.EPOCH, false, consumed((int) seq), h((int) seq)));
    }

    private static InMemoryAuditSink with(ExportedRecord... records) throws Exception {
        InMemoryAuditSink sink = new InMemoryAuditSink();
        for (ExportedRecord r : records) {
            sink.export(r);
        }
        return sink;
    }

    @Test
    void aContiguousChainHasNoProblems() throws Exception {
        InMemoryAuditSink sink = with(link(LOG, 4), link(LOG, 5), link(LOG, 6));
        assertThat(sink.chainProblems()).isEmpty();
        assertThat(sink.assertContiguousChain().sequences()).containsExactly(4L, 5L, 6L);
    }

    @Test
    void everyBreakIsReported() throws Exception {
        assertThat(with(link(LOG, 1), link(LOG, 3)).chainProblems())
                .singleElement()
                .asString()
                .contains("2 to 2 are missing");
        assertThat(with(link(LOG, 1), link(LOG, 2), link(LOG, 2)).chainProblems())
                .singleElement()
                .asString()
                .contains("repeats seq 2");
        assertThat(with(link(LOG, 2), link(LOG, 1)).chainProblems())
                .singleElement()
                .asString()
                .contains("comes after");
        ExportedRecord forged =
                new ExportedRecord(LOG, h(99), new AuditRecord(2, Instant.EPOCH, false, consumed(2), h(2)));
        assertThat(with(link(LOG, 1), forged).chainProblems())
                .singleElement()
                .asString()
                .contains("does not link");
        assertThat(with(link(LOG, 1), link(OTHER_LOG, 2)).chainProblems())
                .singleElement()
                .asString()
                .contains("another log");
        assertThatThrownBy(() -> with(link(LOG, 1), link(LOG, 3)).assertContiguousChain())
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("missing");
    }

    @Test
    void aRepairThatStartsANewLogContinuesTheChain() throws Exception {
        AuditEvent.Repaired repair = new AuditEvent.Repaired(
                "operator",
                ErrorCode.AUDIT_CORRUPT,
                java.util.OptionalLong.of(2),
                java.util.Optional.of(LOG),
                java.util.Optional.of(h(50)),
                java.util.Optional.of(h(51)),
                "audit.corrupt-x");
        ExportedRecord first =
                new ExportedRecord(OTHER_LOG, h(0), new AuditRecord(1, Instant.EPOCH, false, repair, h(1)));
        assertThat(with(link(LOG, 1), first).chainProblems()).isEmpty();
    }

    @Test
    void aFailingSinkHaltsARealLogAndKeepsNothingItRefused() throws Exception {
        InMemoryAuditSink sink = new InMemoryAuditSink("siem");
        try (AuditLog log = AuditLog.open(AuditLogOptions.builder(tmp.resolve("audit"))
                .openWait(Duration.ofSeconds(30))
                .sink(sink)
                .build())) {
            assertThat(log.recordConsumption((AuditEvent.Consumed) consumed(1)).isCommitted())
                    .isTrue();
            sink.failExports(true);
            assertThat(log.recordConsumption((AuditEvent.Consumed) consumed(2)).isCommitted())
                    .isTrue();
            assertThat(log.status().state()).isEqualTo(AuditState.EXPORT_HALTED);
            AppendResult refused = log.recordConsumption((AuditEvent.Consumed) consumed(3));
            assertThat(((AppendResult.Refused) refused).reason().code()).isEqualTo(ErrorCode.AUDIT_SINK_FAILED);
            assertThat(sink.refusedCount()).isEqualTo(1);
            assertThat(sink.sequences()).containsExactly(1L);
            sink.failExports(false);
            assertThat(log.resumeExport().state()).isEqualTo(AuditState.OK);
            assertThat(sink.assertContiguousChain().sequences()).containsExactly(1L, 2L);
            assertThat(sink.received()).extracting(ExportedRecord::record).isEqualTo(log.records(0, 10));
        }
    }

    @Test
    void concurrentExportsAreAllKept() throws Exception {
        InMemoryAuditSink sink = new InMemoryAuditSink();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                String log = String.format("%032x", t);
                futures.add(pool.submit(() -> {
                    for (int i = 1; i <= 250; i++) {
                        sink.export(link(log, i));
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(sink.received()).hasSize(1000);
        for (int t = 0; t < 4; t++) {
            String log = String.format("%032x", t);
            assertThat(sink.received().stream()
                            .filter(r -> r.logId().equals(log))
                            .map(ExportedRecord::sequence)
                            .toList())
                    .as("each writer's records in its own order")
                    .isSorted()
                    .hasSize(250);
        }
        sink.clear();
        assertThat(sink.received()).isEmpty();
    }

    @Test
    void namesAreChecked() {
        assertThatThrownBy(() -> new InMemoryAuditSink("Not Valid")).isInstanceOf(IllegalArgumentException.class);
        assertThat(new InMemoryAuditSink().name()).isEqualTo("in-memory");
    }
}
