package dev.skillgate.testkit.snippets;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.engine.ExecutionRequest;
import dev.skillgate.engine.SkillGate;
import dev.skillgate.fixtures.NodeFixture;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.RunId;
import dev.skillgate.testkit.InMemoryAuditSink;
import dev.skillgate.testkit.SkillGateExtension;
import dev.skillgate.testkit.TestNode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The {@code InMemoryAuditSink} example of docs/testkit.md, run against a real gate and audit log. */
class AuditSinkSnippetTest {
    @RegisterExtension
    final SkillGateExtension skillgate = new SkillGateExtension();

    @TempDir
    Path dataDir;

    @Test
    void everyCommittedRecordReachesTheSinkAsOneChain() {
        skillgate.bundle("greeter").fixture(NodeFixture.ECHO_MJS).write();
        skillgate.approvals().approveNext();
        Path skills = skillgate.skillsRoot();
        Path workspace = skillgate.workspace();
        ExecutionEnvelope env;

        // snippet:begin in-memory-audit-sink
        InMemoryAuditSink siem = new InMemoryAuditSink("siem");
        try (SkillGate gate = SkillGate.builder()
                .dataDirectory(dataDir)
                .skillRoot(skills)
                .nodeRuntime(TestNode.runtime())
                .approvalChannel(skillgate.approvals())
                .auditSink(siem)
                .build()) {
            env = gate.execute(ExecutionRequest.of(RunId.random(), AgentId.of("agent"), "greeter", "{}", workspace));
        }
        siem.assertContiguousChain();
        assertThat(siem.received()).extracting(r -> r.record().event()).hasSize(2); // CONSUME, SETTLE
        // snippet:end in-memory-audit-sink

        assertThat(env.succeeded()).as(env.errorCodes().toString()).isTrue();
    }
}
