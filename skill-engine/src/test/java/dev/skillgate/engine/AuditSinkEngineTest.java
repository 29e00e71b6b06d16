package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditLogOptions;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.AuditStatus;
import dev.skillgate.audit.ExportedRecord;
import dev.skillgate.consent.ScriptedApprovalChannel;
import dev.skillgate.consent.spi.PolicyStore;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.InputType;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.Timeout;
import dev.skillgate.model.ToolClass;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Audit sinks through the engine (decision 0370): a sink receives exactly the records real
 * executions commit, in order; a sink that throws or hangs refuses the step it was recording and
 * every later one with {@code AUDIT_SINK_FAILED} — no process starts, nothing is half-written — until
 * the operator resumes the export; a {@code ServiceLoader} provider is used only when named. Real
 * {@code node}, the real Linux supervisor, real fsync'd logs; {@code /proc} survivor scan after.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@org.junit.jupiter.api.Timeout(120)
@EnabledOnOs(OS.LINUX)
class AuditSinkEngineTest extends LiveEngineTest {
    private static final AgentId AGENT = AgentId.of("agent-1");
    private static final String INPUT = "{\"name\":\"Ada\"}";

    private final List<AutoCloseable> open = new ArrayList<>();
    private final List<ExecutionEvent> heard = new CopyOnWriteArrayList<>();

    @BeforeEach
    void fresh() throws IOException {
        Support.copySkill(Support.examples().resolve("hello-world"), skills);
        heard.clear();
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        open.clear();
    }

    private SkillGateAdmin admin(ProbeAuditSink sink, Duration timeout) {
        SkillGateAdmin admin = SkillGateAdmin.open(
                data,
                PolicyStore.privateFile(data.resolve("policy")),
                AuditLogOptions.builder(SkillGateAdmin.auditDirectory(data))
                        .sink(sink)
                        .sinkTimeout(timeout)
                        .build());
        open.add(admin);
        return admin;
    }

    private SkillGate.Builder builder(ScriptedApprovalChannel channel) {
        return SkillGate.builder()
                .skillRoot(skills)
                .nodeRuntime(Support.runtime())
                .approvalChannel(channel)
                .listener(heard::add);
    }

    private SkillGate gate(SkillGate.Builder b) {
        SkillGate gate = b.build();
        open.add(gate);
        return gate;
    }

    private ExecutionEnvelope run(SkillGate gate) {
        return gate.execute(ExecutionRequest.of(RunId.random(), AGENT, "hello-world", INPUT, workspace));
    }

    /** The committed records, read back from disk through a read-only handle. */
    private List<AuditRecord> committed() throws IOException {
        try (AuditLog log = AuditLog.openReadOnly(SkillGateAdmin.auditDirectory(data))) {
            assertThat(log.status().state()).as("the log on disk verifies").isEqualTo(AuditState.OK);
            return log.records(0, 1000);
        }
    }

    private static void assertContiguous(List<ExportedRecord> records) {
        for (int i = 1; i < records.size(); i++) {
            assertThat(records.get(i).follows(records.get(i - 1))).isTrue();
        }
    }

    private boolean started() {
        return heard.stream()
                .anyMatch(e -> e.kind() == ExecutionEvent.Kind.LAUNCHING || e.kind() == ExecutionEvent.Kind.PROGRESS);
    }

    @Test
    void theSinkReceivesExactlyTheRecordsRealExecutionsCommitInOrder() throws IOException {
        ProbeAuditSink sink = new ProbeAuditSink("siem");
        SkillGateAdmin admin = admin(sink, Duration.ofSeconds(5));
        SkillGate gate = gate(builder(ScriptedApprovalChannel.denyingWhenEmpty().approveNext())
                .admin(admin));

        ExecutionEnvelope consented = run(gate);
        assertThat(consented.status()).as(consented.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(admin.trustRevision(
                                consented.revision().orElseThrow(),
                                AGENT,
                                workspace,
                                Timeout.DEFAULT,
                                OutputLimit.DEFAULT)
                        .isSuccess())
                .isTrue();
        ExecutionEnvelope trusted = run(gate);
        assertThat(trusted.status()).as(trusted.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);

        assertThat(sink.accepted)
                .extracting(r -> r.record().event().getClass().getSimpleName())
                .containsExactly("Consumed", "Settled", "PolicyChanged", "Approved", "Settled");
        assertThat(((AuditEvent.Settled) sink.accepted.get(4).record().event()).authority())
                .isEqualTo(AuditEvent.Settled.Authority.TRUSTED_REVISION);
        assertThat(sink.attempts).as("each exactly once").containsExactly(1L, 2L, 3L, 4L, 5L);
        assertContiguous(sink.accepted);
        admin.close();
        assertThat(sink.accepted).extracting(ExportedRecord::record).containsExactlyElementsOf(committed());
    }

    @Test
    void aThrowingSinkRefusesTheStepItWasRecordingAndEveryLaterOneUntilResumed() throws IOException {
        ProbeAuditSink sink = new ProbeAuditSink("siem");
        sink.failFrom = 0;
        SkillGateAdmin admin = admin(sink, Duration.ofSeconds(5));
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext().approveNext();
        SkillGate gate = gate(builder(channel).admin(admin));

        ExecutionEnvelope first = run(gate);
        assertThat(first.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(first.errorCodes()).containsExactly(ErrorCode.AUDIT_SINK_FAILED);
        assertThat(started()).as("no process was started").isFalse();
        AuditStatus halted = admin.trust().status();
        assertThat(halted.state()).isEqualTo(AuditState.EXPORT_HALTED);
        assertThat(halted.diagnostics().get(0).code()).isEqualTo(ErrorCode.AUDIT_SINK_FAILED);

        ExecutionEnvelope second = run(gate);
        assertThat(second.errorCodes()).containsExactly(ErrorCode.AUDIT_SINK_FAILED);
        assertThat(channel.requests()).as("no human is asked while halted").hasSize(1);
        assertThat(started()).isFalse();
        // The consumed grant is recorded locally (never dropped); nothing else was written.
        assertThat(committed())
                .extracting(r -> r.event().getClass().getSimpleName())
                .containsExactly("Consumed");

        sink.failFrom = -1;
        assertThat(admin.trust().resumeExport().state()).isEqualTo(AuditState.OK);
        assertThat(sink.acceptedSequences())
                .as("the missed record is delivered")
                .containsExactly(1L);
        ExecutionEnvelope third = run(gate);
        assertThat(third.status()).as(third.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(sink.acceptedSequences()).containsExactly(1L, 2L, 3L);
        assertContiguous(sink.accepted);
    }

    @Test
    void aFirstUseApprovalWhoseExportFailsDoesNotActivateUntilResumed() throws IOException {
        Support.copySkill(Support.examples().resolve("release-notes"), skills);
        AgentContext context = AgentContext.of(
                "example-agent",
                SemVer.parse("1.5.0"),
                Set.of(InputType.TEXT, InputType.STRUCTURED_DATA),
                Set.of(ToolClass.AGENT_NATIVE),
                PermissionMode.READ_ONLY);
        AgentId agent = AgentId.of("example-agent-1.5");
        ProbeAuditSink sink = new ProbeAuditSink("siem");
        sink.failFrom = 0;
        SkillGateAdmin admin = admin(sink, Duration.ofSeconds(5));
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext().approveNext();
        SkillGate gate = gate(builder(channel).admin(admin));

        Activation refused = gate.activate(agent, "release-notes", context);
        assertThat(refused)
                .isInstanceOfSatisfying(
                        Activation.Refused.class,
                        r -> assertThat(r.reasons())
                                .extracting(d -> d.code())
                                .containsExactly(ErrorCode.AUDIT_SINK_FAILED));
        assertThat(channel.activationRequests()).hasSize(1);
        assertThat(gate.activate(agent, "release-notes", context)).isInstanceOf(Activation.Refused.class);
        assertThat(channel.activationRequests())
                .as("not asked again while halted")
                .hasSize(1);

        sink.failFrom = -1;
        assertThat(admin.trust().resumeExport().state()).isEqualTo(AuditState.OK);
        // The human's approval is on record: after the resume it activates without asking again.
        assertThat(gate.activate(agent, "release-notes", context))
                .isInstanceOfSatisfying(
                        Activation.Activated.class,
                        a -> assertThat(a.askedNow()).isFalse());
        assertThat(channel.activationRequests()).hasSize(1);
        assertThat(sink.accepted)
                .extracting(r -> r.record().event().getClass().getSimpleName())
                .containsExactly("Approved");
    }

    @Test
    void aHangingSinkIsAFailureAfterItsBound() throws IOException {
        ProbeAuditSink sink = new ProbeAuditSink("siem");
        sink.hangFrom = 0;
        try {
            SkillGateAdmin admin = admin(sink, Duration.ofMillis(300));
            SkillGate gate =
                    gate(builder(ScriptedApprovalChannel.denyingWhenEmpty().approveNext())
                            .admin(admin));
            ExecutionEnvelope env = run(gate);
            assertThat(env.errorCodes()).containsExactly(ErrorCode.AUDIT_SINK_FAILED);
            assertThat(started()).isFalse();
            assertThat(admin.trust().status().diagnostics().get(0).message()).contains("300 ms");
        } finally {
            sink.release.countDown();
        }
    }

    @Test
    void aSinkOnTheGateBuilderExportsThePrivateAdminsLog() throws IOException {
        ProbeAuditSink sink = new ProbeAuditSink("siem");
        SkillGate gate = gate(builder(ScriptedApprovalChannel.denyingWhenEmpty().approveNext())
                .dataDirectory(data)
                .auditSink(sink)
                .auditSinkTimeout(Duration.ofSeconds(10)));
        assertThat(run(gate).status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        gate.close();
        assertThat(sink.accepted).extracting(ExportedRecord::record).containsExactlyElementsOf(committed());
        assertThat(sink.acceptedSequences()).containsExactly(1L, 2L);
    }

    @Test
    void concurrentExecutionsReachTheSinkAsOneContiguousChain() throws IOException {
        ProbeAuditSink sink = new ProbeAuditSink("siem");
        SkillGateAdmin admin = admin(sink, Duration.ofSeconds(5));
        ScriptedApprovalChannel channel = ScriptedApprovalChannel.denyingWhenEmpty();
        int runs = 4;
        for (int i = 0; i < runs; i++) {
            channel.approveNext();
        }
        SkillGate gate = gate(builder(channel).admin(admin));
        List<PendingExecution> pending = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            pending.add(gate.executeAsync(ExecutionRequest.of(RunId.random(), AGENT, "hello-world", INPUT, workspace)));
        }
        for (PendingExecution p : pending) {
            ExecutionEnvelope env = p.await();
            assertThat(env.status()).as(env.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
            p.settlement().toCompletableFuture().join();
        }
        assertThat(sink.attempts).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
        assertContiguous(sink.accepted);
        admin.close();
        assertThat(sink.accepted).extracting(ExportedRecord::record).containsExactlyElementsOf(committed());
    }

    @Test
    void aServiceLoaderProviderIsUsedOnlyWhenNamed() throws IOException {
        ProbeAuditSink.CREATED.clear();
        SkillGate plain =
                gate(builder(ScriptedApprovalChannel.denyingWhenEmpty().approveNext())
                        .dataDirectory(data));
        assertThat(run(plain).status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        plain.close();
        assertThat(ProbeAuditSink.CREATED)
                .as("the provider on the path was never even created")
                .isEmpty();

        SkillGate named =
                gate(builder(ScriptedApprovalChannel.denyingWhenEmpty().approveNext())
                        .dataDirectory(data)
                        .auditSinkProvider("engine-probe"));
        assertThat(run(named).status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        named.close();
        assertThat(ProbeAuditSink.CREATED)
                .singleElement()
                .satisfies(p -> assertThat(p.acceptedSequences())
                        .as("nothing replayed at open; the new run's records only")
                        .containsExactly(3L, 4L));
    }

    @Test
    void providerNamesMustMatchExactlyOneAndSinksBelongToTheAdminWhenThereIsOne() {
        assertThatThrownBy(() -> builder(ScriptedApprovalChannel.denyingWhenEmpty())
                        .dataDirectory(data)
                        .auditSinkProvider("engine-twin")
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("several");
        assertThatThrownBy(() -> builder(ScriptedApprovalChannel.denyingWhenEmpty())
                        .dataDirectory(data)
                        .auditSinkProvider("nobody")
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no AuditSink provider");
        assertThat(Files.exists(data)).as("nothing was created").isFalse();
        SkillGateAdmin admin = SkillGateAdmin.open(data);
        open.add(admin);
        assertThatThrownBy(() -> builder(ScriptedApprovalChannel.denyingWhenEmpty())
                        .admin(admin)
                        .auditSink(new ProbeAuditSink("siem"))
                        .build())
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> SkillGateAdmin.open(
                        data,
                        PolicyStore.privateFile(data.resolve("policy")),
                        AuditLogOptions.builder(data.resolve("elsewhere")).build()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
