package dev.skillgate.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.model.AgentId;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The trust store API on real files: approve, revoke, list, records, reopen. */
class AuditLogTest {
    @TempDir
    Path tmp;

    @Test
    void aFreshLogIsCreatedPrivateAndTrustsNothing() throws Exception {
        Path dir = tmp.resolve("data/audit");
        try (AuditLog log = Fixtures.open(dir)) {
            assertThat(log.status().state()).isEqualTo(AuditState.OK);
            assertThat(log.status().writable()).isTrue();
            assertThat(log.status().committedSequence()).isZero();
            assertThat(log.isTrusted(Fixtures.prompt(1))).isFalse();
            assertThat(log.list()).isEmpty();
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)))
                .isEqualTo("rwx------");
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f, LinkOption.NOFOLLOW_LINKS)))
                        .as(f.getFileName().toString())
                        .isEqualTo("rw-------");
            }
        }
        assertThat(dir.resolve("audit.log")).exists();
        assertThat(dir.resolve("audit.head")).exists();
        assertThat(dir.resolve("audit.lock")).exists();
        assertThat(dir.resolve("audit.head.tmp")).doesNotExist();
    }

    @Test
    void approvalsAndRevocationsSurviveReopening() throws Exception {
        Path dir = tmp.resolve("audit");
        PromptSkillScope a = Fixtures.prompt(1);
        ExecutionScope b = Fixtures.execution(2);
        try (AuditLog log = Fixtures.open(dir)) {
            AppendResult first = log.approve(a);
            assertThat(first).isInstanceOf(AppendResult.Committed.class);
            assertThat(((AppendResult.Committed) first).sequence()).isEqualTo(1);
            assertThat(log.approve(b).isCommitted()).isTrue();
            assertThat(log.isTrusted(a)).isTrue();
            assertThat(log.isTrusted(b)).isTrue();
            assertThat(log.revoke(a).isCommitted()).isTrue();
            assertThat(log.isTrusted(a)).isFalse();
            assertThat(log.status().committedSequence()).isEqualTo(3);
        }
        try (AuditLog log = Fixtures.open(dir)) {
            assertThat(log.status().state()).isEqualTo(AuditState.OK);
            assertThat(log.isTrusted(a)).isFalse();
            assertThat(log.isTrusted(b)).isTrue();
            List<TrustDecision> list = log.list();
            assertThat(list)
                    .extracting(TrustDecision::status)
                    .containsExactly(TrustStatus.TRUSTED, TrustStatus.REVOKED);
            assertThat(list).extracting(TrustDecision::scope).containsExactly(b, a);
            List<AuditRecord> records = log.records(0, 100);
            assertThat(records).extracting(AuditRecord::sequence).containsExactly(1L, 2L, 3L);
            assertThat(records.get(0).event()).isEqualTo(new AuditEvent.Approved(a));
            assertThat(records.get(2).event()).isEqualTo(new AuditEvent.Revoked(a));
            assertThat(log.records(1, 1)).extracting(AuditRecord::sequence).containsExactly(2L);
        }
    }

    @Test
    void changingAnyScopeFieldMakesANewUntrustedScope() {
        Path dir = tmp.resolve("audit");
        PromptSkillScope a = Fixtures.prompt(1);
        try (AuditLog log = Fixtures.open(dir)) {
            log.approve(a);
            Revision edited = Revision.parse(Sha256Digest.hash("one byte changed".getBytes(StandardCharsets.UTF_8))
                    .toString());
            assertThat(log.isTrusted(new PromptSkillScope(a.agent(), a.skill(), a.contract(), edited)))
                    .isFalse();
            assertThat(log.isTrusted(new PromptSkillScope(AgentId.of("other"), a.skill(), a.contract(), a.revision())))
                    .isFalse();
            assertThat(log.isTrusted(
                            new PromptSkillScope(a.agent(), a.skill(), java.util.Optional.empty(), a.revision())))
                    .isFalse();
            ExecutionScope e = Fixtures.execution(5);
            log.approve(e);
            ExecutionScope newReceipt = new ExecutionScope(
                    e.revision(),
                    e.agent(),
                    e.workspace(),
                    e.timeoutCeiling(),
                    e.outputCeiling(),
                    java.util.UUID.randomUUID(),
                    e.receiptIssuedAt());
            assertThat(log.isTrusted(e)).isTrue();
            assertThat(log.isTrusted(newReceipt)).isFalse();
            assertThat(a.id())
                    .isEqualTo(Fixtures.prompt(1).id())
                    .isNotEqualTo(Fixtures.prompt(2).id());
        }
    }

    @Test
    void revokeNeedsAnApprovedScope() {
        try (AuditLog log = Fixtures.open(tmp.resolve("audit"))) {
            AppendResult notFound = log.revoke(Fixtures.prompt(9));
            assertThat(notFound).isInstanceOf(AppendResult.Refused.class);
            assertThat(((AppendResult.Refused) notFound).reason().code()).isEqualTo(ErrorCode.TRUST_NOT_FOUND);
            log.approve(Fixtures.prompt(9));
            assertThat(log.revoke(Fixtures.prompt(9)).isCommitted()).isTrue();
            AppendResult again = log.revoke(Fixtures.prompt(9));
            assertThat(((AppendResult.Refused) again).reason().code()).isEqualTo(ErrorCode.TRUST_REVOKED);
            assertThat(log.status().committedSequence()).isEqualTo(2);
            // Re-approval after a revocation trusts again.
            assertThat(log.approve(Fixtures.prompt(9)).isCommitted()).isTrue();
            assertThat(log.isTrusted(Fixtures.prompt(9))).isTrue();
        }
    }

    @Test
    void consumptionAndPolicyChangesAreRecordedButGrantNothing() throws Exception {
        try (AuditLog log = Fixtures.open(tmp.resolve("audit"))) {
            Revision rev = Fixtures.prompt(1).revision();
            AuditEvent.Consumed consumed = new AuditEvent.Consumed(
                    RunId.of("run-1"), AgentId.of("agent-1"), rev, Sha256Digest.hash(new byte[] {1}));
            AuditEvent.PolicyChanged policy =
                    new AuditEvent.PolicyChanged("TRUST_SELECTED_REVISIONS", Sha256Digest.hash(new byte[] {2}));
            assertThat(log.recordConsumption(consumed).isCommitted()).isTrue();
            assertThat(log.recordPolicyChange(policy).isCommitted()).isTrue();
            assertThat(log.list()).isEmpty();
            assertThat(log.records(0, 10)).extracting(AuditRecord::event).containsExactly(consumed, policy);
        }
    }

    @Test
    void settlementsResolutionsAndPlansAreRecordedVerbatimAndGrantNothing() throws Exception {
        Path dir = tmp.resolve("audit");
        List<AuditEvent> events = new java.util.ArrayList<>();
        try (AuditLog log = Fixtures.open(dir)) {
            for (int n = 0; n < 4; n++) {
                AuditEvent.Settled settled = Fixtures.settled(n);
                AuditEvent.Resolved resolved = Fixtures.resolved(n);
                AuditEvent.PlanApproved plan = Fixtures.planApproved(n);
                AuditEvent.PlanStepConsumed step = Fixtures.planStep(n);
                assertThat(log.recordSettlement(settled).isCommitted()).isTrue();
                assertThat(log.recordResolution(resolved).isCommitted()).isTrue();
                assertThat(log.recordPlanApproval(plan).isCommitted()).isTrue();
                assertThat(log.recordPlanStep(step).isCommitted()).isTrue();
                events.addAll(List.of(settled, resolved, plan, step));
            }
            assertThat(log.list()).isEmpty();
        }
        try (AuditLog log = Fixtures.open(dir)) {
            assertThat(log.status().state()).isEqualTo(AuditState.OK);
            assertThat(log.records(0, 100)).extracting(AuditRecord::event).containsExactlyElementsOf(events);
            assertThat(log.list()).isEmpty();
        }
    }

    @Test
    void aSettlementKeepsABoundedListOfDistinctCodes() {
        AuditEvent.Settled s = Fixtures.settled(1);
        List<ErrorCode> repeated = List.of(ErrorCode.CLEANUP_UNKNOWN, ErrorCode.CLEANUP_UNKNOWN);
        assertThatThrownBy(() -> new AuditEvent.Settled(
                        s.run(),
                        s.agent(),
                        s.revision(),
                        s.authority(),
                        s.status(),
                        s.cleanup(),
                        s.layer(),
                        repeated,
                        true))
                .isInstanceOf(IllegalArgumentException.class);
        List<ErrorCode> many = List.of(ErrorCode.values()).subList(0, AuditEvent.Settled.MAX_ERRORS + 1);
        assertThatThrownBy(() -> new AuditEvent.Settled(
                        s.run(),
                        s.agent(),
                        s.revision(),
                        s.authority(),
                        s.status(),
                        s.cleanup(),
                        s.layer(),
                        many,
                        true))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(AuditEvent.Settled.boundedCodes(
                        List.of(ErrorCode.EXEC_CANCELLED, ErrorCode.CLEANUP_UNKNOWN, ErrorCode.EXEC_CANCELLED)))
                .containsExactly(ErrorCode.EXEC_CANCELLED, ErrorCode.CLEANUP_UNKNOWN);
        assertThat(AuditEvent.Settled.boundedCodes(List.of(ErrorCode.values()))).hasSize(AuditEvent.Settled.MAX_ERRORS);
        assertThatThrownBy(() -> new AuditEvent.DeadProcess(0, "jdk:1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AuditEvent.DeadProcess(1, "a b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AuditEvent.PlanApproved(
                        s.run(), s.agent(), Sha256Digest.hash(new byte[0]), Sha256Digest.hash(new byte[0]), 65))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AuditEvent.PlanStepConsumed(
                        s.run(),
                        s.agent(),
                        s.revision(),
                        Sha256Digest.hash(new byte[0]),
                        Sha256Digest.hash(new byte[0]),
                        64))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void nothingListedOrStoredMentionsPaths() throws Exception {
        Path dir = tmp.resolve("secret-project-dir/audit");
        try (AuditLog log = Fixtures.open(dir)) {
            log.approve(Fixtures.prompt(1));
            log.approve(Fixtures.execution(1));
            assertThat(log.list().toString()).doesNotContain(tmp.toString()).doesNotContain("secret-project-dir");
            assertThat(log.records(0, 10).toString()).doesNotContain(tmp.toString());
            assertThat(log.status().toString()).doesNotContain(tmp.toString());
        }
        String stored = new String(Files.readAllBytes(dir.resolve("audit.log")), StandardCharsets.ISO_8859_1);
        assertThat(stored).doesNotContain("secret-project-dir").doesNotContain(tmp.toString());
    }

    @Test
    void invalidRecordValuesAreRejectedBeforeAnythingIsWritten() {
        assertThatThrownBy(() -> new AuditEvent.PolicyChanged("ask each time", Sha256Digest.hash(new byte[0])))
                .isInstanceOf(IllegalArgumentException.class);
        try (AuditLog log = Fixtures.open(tmp.resolve("audit"))) {
            assertThatThrownBy(() -> log.repair("bad\u0000reason")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> log.repair("lone \ud800 surrogate")).isInstanceOf(IllegalArgumentException.class);
            assertThat(log.status().committedSequence()).isZero();
        }
    }

    @Test
    void aClosedLogTrustsNothingAndRefusesAppends() {
        AuditLog log = Fixtures.open(tmp.resolve("audit"));
        log.approve(Fixtures.prompt(1));
        log.close();
        log.close();
        assertThat(log.isTrusted(Fixtures.prompt(1))).isFalse();
        assertThat(log.status().writable()).isFalse();
        assertThatThrownBy(() -> log.approve(Fixtures.prompt(2))).isInstanceOf(IllegalStateException.class);
        try (AuditLog again = Fixtures.open(tmp.resolve("audit"))) {
            assertThat(again.status().writable()).isTrue();
            assertThat(again.isTrusted(Fixtures.prompt(1))).isTrue();
        }
    }

    @Test
    void aLogThatCannotBeLookedUpIsNeverReportedAsNoLog() throws Exception {
        // Only "no such file" means "no log yet"; a directory that cannot be looked up (here its
        // parent is a file; as a non-root user also permission denied) disables trust instead.
        Path file = Files.writeString(tmp.resolve("a-file"), "x");
        try (AuditLog log = AuditLog.openReadOnly(file.resolve("audit"))) {
            assertThat(log.status().state()).isEqualTo(AuditState.DISABLED);
            assertThat(log.status().diagnostics()).extracting(d -> d.code()).contains(ErrorCode.AUDIT_IO);
        }
        assertThat(Files.readString(file)).isEqualTo("x");
    }

    @Test
    void readOnlyHandlesChangeNothing() throws Exception {
        Path dir = tmp.resolve("audit");
        try (AuditLog log = AuditLog.openReadOnly(dir)) {
            assertThat(log.status().state()).isEqualTo(AuditState.OK);
            assertThat(log.status().writable()).isFalse();
        }
        assertThat(dir).doesNotExist();
        try (AuditLog w = Fixtures.open(dir)) {
            w.approve(Fixtures.prompt(1));
        }
        byte[] before = Files.readAllBytes(dir.resolve("audit.log"));
        try (AuditLog log = AuditLog.openReadOnly(dir)) {
            assertThat(log.isTrusted(Fixtures.prompt(1))).isTrue();
            AppendResult r = log.approve(Fixtures.prompt(2));
            assertThat(((AppendResult.Refused) r).reason().code()).isEqualTo(ErrorCode.AUDIT_LOCKED);
        }
        assertThat(Files.readAllBytes(dir.resolve("audit.log"))).isEqualTo(before);
    }
}
