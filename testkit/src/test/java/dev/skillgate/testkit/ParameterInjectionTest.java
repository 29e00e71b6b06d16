package dev.skillgate.testkit;

import static dev.skillgate.testkit.SkillgateAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.ScriptedApprovalChannel;
import dev.skillgate.engine.ExecutionRequest;
import dev.skillgate.engine.SkillGate;
import dev.skillgate.fixtures.NodeFixture;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.RunId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code @ExtendWith} with injected parameters. */
@EnabledOnOs(OS.LINUX)
@ExtendWith(SkillGateExtension.class)
class ParameterInjectionTest {

    @Test
    void theGateTheChannelAndTheExtensionAreInjected(
            SkillGateExtension skillgate, SkillGate gate, ScriptedApprovalChannel approvals) {
        skillgate.bundle("echo").fixture(NodeFixture.ECHO_MJS).write();
        assertThat(gate.catalog())
                .singleElement()
                .satisfies(s -> assertThat(s.name()).isEqualTo("echo"));
        approvals.approveNext();
        assertThat(gate.execute(ExecutionRequest.of(
                        RunId.random(), AgentId.of("a-1"), "echo", "{\"k\":[1,2]}", skillgate.workspace())))
                .succeeded()
                .hasOutput("{\"echo\":{\"k\":[1,2]}}");
        assertThat(approvals.requests().get(0).agent()).isEqualTo(AgentId.of("a-1"));
    }
}
