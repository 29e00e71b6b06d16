package dev.skillgate.consent;

import static dev.skillgate.consent.Fixtures.RUN;
import static dev.skillgate.consent.Fixtures.SKILL;
import static dev.skillgate.consent.Fixtures.binding;
import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.shared.ConsentLedger;
import dev.skillgate.consent.shared.ConsumedGrant;
import dev.skillgate.model.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Real threads racing on one ledger: exactly one consume and exactly one decision win. */
class ConsentRaceTest {
    private static final int THREADS = 16;
    private static final int ROUNDS = 10_000;

    @Test
    void sixteenThreadsRacingToConsumeGetExactlyOneGrantPerRound() throws Exception {
        AtomicReference<ConsentLedger> ledger = new AtomicReference<>();
        AtomicReference<ProposalId> id = new AtomicReference<>();
        int[][] outcomes = new int[ROUNDS][2]; // [successes, already-consumed]
        CyclicBarrier start = new CyclicBarrier(THREADS, () -> {});
        CyclicBarrier end = new CyclicBarrier(THREADS + 1);
        CyclicBarrier ready = new CyclicBarrier(THREADS + 1);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<?>> workers = new ArrayList<>();
        try {
            for (int t = 0; t < THREADS; t++) {
                workers.add(pool.submit(() -> {
                    for (int round = 0; round < ROUNDS; round++) {
                        ready.await();
                        start.await();
                        ConsentResult<ConsumedGrant> r = ledger.get().consume(id.get(), binding());
                        synchronized (outcomes[round]) {
                            if (r.isSuccess()) {
                                outcomes[round][0]++;
                            } else if (r.code().orElseThrow() == ErrorCode.CONSENT_ALREADY_CONSUMED) {
                                outcomes[round][1]++;
                            }
                        }
                        end.await();
                    }
                    return null;
                }));
            }
            for (int round = 0; round < ROUNDS; round++) {
                ConsentLedger fresh = ConsentLedger.open(RUN);
                ProposalSnapshot p = fresh.propose(SKILL, binding()).orElseThrow();
                fresh.decide(p.id(), ApprovalDecision.approve(p.id())).orElseThrow();
                ledger.set(fresh);
                id.set(p.id());
                ready.await(30, TimeUnit.SECONDS);
                end.await(30, TimeUnit.SECONDS);
                assertThat(fresh.find(p.id()).orElseThrow().state()).isEqualTo(ProposalState.CONSUMED);
            }
            for (Future<?> w : workers) {
                w.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        for (int round = 0; round < ROUNDS; round++) {
            assertThat(outcomes[round][0]).as("successes in round %d", round).isEqualTo(1);
            assertThat(outcomes[round][1]).as("refusals in round %d", round).isEqualTo(THREADS - 1);
        }
    }

    @Test
    void racingApproveAndDenyDecideExactlyOnce() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        int approvals = 0;
        int denials = 0;
        try {
            for (int round = 0; round < ROUNDS; round++) {
                ConsentLedger ledger = ConsentLedger.open(RUN);
                ProposalId id = ledger.propose(SKILL, binding()).orElseThrow().id();
                CyclicBarrier go = new CyclicBarrier(2);
                Future<ConsentResult<ProposalState>> approve = pool.submit(() -> {
                    go.await();
                    return ledger.decide(id, ApprovalDecision.approve(id));
                });
                Future<ConsentResult<ProposalState>> deny = pool.submit(() -> {
                    go.await();
                    return ledger.decide(id, ApprovalDecision.deny("no"));
                });
                ConsentResult<ProposalState> a = approve.get(30, TimeUnit.SECONDS);
                ConsentResult<ProposalState> d = deny.get(30, TimeUnit.SECONDS);
                assertThat(a.isSuccess() ^ d.isSuccess())
                        .as("exactly one wins in round %d", round)
                        .isTrue();
                ConsentResult<ProposalState> loser = a.isSuccess() ? d : a;
                assertThat(loser.code()).contains(ErrorCode.CONFLICTING_DECISION);
                ProposalState finalState = ledger.find(id).orElseThrow().state();
                if (a.isSuccess()) {
                    approvals++;
                    assertThat(finalState).isEqualTo(ProposalState.APPROVED);
                } else {
                    denials++;
                    assertThat(finalState).isEqualTo(ProposalState.DENIED);
                }
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(approvals + denials).isEqualTo(ROUNDS);
    }
}
