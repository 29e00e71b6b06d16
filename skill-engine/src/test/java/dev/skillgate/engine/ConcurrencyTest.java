package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.engine.internal.Settlements;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.RunId;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Races through the facade with a real node and the Linux supervisor: concurrent executions in one
 * gate, and cancels racing the hand-over to the runner at seeded random moments. Every outcome must
 * be one of the consistent shapes, the delivered outcome never changes, every execution settles and
 * nothing survives.
 */
@org.junit.jupiter.api.Timeout(180)
@EnabledOnOs(OS.LINUX)
class ConcurrencyTest extends HelloWorldRootTest {
    ConcurrencyTest() {
        super("skillgate-engine-race");
    }

    @BeforeAll
    void setUp() throws IOException {
        // Prints after 300 ms without reading stdin: a window for cancels to land while it runs.
        Bundles.fixtureSkill(skills, "slow", dev.skillgate.fixtures.NodeFixture.NEVER_READS_STDIN, 10_000);
    }

    private SkillGate gate(SkillGateAdmin admin) {
        ApprovalChannel alwaysYes = r -> CompletableFuture.completedFuture(r.approve());
        return SkillGate.builder()
                .admin(admin)
                .skillRoot(skills)
                .nodeRuntime(Support.runtime())
                .approvalChannel(alwaysYes)
                .build();
    }

    @Test
    void concurrentExecutionsInOneGateEachSucceedWithTheirOwnConsumptionRecorded() throws Exception {
        try (SkillGateAdmin admin = SkillGateAdmin.open(Files.createTempDirectory(base, "data"));
                SkillGate gate = gate(admin)) {
            List<PendingExecution> pending = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                pending.add(gate.executeAsync(ExecutionRequest.of(
                        RunId.random(),
                        AgentId.of("agent-" + (i % 3)),
                        "hello-world",
                        "{\"name\":\"n" + i + "\"}",
                        workspace)));
            }
            for (int i = 0; i < pending.size(); i++) {
                ExecutionEnvelope env = pending.get(i).await();
                assertThat(env.status()).as(env.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
                assertThat(env.output().orElseThrow()).contains("Hello, n" + i + "!");
            }
            List<AuditEvent> events = admin.trust().records(0, 1000).stream()
                    .map(AuditRecord::event)
                    .toList();
            assertThat(events).hasSize(24);
            List<AuditEvent.Consumed> consumed = events.stream()
                    .filter(e -> e instanceof AuditEvent.Consumed)
                    .map(e -> (AuditEvent.Consumed) e)
                    .toList();
            assertThat(consumed.stream().map(AuditEvent.Consumed::run).distinct())
                    .hasSize(12);
            // Each run's settlement follows its consumption.
            for (AuditEvent.Consumed c : consumed) {
                int at = events.indexOf(c);
                assertThat(events.subList(at + 1, events.size()))
                        .filteredOn(e ->
                                e instanceof AuditEvent.Settled s && s.run().equals(c.run()))
                        .singleElement()
                        .satisfies(e ->
                                assertThat(((AuditEvent.Settled) e).status()).isEqualTo(ExecutionStatus.SUCCEEDED));
            }
        }
    }

    @Test
    void cancelsRacingTheLaunchAlwaysLeaveAConsistentOutcomeAndASettlement() throws Exception {
        Random random = new Random(20261201);
        try (SkillGateAdmin admin = SkillGateAdmin.open(Files.createTempDirectory(base, "data"));
                SkillGate gate = gate(admin)) {
            java.util.Map<RunId, ExecutionEnvelope[]> outcomes = new java.util.LinkedHashMap<>();
            for (int round = 0; round < 20; round++) {
                RunId run = RunId.random();
                PendingExecution p =
                        gate.executeAsync(ExecutionRequest.of(run, AgentId.of("racer"), "slow", "{}", workspace));
                Thread.sleep(random.nextInt(500));
                p.cancel();
                ExecutionEnvelope delivered = p.await();
                ExecutionEnvelope settled = p.settlement().toCompletableFuture().get(30, TimeUnit.SECONDS);
                switch (delivered.status()) {
                    // A script that ends on SIGTERM is delivered as the runner settled it (decision 0363).
                    case SUCCEEDED, CANCELLED -> assertThat(settled).isSameAs(delivered);
                    case REFUSED -> {
                        assertThat(delivered.errorCodes()).containsExactly(ErrorCode.EXEC_ABORTED);
                        assertThat(settled.status()).isEqualTo(ExecutionStatus.REFUSED);
                        assertThat(settled.cleanup().status()).isEqualTo(CleanupStatus.NOT_STARTED);
                    }
                    case CLEANUP_UNKNOWN -> {
                        assertThat(delivered.errorCodes())
                                .containsExactly(ErrorCode.EXEC_CANCELLED, ErrorCode.CLEANUP_UNKNOWN);
                        // What the runner finally saw: the script finished, was cancelled, or was
                        // refused before spawn — always with its tree accounted for.
                        assertThat(settled.status())
                                .isIn(ExecutionStatus.SUCCEEDED, ExecutionStatus.CANCELLED, ExecutionStatus.REFUSED);
                        assertThat(settled.cleanup().status()).isIn(CleanupStatus.PROVEN, CleanupStatus.NOT_STARTED);
                    }
                    default -> throw new AssertionError("unexpected outcome " + delivered);
                }
                assertThat(p.outcome().toCompletableFuture().getNow(null)).isSameAs(delivered);
                outcomes.put(run, new ExecutionEnvelope[] {delivered, settled});
            }
            assertThat(gate.unresolved()).isEmpty();
            // Every authorised execution's record states its real settlement (late ones included);
            // every launched one has one.
            List<AuditEvent> events = admin.trust().records(0, 1000).stream()
                    .map(AuditRecord::event)
                    .toList();
            for (var entry : outcomes.entrySet()) {
                ExecutionEnvelope delivered = entry.getValue()[0];
                ExecutionEnvelope settled = entry.getValue()[1];
                List<AuditEvent.Settled> records = events.stream()
                        .filter(e ->
                                e instanceof AuditEvent.Settled s && s.run().equals(entry.getKey()))
                        .map(e -> (AuditEvent.Settled) e)
                        .toList();
                boolean consumed = events.stream()
                        .anyMatch(e ->
                                e instanceof AuditEvent.Consumed c && c.run().equals(entry.getKey()));
                assertThat(records)
                        .as("a record exactly when the grant was used")
                        .hasSize(consumed ? 1 : 0);
                if (delivered.status() == ExecutionStatus.CLEANUP_UNKNOWN
                        || delivered.status() == ExecutionStatus.CANCELLED
                        || delivered.status() == ExecutionStatus.SUCCEEDED) {
                    assertThat(records).hasSize(1);
                }
                for (AuditEvent.Settled s : records) {
                    assertThat(s.status()).isEqualTo(settled.status());
                    assertThat(s.cleanup()).isEqualTo(settled.cleanup().status());
                    assertThat(s.earlyDelivery()).isEqualTo(delivered != settled);
                }
            }
        }
        assertThat(Settlements.inFlightCount()).isZero();
    }
}
