package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.consent.ExecutionPolicy;
import dev.skillgate.consent.PolicyUpdate;
import dev.skillgate.consent.ScriptedApprovalChannel;
import dev.skillgate.fixtures.NodeFixture;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Timeout;
import dev.skillgate.runner.ProgressEvent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The outcome record (SPEC §12: … → run → envelope → audit): every authorised execution's real
 * settlement is in the audit log — also a late one after an early delivery, and a refusal after the
 * grant was used — and a settlement that cannot be recorded is reported, never hidden or turned into
 * another outcome. Real {@code node}, real Linux supervisor; {@code /proc} survivor scan after.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@org.junit.jupiter.api.Timeout(120)
@EnabledOnOs(OS.LINUX)
class OutcomeAuditTest extends LiveEngineTest {
    private static final AgentId AGENT = AgentId.of("agent-1");
    private static final String HELLO_INPUT = "{\"name\":\"Ada\"}";

    private SkillGateAdmin admin;
    private final List<SkillGate> gates = new ArrayList<>();
    private final List<ExecutionEvent> heard = new CopyOnWriteArrayList<>();

    @BeforeEach
    void fresh() throws IOException {
        Support.copySkill(Support.examples().resolve("hello-world"), skills);
        Bundles.fixtureSkill(skills, "stubborn", NodeFixture.IGNORE_SIGTERM, 30_000);
        Bundles.skill(
                skills,
                "pause",
                "pause.mjs",
                "setTimeout(() => process.stdout.write('{}'), 1500);\n".getBytes(StandardCharsets.UTF_8),
                Bundles.OPEN_OBJECT,
                Bundles.OPEN_OBJECT,
                10_000,
                1024);
        admin = SkillGateAdmin.open(data);
        heard.clear();
    }

    @AfterEach
    void closeAll() {
        gates.forEach(SkillGate::close);
        gates.clear();
        admin.close();
    }

    private SkillGate gate(ScriptedApprovalChannel channel) {
        SkillGate gate = SkillGate.builder()
                .admin(admin)
                .skillRoot(skills)
                .nodeRuntime(Support.runtime())
                .approvalChannel(channel)
                .listener(heard::add)
                .build();
        gates.add(gate);
        return gate;
    }

    private List<AuditEvent> events(SkillGateAdmin from) throws IOException {
        return from.trust().records(0, 1000).stream().map(AuditRecord::event).toList();
    }

    private List<AuditEvent.Settled> settlements(SkillGateAdmin from, RunId run) throws IOException {
        return events(from).stream()
                .filter(e -> e instanceof AuditEvent.Settled s && s.run().equals(run))
                .map(e -> (AuditEvent.Settled) e)
                .toList();
    }

    @Test
    void aConsentedRunIsRecordedAsConsumedThenSettled() throws IOException {
        SkillGate gate = gate(ScriptedApprovalChannel.denyingWhenEmpty().approveNext());
        RunId run = RunId.random();
        ExecutionEnvelope env = gate.execute(ExecutionRequest.of(run, AGENT, "hello-world", HELLO_INPUT, workspace));
        assertThat(env.status()).as(env.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);

        List<AuditEvent> events = events(admin);
        assertThat(events).hasSize(2);
        assertThat(events.get(0)).isInstanceOf(AuditEvent.Consumed.class);
        assertThat(events.get(1))
                .isEqualTo(new AuditEvent.Settled(
                        run,
                        AGENT,
                        env.revision().orElseThrow(),
                        AuditEvent.Settled.Authority.CONSENT,
                        ExecutionStatus.SUCCEEDED,
                        CleanupStatus.PROVEN,
                        env.hardening(),
                        List.of(),
                        false,
                        Optional.empty(),
                        Optional.of(env.confinement())));
        assertThat(env.hardening()).isNotEqualTo(HardeningLayer.NONE);
        // Facts only: no path, no input, no output in the log.
        String stored = new String(Files.readAllBytes(data.resolve("audit/audit.log")), StandardCharsets.ISO_8859_1);
        assertThat(stored)
                .doesNotContain(workspace.toString())
                .doesNotContain(data.toString())
                .doesNotContain("Ada")
                .doesNotContain("Hello");
    }

    @Test
    void aLateSettlementIsRecordedAsItReallyEndedAndTheDeliveredOutcomeStays() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        SkillGate gate = SkillGate.builder()
                .admin(admin)
                .skillRoot(skills)
                .nodeRuntime(Support.runtime())
                .approvalChannel(ScriptedApprovalChannel.denyingWhenEmpty().approveNext())
                .listener(e -> {
                    heard.add(e);
                    if (e.progress().orElse(null) instanceof ProgressEvent.Started) {
                        started.countDown();
                    }
                })
                .build();
        gates.add(gate);
        RunId run = RunId.random();
        PendingExecution pending = gate.executeAsync(ExecutionRequest.of(run, AGENT, "stubborn", "{}", workspace)
                .withCallerDeadline(Duration.ofMillis(1500)));
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        ExecutionEnvelope delivered = pending.await();
        assertThat(delivered.errorCodes()).containsExactly(ErrorCode.EXEC_CALLER_DEADLINE, ErrorCode.CLEANUP_UNKNOWN);
        if (!pending.settlement().toCompletableFuture().isDone()) {
            // Not settled yet (the script ignores SIGTERM): nothing claims an outcome so far.
            assertThat(settlements(admin, run)).isEmpty();
        }

        ExecutionEnvelope settled = pending.settlement().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertThat(settled.status()).isEqualTo(ExecutionStatus.CANCELLED);
        assertThat(pending.outcome().toCompletableFuture().getNow(null)).isSameAs(delivered);
        assertThat(settlements(admin, run)).singleElement().satisfies(s -> {
            assertThat(s.status()).isEqualTo(ExecutionStatus.CANCELLED);
            assertThat(s.cleanup()).isEqualTo(CleanupStatus.PROVEN);
            assertThat(s.errors()).isEqualTo(AuditEvent.Settled.boundedCodes(settled.errorCodes()));
            assertThat(s.earlyDelivery()).isTrue();
            assertThat(s.layer()).isEqualTo(settled.hardening());
        });
        assertThat(gate.unresolved()).isEmpty();
    }

    @Test
    void aRefusalAfterTheGrantWasUsedIsRecordedAndARefusalBeforeIsNot() throws Exception {
        ScriptedApprovalChannel holding = ScriptedApprovalChannel.holdingWhenEmpty();
        SkillGate gate = gate(holding);
        RunId run = RunId.random();
        PendingExecution pending =
                gate.executeAsync(ExecutionRequest.of(run, AGENT, "hello-world", HELLO_INPUT, workspace));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (holding.heldCount() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        // The policy changes while the human decides: the grant is used, then the re-check refuses.
        admin.savePolicy(PolicyUpdate.of(ExecutionPolicy.BLOCKED));
        holding.approveNext();
        ExecutionEnvelope env = pending.await();
        assertThat(env.errorCodes()).containsExactly(ErrorCode.POLICY_BLOCKED);
        assertThat(settlements(admin, run)).singleElement().satisfies(s -> {
            assertThat(s.status()).isEqualTo(ExecutionStatus.REFUSED);
            assertThat(s.cleanup()).isEqualTo(CleanupStatus.NOT_STARTED);
            assertThat(s.layer()).isEqualTo(HardeningLayer.NONE);
            assertThat(s.errors()).containsExactly(ErrorCode.POLICY_BLOCKED);
            assertThat(s.earlyDelivery()).isFalse();
        });

        admin.savePolicy(PolicyUpdate.of(ExecutionPolicy.ASK_EACH_TIME));
        RunId denied = RunId.random();
        PendingExecution second =
                gate.executeAsync(ExecutionRequest.of(denied, AGENT, "hello-world", HELLO_INPUT, workspace));
        holding.denyNext("no");
        assertThat(second.await().errorCodes()).containsExactly(ErrorCode.CONSENT_DENIED);
        assertThat(settlements(admin, denied)).as("nothing was authorised").isEmpty();
        holding.close();
    }

    @Test
    void aTrustedRevisionLaunchIsRecordedWithItsAuthority() throws IOException {
        SkillGate gate = gate(ScriptedApprovalChannel.denyingWhenEmpty().approveNext());
        Revision revision = gate.execute(
                        ExecutionRequest.of(RunId.random(), AGENT, "hello-world", HELLO_INPUT, workspace))
                .revision()
                .orElseThrow();
        admin.trustRevision(revision, AGENT, workspace, new Timeout(60_000), new OutputLimit(65_536));
        RunId run = RunId.random();
        assertThat(gate.execute(ExecutionRequest.of(run, AGENT, "hello-world", HELLO_INPUT, workspace))
                        .status())
                .isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(settlements(admin, run))
                .singleElement()
                .satisfies(s -> assertThat(s.authority()).isEqualTo(AuditEvent.Settled.Authority.TRUSTED_REVISION));
        assertThat(events(admin))
                .noneMatch(e -> e instanceof AuditEvent.Consumed c && c.run().equals(run));
    }

    @Test
    void aSettlementTheLogCannotRecordIsReportedListedAndRecordedByALaterResolve() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        SkillGate gate = SkillGate.builder()
                .admin(admin)
                .skillRoot(skills)
                .nodeRuntime(Support.runtime())
                .approvalChannel(ScriptedApprovalChannel.denyingWhenEmpty().approveNext())
                .listener(e -> {
                    heard.add(e);
                    if (e.progress().orElse(null) instanceof ProgressEvent.Started) {
                        started.countDown();
                    }
                })
                .build();
        gates.add(gate);
        RunId run = RunId.random();
        PendingExecution pending = gate.executeAsync(ExecutionRequest.of(run, AGENT, "pause", "{}", workspace));
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        // The audit log goes away while the script runs (its writer is closed): the run still happens.
        admin.close();

        ExecutionEnvelope env = pending.await();
        assertThat(env.status()).as("the outcome is what happened").isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(pending.settlement().toCompletableFuture().getNow(null)).isSameAs(env);
        assertThat(heard)
                .filteredOn(e -> e.run().equals(run) && e.kind() == ExecutionEvent.Kind.SETTLEMENT_UNRECORDED)
                .singleElement()
                .satisfies(e -> assertThat(e.codes()).containsExactly(ErrorCode.AUDIT_LOCKED));
        assertThat(gate.unresolved()).singleElement().satisfies(u -> {
            assertThat(u.run()).isEqualTo(run);
            assertThat(u.state()).isEqualTo(UnresolvedExecution.State.SETTLEMENT_UNRECORDED);
            assertThat(u.revision()).isEqualTo(env.revision());
        });

        admin = SkillGateAdmin.open(data);
        assertThat(settlements(admin, run)).isEmpty();
        SkillGateAdmin.Resolution r = admin.resolve(run);
        assertThat(r.resolved()).as(r.toString()).isTrue();
        assertThat(r.removed()).isFalse();
        assertThat(settlements(admin, run)).singleElement().satisfies(s -> {
            assertThat(s.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
            assertThat(s.cleanup()).isEqualTo(CleanupStatus.PROVEN);
        });
        assertThat(gate.unresolved()).isEmpty();
    }
}
