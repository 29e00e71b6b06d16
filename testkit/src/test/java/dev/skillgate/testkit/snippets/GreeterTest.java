package dev.skillgate.testkit.snippets;

// The first example of docs/testkit.md, as a user copies it: everything from the imports to the end
// of the class is the snippet (DocumentationSnippetsTest compares it with the page).
// snippet:begin greeter-test
import static dev.skillgate.testkit.SkillgateAssertions.assertThat;
import static dev.skillgate.testkit.SkillgateAssertions.assertThatAudit;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.fixtures.NodeFixture;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.testkit.SkillGateExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class GreeterTest {
    @RegisterExtension
    final SkillGateExtension skillgate = new SkillGateExtension();

    @Test
    void approvedRunSucceeds() {
        skillgate
                .bundle("greeter")
                .fixture(NodeFixture.ECHO_MJS)
                .write(); // writes SKILL.md, execution.json, scripts/echo.mjs
        skillgate.approvals().approveNext(); // the scripted human says yes once

        assertThat(skillgate.execute("greeter", "{\"name\":\"Ada\"}"))
                .succeeded()
                .hasCleanupProven()
                .hasOutput("{\"echo\":{\"name\":\"Ada\"}}");
        assertThatAudit(skillgate.auditEvents()).hasEventTypes(AuditEvent.Consumed.class, AuditEvent.Settled.class);
    }

    @Test
    void nothingQueuedMeansDenied() {
        skillgate.bundle("greeter").fixture(NodeFixture.ECHO_MJS).write();
        assertThat(skillgate.execute("greeter", "{}")).wasRefusedWith(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE);
    }
}
// snippet:end greeter-test
