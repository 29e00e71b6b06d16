package dev.skillgate.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.AgentId;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Java examples of docs/audit.md, run against a real, fsync'd log (DocumentationSnippetsTest). */
class DocumentedUsageTest {
    @TempDir
    Path dataDir;

    final AgentId agentId = AgentId.of("support-bot");
    final SkillName skillName = SkillName.of("pdf-fill");
    final Optional<Sha256Digest> contractDigest = Optional.empty();
    final Revision revision = new Revision(Sha256Digest.hash("the captured bytes".getBytes(StandardCharsets.UTF_8)));

    @Test
    void approveThenRevokeAPromptSkill() {
        // snippet:begin audit-log-usage
        try (AuditLog log = AuditLog.open(dataDir.resolve("audit"))) { // never throws for what is on disk
            AuditStatus status = log.status(); // OK, DEGRADED, DISABLED, VERIFYING, EXPORT_HALTED
            PromptSkillScope scope = new PromptSkillScope(agentId, skillName, contractDigest, revision);
            if (!log.isTrusted(scope)) {
                // ask the human; then
                AppendResult r = log.approve(scope); // Committed only once durable
            }
            log.revoke(scope); // TRUST_NOT_FOUND / TRUST_REVOKED when nothing to do
            List<TrustDecision> decisions = log.list(); // decisions only: ids, names, digests
        }
        // snippet:end audit-log-usage

        try (AuditLog log = AuditLog.open(dataDir.resolve("audit"))) {
            PromptSkillScope scope = new PromptSkillScope(agentId, skillName, contractDigest, revision);
            assertThat(log.status().state()).isEqualTo(AuditState.OK);
            assertThat(log.isTrusted(scope)).isFalse();
            assertThat(log.approve(scope)).isInstanceOf(AppendResult.Committed.class);
            assertThat(log.isTrusted(scope)).isTrue();
        }
    }

    @Test
    void aLogWithASink() {
        Path dir = dataDir.resolve("audit");
        RecordingSink siem = new RecordingSink("siem");

        // snippet:begin audit-log-with-sink
        AuditLog log = AuditLog.open(AuditLogOptions.builder(dir)
                .sink(siem) // called in the order added; at most 8, distinct names
                .sinkTimeout(Duration.ofSeconds(2)) // default 5 s; 1 ms to 60 s
                .build());
        // snippet:end audit-log-with-sink

        try (log) {
            PromptSkillScope scope = new PromptSkillScope(agentId, skillName, contractDigest, revision);
            assertThat(log.approve(scope)).isInstanceOf(AppendResult.Committed.class);
        }
        assertThat(siem.accepted).hasSize(1);
    }
}
