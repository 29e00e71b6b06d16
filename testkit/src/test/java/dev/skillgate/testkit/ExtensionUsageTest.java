package dev.skillgate.testkit;

import static dev.skillgate.testkit.SkillgateAssertions.assertThat;
import static dev.skillgate.testkit.SkillgateAssertions.assertThatAudit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.fixtures.NodeFixture;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The extension used the way a host's test author would. */
@EnabledOnOs(OS.LINUX)
class ExtensionUsageTest {
    @RegisterExtension
    final SkillGateExtension skillgate = new SkillGateExtension();

    @Test
    void anApprovedFixtureSucceedsAndItsConsumptionIsAudited() {
        skillgate.bundle("echo").fixture(NodeFixture.ECHO_MJS).write();
        skillgate.approvals().approveNext();

        ExecutionEnvelope env = skillgate.execute("echo", "{\"name\":\"Ada\"}");

        assertThat(env).succeeded().hasCleanupProven().hasOutput("{\"echo\":{\"name\":\"Ada\"}}");
        assertThat(skillgate.approvals().requests()).hasSize(1);
        // The consumption before the launch, then the settlement (docs/engine.md, the outcome record).
        assertThatAudit(skillgate.auditEvents()).hasEventTypes(AuditEvent.Consumed.class, AuditEvent.Settled.class);
    }

    @Test
    void commonJsScriptsRunToo() {
        skillgate.bundle("echo-cjs").fixture(NodeFixture.ECHO_CJS).write();
        skillgate.approvals().approveNext();
        assertThat(skillgate.execute("echo-cjs", "{}")).succeeded().outputContains("\"kind\":\"object\"");
    }

    @Test
    void withNothingQueuedTheScriptedHumanDenies() {
        skillgate.bundle("echo").fixture(NodeFixture.ECHO_MJS).write();
        assertThat(skillgate.execute("echo", "{}")).wasRefusedWith(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE);
        skillgate.approvals().denyNext("not today");
        assertThat(skillgate.execute("echo", "{}")).wasRefusedWith(ErrorCode.CONSENT_DENIED);
        assertThatAudit(skillgate.auditEvents()).isEmpty();
    }

    @Test
    void outputThatBreaksTheOutputSchemaFails() {
        skillgate
                .bundle("echo")
                .fixture(NodeFixture.ECHO_MJS)
                .outputSchema("{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}")
                .write();
        skillgate.approvals().approveNext();
        assertThat(skillgate.execute("echo", "{}"))
                .hasErrorCodes(ErrorCode.OUTPUT_SCHEMA, ErrorCode.VALUE_ADDITIONAL_PROPERTY)
                .hasCleanupProven();
    }
}
