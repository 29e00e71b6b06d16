package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.ExecutionPolicy;
import dev.skillgate.consent.PolicyChange;
import dev.skillgate.consent.PolicyUpdate;
import dev.skillgate.consent.ScopeEntry;
import dev.skillgate.consent.TrustScope;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Timeout;
import dev.skillgate.model.WorkspaceIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SkillGateAdmin#trustRevision} approves exactly the scope it names (SPEC §8: scopes saved in
 * other modes are unapproved drafts; decision 0362), against the real policy file and audit log.
 */
class TrustRevisionTest {
    private static final AgentId AGENT = AgentId.of("agent-1");

    @TempDir
    Path tmp;

    @Test
    void trustingOneRevisionNeverApprovesADraftSavedInAnotherMode() throws IOException {
        Path workspace = Files.createDirectories(tmp.resolve("workspace"));
        Revision draftRevision = Revision.parse("sha256:" + "a".repeat(64));
        Revision trustedRevision = Revision.parse("sha256:" + "b".repeat(64));
        try (SkillGateAdmin admin = SkillGateAdmin.open(tmp.resolve("data"))) {
            WorkspaceIdentity ws = SkillGateAdmin.workspaceIdentity(workspace).orElseThrow();
            TrustScope draft = new TrustScope(draftRevision, AGENT, ws, Timeout.DEFAULT, OutputLimit.DEFAULT);
            assertThat(admin.savePolicy(new PolicyUpdate(ExecutionPolicy.ASK_EACH_TIME, List.of(draft)))
                            .isSuccess())
                    .isTrue();
            assertThat(admin.currentPolicy().scopes())
                    .singleElement()
                    .satisfies(e -> assertThat(e.isApproved())
                            .as("saved in another mode: a draft")
                            .isFalse());

            PolicyChange change = admin.trustRevision(
                            trustedRevision, AGENT, workspace, Timeout.DEFAULT, OutputLimit.DEFAULT)
                    .orElseThrow();

            assertThat(change.minted())
                    .extracting(e -> e.scope().revision())
                    .as("only the named scope gets a receipt")
                    .containsExactly(trustedRevision);
            assertThat(admin.currentPolicy().mode()).isEqualTo(ExecutionPolicy.TRUST_SELECTED_REVISIONS);
            assertThat(admin.currentPolicy().scopes())
                    .filteredOn(ScopeEntry::isApproved)
                    .extracting(e -> e.scope().revision())
                    .containsExactly(trustedRevision);
            assertThat(admin.trust().list())
                    .as("the audit log approved nothing but the named scope")
                    .hasSize(1);
        }
    }

    @Test
    void trustingAnotherRevisionKeepsEveryApprovedScopeAndItsReceipt() throws IOException {
        Path workspace = Files.createDirectories(tmp.resolve("workspace"));
        Revision first = Revision.parse("sha256:" + "c".repeat(64));
        Revision second = Revision.parse("sha256:" + "d".repeat(64));
        try (SkillGateAdmin admin = SkillGateAdmin.open(tmp.resolve("data"))) {
            admin.trustRevision(first, AGENT, workspace, Timeout.DEFAULT, OutputLimit.DEFAULT)
                    .orElseThrow();
            ScopeEntry kept = admin.currentPolicy().scopes().get(0);
            admin.trustRevision(second, AGENT, workspace, Timeout.DEFAULT, OutputLimit.DEFAULT)
                    .orElseThrow();
            assertThat(admin.currentPolicy().scopes()).hasSize(2).contains(kept);
            assertThat(admin.currentPolicy().scopes()).allMatch(ScopeEntry::isApproved);
        }
    }
}
