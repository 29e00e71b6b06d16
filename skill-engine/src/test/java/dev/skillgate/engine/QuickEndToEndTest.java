package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.AgentId;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.RunId;
import dev.skillgate.runner.PortableSupervisor;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class QuickEndToEndTest {
    @TempDir
    Path tmp;

    @Test
    void portableApprovedRunEndsCleanupUnknown() throws Exception {
        Path skills = Files.createDirectories(tmp.resolve("skills"));
        Support.copySkill(Support.examples().resolve("hello-world"), skills);
        Path ws = Files.createDirectories(tmp.resolve("ws"));
        var bout = new java.io.ByteArrayOutputStream();
        var channel = new dev.skillgate.consent.ConsoleApprovalChannel(
                new java.io.PrintStream(bout, true), new java.io.StringReader("s\nyes\n"));
        try (SkillGate gate = SkillGate.builder()
                .dataDirectory(tmp.resolve("data"))
                .skillRoot(skills)
                .nodeRuntime(Support.runtime())
                .approvalChannel(channel)
                .supervisor(PortableSupervisor.create())
                .allowUnprovenCleanup()
                .build()) {
            ExecutionEnvelope env = gate.execute(ExecutionRequest.of(
                    RunId.random(), AgentId.of("agent-1"), "hello-world", "{\"name\":\"Ada\"}", ws));
            System.out.println(env);
            java.nio.file.Files.writeString(Path.of("/tmp/sg-console.txt"), bout.toString());
            assertThat(env.status()).isEqualTo(ExecutionStatus.CLEANUP_UNKNOWN);
            assertThat(env.errorCodes()).containsExactly(ErrorCode.CLEANUP_UNKNOWN);
        }
    }
}
