package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.engine.HostAgent.HoldingUi;
import dev.skillgate.engine.HostAgent.Shown;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.RunId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Issue 24 through the public API with a real node: consent holds under a buggy host (a UI that
 * answers the wrong request, blocks, throws) and a pushy agent.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@org.junit.jupiter.api.Timeout(300)
@EnabledOnOs(OS.LINUX)
class HostileHostTest {
    private final String marker = Support.newMarker();
    private Path base;
    private Path skills;
    private Path workspace;

    @BeforeAll
    void setUp() throws IOException {
        base = Files.createTempDirectory("skillgate-engine-hostile");
        Path root = Support.hostileRoot(base, marker);
        skills = Files.createDirectories(root.resolve("skills"));
        workspace = Files.createDirectories(root.resolve("ws"));
        Support.copySkill(Support.examples().resolve("hello-world"), skills);
        Support.copySkill(Support.examples().resolve("word-stats"), skills);
    }

    @AfterAll
    void noSurvivors() throws IOException {
        Support.assertNoSurvivors(marker, base);
    }

    private static List<AuditEvent> events(SkillGateAdmin admin) throws IOException {
        return admin.trust().records(0, 10_000).stream().map(AuditRecord::event).toList();
    }

    /** Finding 4: a host UI that completes the wrong pending request approves nothing. */
    @Test
    void anAnswerForAnotherRequestIsRefusedAndNothingLaunches() throws Exception {
        HoldingUi ui = new HoldingUi();
        try (SkillGateAdmin admin = SkillGateAdmin.open(Files.createTempDirectory(base, "data"));
                SkillGate gate = SkillGate.builder()
                        .admin(admin)
                        .skillRoot(skills)
                        .nodeRuntime(Support.runtime())
                        .approvalChannel(ui)
                        .build()) {
            PendingExecution a = gate.executeAsync(
                    ExecutionRequest.of(RunId.random(), AgentId.of("a"), "hello-world", "{\"name\":\"A\"}", workspace));
            List<Shown> first = ui.awaitShown(1);
            PendingExecution b = gate.executeAsync(ExecutionRequest.of(
                    RunId.random(), AgentId.of("b"), "word-stats", "{\"text\":\"a b\"}", workspace));
            List<Shown> both = ui.awaitShown(2);
            // The UI swaps its answers: each request gets the other one's approval.
            both.get(0).answer().complete(both.get(1).approval());
            both.get(1).answer().complete(first.get(0).approval());
            ExecutionEnvelope ea = a.await();
            ExecutionEnvelope eb = b.await();
            assertThat(ea.status()).isEqualTo(ExecutionStatus.REFUSED);
            assertThat(ea.errorCodes()).containsExactly(ErrorCode.BINDING_MISMATCH);
            assertThat(eb.status()).isEqualTo(ExecutionStatus.REFUSED);
            assertThat(eb.errorCodes()).containsExactly(ErrorCode.BINDING_MISMATCH);
            assertThat(events(admin)).noneMatch(e -> e instanceof AuditEvent.Consumed);
        }
    }
}
