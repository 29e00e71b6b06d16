package dev.skillgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AppendResult;
import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditLogOptions;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.audit.AuditSink;
import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.AuditStatus;
import dev.skillgate.audit.ExecutionScope;
import dev.skillgate.audit.ExportedRecord;
import dev.skillgate.audit.PromptSkillScope;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import dev.skillgate.model.Timeout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apiguardian.api.API;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract every {@link AuditSink} must meet, as a JUnit 5 test class to extend (a TCK in the
 * style of the MCP SDK's {@code mcp-test}): an implementer provides {@link #createSink()} and,
 * when it can read back what reached its destination, {@link #exported}.
 *
 * <pre>{@code
 * class SiemSinkContractTest extends AbstractAuditSinkContractTest {
 *     protected AuditSink createSink() { return new SiemSink(testServer.url()); }
 *     protected Optional<List<ExportedRecord>> exported(AuditSink sink) { return Optional.of(testServer.received()); }
 * }
 * }</pre>
 *
 * <p>Each test drives a real, fsync'd {@link AuditLog} in a temporary directory with the sink
 * attached. What it checks: the name is valid and stable; every record type a log commits is
 * accepted within {@link #sinkTimeout()} from the log's own thread, so the log never halts; what
 * reached the destination is exactly the committed records, in order, as one linked chain; a sink
 * keeps working across a new log handle (a restart); a re-delivered record (after a resume) is
 * accepted. What it cannot check: that a sink which returns normally really stored the record —
 * a sink must throw when it did not.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public abstract class AbstractAuditSinkContractTest {
    /** A fresh temporary directory per test. */
    @TempDir
    protected Path contractDirectory;

    /** A new sink for one test; it may be called from another thread than the one that created it. */
    protected abstract AuditSink createSink() throws Exception;

    /**
     * What reached the sink's destination, in the order it arrived, when the implementer can read it
     * back; empty skips the checks that need it.
     */
    protected Optional<List<ExportedRecord>> exported(AuditSink sink) throws Exception {
        return Optional.empty();
    }

    /** The bound each export must meet in these tests (default 5 s). */
    protected Duration sinkTimeout() {
        return Duration.ofSeconds(5);
    }

    private AuditLog open(AuditSink sink) {
        return AuditLog.open(AuditLogOptions.builder(contractDirectory.resolve("audit"))
                .openWait(Duration.ofSeconds(30))
                .sink(sink)
                .sinkTimeout(sinkTimeout())
                .build());
    }

    @Test
    void theNameIsValidAndStable() throws Exception {
        AuditSink sink = createSink();
        String name = sink.name();
        assertThat(name).matches(AuditSink.NAME);
        assertThat(sink.name()).isEqualTo(name);
    }

    @Test
    void everyRecordTypeIsAcceptedInOrderAndTheLogNeverHalts() throws Exception {
        AuditSink sink = createSink();
        List<AuditRecord> committed;
        try (AuditLog log = open(sink)) {
            for (int n = 0; n < 3; n++) {
                appendOneOfEach(log, n);
            }
            AuditStatus status = log.status();
            assertThat(status.state())
                    .as("the sink accepted every record within %s: %s", sinkTimeout(), status.diagnostics())
                    .isEqualTo(AuditState.OK);
            committed = log.records(0, 1000);
        }
        assertThat(committed).hasSize(3 * 9);
        Optional<List<ExportedRecord>> out = exported(sink);
        Assumptions.assumeTrue(out.isPresent(), "the sink's destination cannot be read back");
        assertThat(out.get()).extracting(ExportedRecord::record).containsExactlyElementsOf(committed);
        assertLinked(out.get());
    }

    @Test
    void aSinkKeepsExportingAcrossANewLogHandle() throws Exception {
        AuditSink sink = createSink();
        try (AuditLog log = open(sink)) {
            assertThat(log.approve(prompt(1)).isCommitted()).isTrue();
        }
        try (AuditLog log = open(sink)) {
            assertThat(log.approve(prompt(2)).isCommitted()).isTrue();
            assertThat(log.status().state()).isEqualTo(AuditState.OK);
        }
        Optional<List<ExportedRecord>> out = exported(sink);
        Assumptions.assumeTrue(out.isPresent(), "the sink's destination cannot be read back");
        assertThat(out.get()).extracting(ExportedRecord::sequence).containsExactly(1L, 2L);
        assertLinked(out.get());
    }

    @Test
    void aRedeliveredRecordIsAccepted() throws Exception {
        AuditSink sink = createSink();
        try (AuditLog log = open(sink)) {
            assertThat(log.approve(prompt(1)).isCommitted()).isTrue();
            assertThat(log.approve(prompt(2)).isCommitted()).isTrue();
        }
        Optional<List<ExportedRecord>> before = exported(sink);
        Assumptions.assumeTrue(before.isPresent(), "the sink's destination cannot be read back");
        ExportedRecord last = before.get().get(before.get().size() - 1);
        // After a timed-out export and a resume the same record can arrive twice: a sink must accept it.
        sink.export(last);
        Map<Long, ExportedRecord> bySequence = new LinkedHashMap<>();
        exported(sink).orElseThrow().forEach(r -> bySequence.putIfAbsent(r.sequence(), r));
        assertThat(bySequence.keySet()).containsExactly(1L, 2L);
        assertThat(bySequence.get(2L)).isEqualTo(last);
    }

    private static void assertLinked(List<ExportedRecord> records) {
        for (int i = 1; i < records.size(); i++) {
            assertThat(records.get(i).follows(records.get(i - 1)))
                    .as(
                            "record %d follows record %d",
                            records.get(i).sequence(), records.get(i - 1).sequence())
                    .isTrue();
        }
    }

    private static void appendOneOfEach(AuditLog log, int n) {
        List<AppendResult> results = new ArrayList<>();
        results.add(log.approve(prompt(n)));
        results.add(log.approve(execution(n)));
        results.add(log.revoke(prompt(n)));
        results.add(log.recordConsumption(
                new AuditEvent.Consumed(RunId.of("run-" + n), AgentId.of("agent-" + n), revision(n), digest("b" + n))));
        results.add(log.recordPolicyChange(new AuditEvent.PolicyChanged("ASK_EACH_TIME", digest("policy " + n))));
        results.add(log.recordSettlement(new AuditEvent.Settled(
                RunId.of("run-" + n),
                AgentId.of("agent-" + n),
                revision(n),
                AuditEvent.Settled.Authority.CONSENT,
                n % 2 == 0 ? ExecutionStatus.SUCCEEDED : ExecutionStatus.CLEANUP_UNKNOWN,
                n % 2 == 0 ? CleanupStatus.PROVEN : CleanupStatus.UNKNOWN,
                HardeningLayer.L0,
                n % 2 == 0 ? List.of() : List.of(ErrorCode.CLEANUP_UNKNOWN),
                n % 2 == 1)));
        results.add(log.recordPlanApproval(new AuditEvent.PlanApproved(
                RunId.of("run-" + n), AgentId.of("agent-" + n), digest("ws " + n), digest("plan " + n), 2)));
        results.add(log.recordPlanStep(new AuditEvent.PlanStepConsumed(
                RunId.of("run-" + n), AgentId.of("agent-" + n), revision(n), digest("b" + n), digest("plan " + n), 0)));
        results.add(log.recordWorkflowChange(new AuditEvent.WorkflowChanged(
                AuditEvent.WorkflowChanged.Action.TAKEOVER,
                "0b3f6a2e-8c1d-4e5f-9a7b-1c2d3e4f5a6" + n,
                RunId.of("run-" + n),
                "token 2 to tck@host")));
        assertThat(results)
                .allSatisfy(r -> assertThat(r.isCommitted()).as(r.toString()).isTrue());
    }

    private static Sha256Digest digest(String text) {
        return Sha256Digest.hash(text.getBytes(StandardCharsets.UTF_8));
    }

    private static Revision revision(int n) {
        return Revision.parse(digest("revision " + n).toString());
    }

    private static PromptSkillScope prompt(int n) {
        return new PromptSkillScope(
                AgentId.of("agent-" + n),
                SkillName.of("skill-" + n),
                Optional.of(digest("contract " + n)),
                revision(n));
    }

    private static ExecutionScope execution(int n) {
        return new ExecutionScope(
                revision(n),
                AgentId.of("agent-" + n),
                digest("workspace " + n),
                Timeout.DEFAULT,
                OutputLimit.DEFAULT,
                new UUID(n, n + 1L),
                Instant.ofEpochMilli(1_700_000_000_000L + n));
    }
}
