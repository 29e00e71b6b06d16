package dev.skillgate.audit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AppendResult;
import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditSink;
import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.ExportedRecord;
import dev.skillgate.audit.Fixtures;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sinks and write faults (decision 0370): a record that a fault recovery commits — a trailing
 * revocation re-committed after the head write failed — reaches the sink, read back from the log; an
 * append that was not committed never does. Faults injected through the {@link FileOps} seam.
 */
class SinkFaultTest {
    @TempDir
    Path tmp;

    private static final class Recording implements AuditSink {
        final List<ExportedRecord> accepted = new CopyOnWriteArrayList<>();

        @Override
        public String name() {
            return "recording";
        }

        @Override
        public void export(ExportedRecord record) {
            accepted.add(record);
        }
    }

    @Test
    void aRevocationRecommittedByTheFaultRecoveryIsExportedAndAnUncommittedApprovalIsNot() throws Exception {
        Path dir = tmp.resolve("audit");
        FaultInjectionTest.FaultyOps ops = new FaultInjectionTest.FaultyOps();
        Recording sink = new Recording();
        try (Engine e = Engine.open(
                dir, Clock.systemUTC(), false, Duration.ofSeconds(30), ops, List.of(sink), Duration.ofSeconds(5))) {
            assertThat(e.approve(Fixtures.prompt(1)).isCommitted()).isTrue();

            // The approval's frame is durable, its head write fails: quarantined, never exported.
            ops.failNthWrite(2, false);
            assertThat(e.approve(Fixtures.prompt(2))).isInstanceOf(AppendResult.Failed.class);
            assertThat(sink.accepted).extracting(ExportedRecord::sequence).containsExactly(1L);

            // The revocation's frame is durable, its head write fails: the recovery re-commits it
            // (a revocation only reduces trust), so it is a committed record and the sink gets it.
            ops.failNthWrite(2, false);
            assertThat(e.revoke(Fixtures.prompt(1))).isInstanceOf(AppendResult.Failed.class);
            assertThat(e.status().committedSequence()).isEqualTo(2);
            assertThat(e.status().state()).isEqualTo(AuditState.DEGRADED);
            assertThat(sink.accepted).extracting(ExportedRecord::sequence).containsExactly(1L, 2L);
            assertThat(sink.accepted.get(1).record().event()).isInstanceOf(AuditEvent.Revoked.class);
            assertThat(sink.accepted.get(1).follows(sink.accepted.get(0))).isTrue();
            assertThat(sink.accepted).extracting(ExportedRecord::record).isEqualTo(e.records(0, 10));

            ops.heal();
            assertThat(e.approve(Fixtures.prompt(3)).isCommitted()).isTrue();
            assertThat(sink.accepted).extracting(ExportedRecord::sequence).containsExactly(1L, 2L, 3L);
            assertThat(sink.accepted.get(2).follows(sink.accepted.get(1))).isTrue();
        }
    }
}
