package dev.skillgate.consent;

import static dev.skillgate.consent.PolicyFixtures.scope;
import static dev.skillgate.consent.PolicyFixtures.scopes;
import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.Fixtures.MutableClock;
import dev.skillgate.consent.spi.PolicyStore;
import dev.skillgate.model.ErrorCode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Receipt rules of SPEC §8, each against the real file store. */
class PolicyAdminTest {
    @TempDir
    Path tmp;

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T12:00:00Z"));

    private PolicyAdmin admin() {
        return PolicyAdmin.open(PolicyStore.privateFile(tmp.resolve("data")), clock, false);
    }

    private static PolicyUpdate trust(List<TrustScope> scopes) {
        return new PolicyUpdate(ExecutionPolicy.TRUST_SELECTED_REVISIONS, scopes);
    }

    private static Receipt receiptOf(PolicySnapshot p, TrustScope s) {
        return p.scopes().stream()
                .filter(e -> e.scope().equals(s))
                .findFirst()
                .orElseThrow()
                .receipt()
                .orElseThrow();
    }

    @Test
    void defaultIsAskEachTime() {
        assertThat(admin().currentPolicy().mode()).isEqualTo(ExecutionPolicy.ASK_EACH_TIME);
        assertThat(admin().currentPolicy().scopes()).isEmpty();
    }

    @Test
    void savingInTrustModeMintsOneReceiptPerScopeFromTheStoreClock() {
        PolicyChange change = admin().save(trust(scopes(3))).orElseThrow();
        assertThat(change.minted()).hasSize(3);
        assertThat(change.after().scopes()).allMatch(ScopeEntry::isApproved);
        Set<UUID> ids = change.after().scopes().stream()
                .map(e -> e.receipt().orElseThrow().id())
                .collect(Collectors.toSet());
        assertThat(ids).hasSize(3);
        assertThat(change.after().scopes())
                .allMatch(e -> e.receipt().orElseThrow().approvedAt().equals(clock.instant()));
    }

    @Test
    void anUnchangedScopeKeepsItsReceiptAcrossSavesAndRestarts() {
        PolicyAdmin first = admin();
        Receipt original =
                receiptOf(first.save(trust(List.of(scope()))).orElseThrow().after(), scope());
        clock.jump(Duration.ofHours(1));
        PolicyChange again = first.save(trust(List.of(scope(), scope(7)))).orElseThrow();
        assertThat(receiptOf(again.after(), scope())).isEqualTo(original);
        assertThat(again.minted()).extracting(ScopeEntry::scope).containsExactly(scope(7));

        // restart: a new store instance and a new admin over the same file
        PolicyAdmin restarted = admin();
        assertThat(receiptOf(restarted.currentPolicy(), scope())).isEqualTo(original);
        clock.jump(Duration.ofDays(3));
        PolicyChange afterRestart =
                restarted.save(trust(List.of(scope(7), scope()))).orElseThrow();
        assertThat(receiptOf(afterRestart.after(), scope())).isEqualTo(original);
        assertThat(afterRestart.minted()).isEmpty();
        assertThat(afterRestart.revoked()).isEmpty();
    }

    @Test
    void everyChangedFieldMintsANewReceiptAndRevokesTheOld() {
        PolicyAdmin admin = admin();
        Receipt original =
                receiptOf(admin.save(trust(List.of(scope()))).orElseThrow().after(), scope());
        for (TrustScope changed : PolicyFixtures.changedVariants(scope())) {
            admin.save(trust(List.of(scope()))).orElseThrow();
            PolicyChange change = admin.save(trust(List.of(changed))).orElseThrow();
            Receipt fresh = receiptOf(change.after(), changed);
            assertThat(fresh.id()).as("changed %s", changed).isNotEqualTo(original.id());
            assertThat(change.minted()).extracting(ScopeEntry::scope).containsExactly(changed);
            assertThat(change.revoked()).extracting(ScopeEntry::scope).containsExactly(scope());
            // putting the original back is a re-add: yet another new receipt
            Receipt readded =
                    receiptOf(admin.save(trust(List.of(scope()))).orElseThrow().after(), scope());
            assertThat(readded.id()).isNotEqualTo(original.id()).isNotEqualTo(fresh.id());
            original = readded;
        }
    }

    @Test
    void removalRevokesAndReAddingMintsANewReceipt() {
        PolicyAdmin admin = admin();
        Receipt original = receiptOf(
                admin.save(trust(List.of(scope(), scope(1)))).orElseThrow().after(), scope());
        PolicyChange removal = admin.save(trust(List.of(scope(1)))).orElseThrow();
        assertThat(removal.revoked()).extracting(ScopeEntry::receipt).containsExactly(Optional.of(original));
        assertThat(removal.after().scopes()).extracting(ScopeEntry::scope).containsExactly(scope(1));
        clock.jump(Duration.ofMinutes(1));
        Receipt readded = receiptOf(
                admin.save(trust(List.of(scope(1), scope()))).orElseThrow().after(), scope());
        assertThat(readded.id()).isNotEqualTo(original.id());
        assertThat(readded.approvedAt()).isEqualTo(clock.instant()).isNotEqualTo(original.approvedAt());
    }

    @ParameterizedTest
    @EnumSource(
            value = ExecutionPolicy.class,
            names = {"ASK_EACH_TIME", "BLOCKED", "APPROVE_WORKFLOW_RUN"})
    void scopesSavedInOtherModesAreUnapprovedDrafts(ExecutionPolicy mode) {
        PolicyAdmin admin = admin();
        PolicyChange change =
                admin.save(new PolicyUpdate(mode, List.of(scope()))).orElseThrow();
        assertThat(change.minted()).isEmpty();
        assertThat(change.after().scopes())
                .singleElement()
                .satisfies(e -> assertThat(e.isApproved()).isFalse());
        // a draft survives a restart as a draft
        assertThat(admin().currentPolicy().scopes())
                .singleElement()
                .satisfies(e -> assertThat(e.isApproved()).isFalse());
        // explicitly saving trusted-revision mode approves it
        PolicyChange approve = admin.save(trust(List.of(scope()))).orElseThrow();
        assertThat(approve.minted()).extracting(ScopeEntry::scope).containsExactly(scope());
    }

    @Test
    void aDraftNeverCoversALaunch() {
        PolicyAdmin admin = admin();
        admin.save(new PolicyUpdate(ExecutionPolicy.ASK_EACH_TIME, List.of(scope())))
                .orElseThrow();
        // switch the mode with the draft still unapproved: write the file as a draft in trust mode
        PolicySnapshot p = admin.currentPolicy();
        assertThat(new PolicySnapshot(ExecutionPolicy.TRUST_SELECTED_REVISIONS, p.scopes(), List.of())
                        .trustedScopeFor(Fixtures.binding()))
                .isEmpty();
    }

    @Test
    void aReceiptedScopeSavedInAnotherModeKeepsItsReceiptButCoversNothingThere() {
        PolicyAdmin admin = admin();
        Receipt original =
                receiptOf(admin.save(trust(List.of(scope()))).orElseThrow().after(), scope());
        PolicySnapshot asking = admin.save(new PolicyUpdate(ExecutionPolicy.ASK_EACH_TIME, List.of(scope())))
                .orElseThrow()
                .after();
        assertThat(receiptOf(asking, scope())).isEqualTo(original);
        assertThat(asking.trustedScopeFor(Fixtures.binding())).isEmpty();
        assertThat(receiptOf(admin.save(trust(List.of(scope()))).orElseThrow().after(), scope()))
                .isEqualTo(original);
    }

    @Test
    void submittedReceiptIdsAndTimesAreIgnored() {
        PolicyAdmin admin = admin();
        Receipt kept =
                receiptOf(admin.save(trust(List.of(scope()))).orElseThrow().after(), scope());
        String forgedId = "11111111-2222-4333-8444-555555555555";
        String json = "{\"mode\":\"TRUST_SELECTED_REVISIONS\",\"scopes\":["
                + scopeJson(scope(), forgedId, "2000-01-01T00:00:00Z") + ","
                + scopeJson(scope(5), kept.id().toString(), "1999-01-01T00:00:00Z") + "]}";
        PolicyUpdate update =
                PolicyUpdate.parseJson(json.getBytes(StandardCharsets.UTF_8)).orElseThrow();
        PolicySnapshot after = admin.save(update).orElseThrow().after();
        assertThat(receiptOf(after, scope())).isEqualTo(kept); // its own stored receipt, not the forged one
        Receipt minted = receiptOf(after, scope(5));
        assertThat(minted.id().toString())
                .isNotEqualTo(forgedId)
                .isNotEqualTo(kept.id().toString());
        assertThat(minted.approvedAt()).isEqualTo(clock.instant());
    }

    private static String scopeJson(TrustScope s, String receiptId, String at) {
        return "{\"revision\":\"" + s.revision() + "\",\"agent\":\"" + s.agent() + "\",\"workspace\":{\"realPath\":\""
                + s.workspace().realPath() + "\",\"fileKey\":\"" + s.workspace().fileKey() + "\"},"
                + "\"timeoutCeilingMillis\":" + s.timeoutCeiling().millis() + ",\"outputCeilingBytes\":"
                + s.outputCeiling().bytes() + ",\"receipt\":{\"id\":\"" + receiptId + "\",\"approvedAt\":\"" + at
                + "\"}}";
    }

    @Test
    void sixtyFourScopesAreAcceptedAndSixtyFiveRejectedWithNoChange() throws IOException {
        PolicyAdmin admin = admin();
        assertThat(admin.save(trust(scopes(64))).isSuccess()).isTrue();
        byte[] before = Files.readAllBytes(tmp.resolve("data/policy.json"));
        ConsentResult<PolicyChange> tooMany = admin.save(trust(scopes(65)));
        assertThat(tooMany.code()).contains(ErrorCode.POLICY_SCOPE_LIMIT);
        assertThat(Files.readAllBytes(tmp.resolve("data/policy.json"))).isEqualTo(before);
    }

    @Test
    void duplicateScopesAndMalformedUpdatesAreRejectedWithNoChange() throws IOException {
        PolicyAdmin admin = admin();
        admin.save(trust(List.of(scope()))).orElseThrow();
        byte[] before = Files.readAllBytes(tmp.resolve("data/policy.json"));
        assertThat(admin.save(trust(List.of(scope(1), scope(1)))).code()).contains(ErrorCode.POLICY_INVALID);
        for (String bad : List.of(
                "",
                "{}",
                "{\"mode\":\"BLOCKED\",\"mode\":\"ASK_EACH_TIME\"}",
                "{\"mode\":\"ASK_EACH_TIME\",\"extra\":true}",
                "{\"mode\":\"ASK_EACH_TIME\",\"version\":2}",
                "{\"mode\":\"ASK_EACH_TIME\",\"scopes\":[{\"revision\":\"sha256:00\"}]}",
                "{\"mode\":\"ASK_EACH_TIME\",\"scopes\":[" + scopeJson(scope(), "x", "y") + "]}")) {
            ConsentResult<PolicyUpdate> parsed = PolicyUpdate.parseJson(bad.getBytes(StandardCharsets.UTF_8));
            if (bad.contains("\"receipt\"")) {
                // a malformed submitted receipt is ignored, not validated: it never reaches the store
                assertThat(parsed.isSuccess()).isTrue();
                continue;
            }
            assertThat(parsed.code()).as(bad).contains(ErrorCode.POLICY_INVALID);
        }
        assertThat(Files.readAllBytes(tmp.resolve("data/policy.json"))).isEqualTo(before);
    }

    @Test
    void aCorruptPolicyFileBlocksAndCanBeReplacedByAnExplicitSave() throws IOException {
        PolicyAdmin admin = admin();
        admin.save(trust(List.of(scope()))).orElseThrow();
        Files.writeString(tmp.resolve("data/policy.json"), "{\"format\":");
        PolicySnapshot blocked = admin.currentPolicy();
        assertThat(blocked.mode()).isEqualTo(ExecutionPolicy.BLOCKED);
        assertThat(blocked.problems())
                .singleElement()
                .satisfies(d -> assertThat(d.code()).isEqualTo(ErrorCode.POLICY_CORRUPT));
        PolicyChange repaired = admin.save(trust(List.of(scope()))).orElseThrow();
        assertThat(repaired.before().isUnusable()).isTrue();
        assertThat(repaired.minted()).hasSize(1); // nothing is trusted from unreadable data
        assertThat(repaired.after().mode()).isEqualTo(ExecutionPolicy.TRUST_SELECTED_REVISIONS);
    }

    @Test
    void aFailingStoreLeavesThePolicyUnchanged() throws IOException {
        PolicyStore real = PolicyStore.privateFile(tmp.resolve("data"));
        PolicyAdmin good = PolicyAdmin.open(real, clock, false);
        good.save(trust(List.of(scope()))).orElseThrow();
        PolicyStore diskFull = new PolicyStore() {
            @Override
            public PolicyLoad load() {
                return real.load();
            }

            @Override
            public void replace(PolicySettings settings) throws IOException {
                throw new IOException("No space left on device");
            }
        };
        PolicyAdmin admin = PolicyAdmin.open(diskFull, clock, false);
        PolicySnapshot before = admin.currentPolicy();
        ConsentResult<PolicyChange> r = admin.save(PolicyUpdate.of(ExecutionPolicy.BLOCKED));
        assertThat(r.code()).contains(ErrorCode.POLICY_IO);
        assertThat(admin.currentPolicy()).isEqualTo(before);
    }

    @Test
    void aStoreThatThrowsOnLoadBlocksInsteadOfCrashing() {
        PolicyStore broken = new PolicyStore() {
            @Override
            public PolicyLoad load() {
                throw new IllegalStateException("bug");
            }

            @Override
            public void replace(PolicySettings settings) {}
        };
        PolicySnapshot p = PolicyAdmin.open(broken).view().policy();
        assertThat(p.mode()).isEqualTo(ExecutionPolicy.BLOCKED);
        assertThat(p.problems())
                .singleElement()
                .satisfies(d -> assertThat(d.code()).isEqualTo(ErrorCode.POLICY_IO));
    }
}
