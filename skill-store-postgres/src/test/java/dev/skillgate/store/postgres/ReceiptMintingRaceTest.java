package dev.skillgate.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.ConsentResult;
import dev.skillgate.consent.ExecutionPolicy;
import dev.skillgate.consent.PolicyAdmin;
import dev.skillgate.consent.PolicyChange;
import dev.skillgate.consent.PolicyUpdate;
import dev.skillgate.consent.ScopeEntry;
import dev.skillgate.consent.TrustScope;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.Timeout;
import dev.skillgate.model.WorkspaceIdentity;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Two instances (two admins, two stores, two connection sources) save the same new trusted scope at
 * the same moment, 40 rounds on a real server: exactly one receipt is minted per scope, and it is the
 * one stored.
 */
class ReceiptMintingRaceTest {
    static TrustScope scope(int n) {
        return new TrustScope(
                Revision.parse(Sha256Digest.hash(("rev " + n).getBytes(StandardCharsets.UTF_8))
                        .toString()),
                AgentId.of("agent-" + n),
                new WorkspaceIdentity(java.nio.file.Path.of("/work/space " + n), "(dev=1,ino=" + n + ")"),
                Timeout.ofMillis(5000),
                OutputLimit.ofBytes(4096));
    }

    @Test
    void twoInstancesSavingTheSameScopeAtOnceMintOneReceipt() throws Exception {
        String db = Pg.freshDatabaseName();
        PostgresSchema.migrate(Pg.dataSource(db));
        DataSource first = Pg.dataSource(db);
        DataSource second = Pg.dataSource(db);
        PolicyAdmin a = PolicyAdmin.open(new PostgresPolicyStore(first));
        PolicyAdmin b = PolicyAdmin.open(new PostgresPolicyStore(second));
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<TrustScope> scopes = new ArrayList<>();
            for (int round = 0; round < 40; round++) {
                scopes.add(scope(round));
                PolicyUpdate update = new PolicyUpdate(ExecutionPolicy.TRUST_SELECTED_REVISIONS, List.copyOf(scopes));
                CountDownLatch go = new CountDownLatch(1);
                Future<ConsentResult<PolicyChange>> fa = pool.submit(() -> {
                    go.await();
                    return a.save(update);
                });
                Future<ConsentResult<PolicyChange>> fb = pool.submit(() -> {
                    go.await();
                    return b.save(update);
                });
                go.countDown();
                PolicyChange ca = fa.get(60, TimeUnit.SECONDS).orElseThrow();
                PolicyChange cb = fb.get(60, TimeUnit.SECONDS).orElseThrow();
                List<ScopeEntry> minted = new ArrayList<>(ca.minted());
                minted.addAll(cb.minted());
                assertThat(minted)
                        .as("round %d: receipts minted for the new scope", round)
                        .hasSize(1);
                assertThat(minted.get(0).scope()).isEqualTo(scopes.get(round));
                assertThat(ca.revoked()).isEmpty();
                assertThat(cb.revoked()).isEmpty();
                List<ScopeEntry> stored = a.currentPolicy().scopes();
                assertThat(stored).hasSize(round + 1).allMatch(ScopeEntry::isApproved);
                assertThat(stored.get(round)).isEqualTo(minted.get(0));
                assertThat(b.currentPolicy().scopes()).isEqualTo(stored);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
