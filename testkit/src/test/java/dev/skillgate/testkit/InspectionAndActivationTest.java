package dev.skillgate.testkit;

import static dev.skillgate.testkit.SkillgateAssertions.assertThat;
import static dev.skillgate.testkit.SkillgateAssertions.assertThatAudit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.engine.Activation;
import dev.skillgate.fixtures.NodeFixture;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InputType;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.ToolClass;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Inspections and prompt-skill activation through the extension. */
@EnabledOnOs(OS.LINUX)
class InspectionAndActivationTest {
    private static final String CONTRACT = "{\"schemaVersion\":1,\"recordType\":\"skill-contract\","
            + "\"identity\":{\"id\":\"tests/summariser\",\"version\":\"1.0.0\"},\"origin\":{\"type\":\"local-unsigned\"},"
            + "\"agents\":[{\"kind\":\"test-agent\",\"minVersion\":\"1.0.0\",\"maxVersion\":\"1.9.9\"}],"
            + "\"inputTypes\":[\"text\"],\"tools\":[],\"credentials\":[],\"permissionMode\":\"read-only\","
            + "\"networkDestinations\":[],\"sideEffectClass\":\"none\"}";
    private static final AgentContext AGENT = AgentContext.of(
            "test-agent",
            SemVer.parse("1.2.0"),
            Set.of(InputType.TEXT),
            Set.of(ToolClass.AGENT_NATIVE),
            PermissionMode.READ_ONLY);

    @RegisterExtension
    final SkillGateExtension skillgate = new SkillGateExtension();

    @Test
    void anExecutableBundleWithAContractInspectsCleanly() {
        skillgate
                .bundle("summariser")
                .fixture(NodeFixture.ECHO_MJS)
                .contract(CONTRACT)
                .write();
        assertThat(skillgate.inspect("summariser"))
                .passes()
                .isPortable()
                .isExecutable()
                .hasAcceptedContract();
    }

    @Test
    void aHostileBundleInspectsWithItsCodes() {
        skillgate
                .bundle("broken")
                .fixture(NodeFixture.ECHO_MJS)
                .declare("../escape.mjs")
                .write();
        assertThat(skillgate.inspect("broken")).doesNotPass().isNotExecutable().hasDiagnostic(ErrorCode.PATH_TRAVERSAL);
        skillgate.bundle("prompt-only").noManifest().write();
        assertThat(skillgate.inspect("prompt-only")).isNotExecutable().hasDiagnostic(ErrorCode.MANIFEST_ABSENT);
    }

    @Test
    void firstUseIsApprovedOnceAndAudited() {
        skillgate
                .bundle("summariser")
                .noManifest()
                .contract(CONTRACT)
                .body("Summarise in three bullets.\n")
                .write();
        skillgate.approvals().approveNext();
        assertThat(skillgate.activate("summariser", AGENT)).isInstanceOfSatisfying(Activation.Activated.class, a -> {
            assertThat(a.instructions()).endsWith("Summarise in three bullets.\n");
            assertThat(a.askedNow()).isTrue();
        });
        assertThat(skillgate.activate("summariser", AGENT).activated()).isTrue();
        assertThat(skillgate.approvals().activationRequests()).hasSize(1);
        assertThatAudit(skillgate.auditEvents()).hasEventTypes(AuditEvent.Approved.class);
    }
}
