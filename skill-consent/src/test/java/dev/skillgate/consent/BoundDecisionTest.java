package dev.skillgate.consent;

import static dev.skillgate.consent.Fixtures.OTHER_SKILL;
import static dev.skillgate.consent.Fixtures.RUN;
import static dev.skillgate.consent.Fixtures.SKILL;
import static dev.skillgate.consent.Fixtures.binding;
import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.Fixtures.FakeTicker;
import dev.skillgate.consent.Fixtures.MutableClock;
import dev.skillgate.consent.shared.ConsentLedger;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.model.ErrorCode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Decisions are bound to their request (issue 24 finding 4, decision 0760): an approval names the
 * proposal it answers, and the ledger refuses it for any other.
 */
class BoundDecisionTest {
    private final FakeTicker ticker = new FakeTicker(0);
    private final ConsentLedger ledger =
            ConsentLedger.open(RUN, ticker, new MutableClock(Instant.parse("2026-12-02T08:00:00Z")));

    @Test
    void anApprovalObtainedFromTheRequestNamesItsProposal() {
        ProposalSnapshot p = ledger.propose(SKILL, binding()).orElseThrow();
        ApprovalRequest request = Fixtures.request(p);
        ApprovalDecision approval = request.approve();
        assertThat(approval.boundTo()).contains(p.id());
        assertThat(approval.answers(p.id())).isTrue();
        assertThat(approval.answers(ProposalId.random())).isFalse();
        assertThat(request.deny("no").answers(ProposalId.random()))
                .as("a denial denies whatever it answers")
                .isTrue();
    }

    @Test
    void theLedgerRefusesAnApprovalOfAnotherProposalAndTheProposalEnds() {
        ProposalSnapshot a = ledger.propose(SKILL, binding()).orElseThrow();
        ProposalSnapshot b = ledger.propose(OTHER_SKILL, binding()).orElseThrow();
        ConsentResult<ProposalState> wrong =
                ledger.decide(a.id(), Fixtures.request(b).approve());
        assertThat(wrong.code()).contains(ErrorCode.BINDING_MISMATCH);
        assertThat(ledger.find(a.id()).orElseThrow().state()).isEqualTo(ProposalState.MISMATCHED);
        assertThat(ledger.consume(a.id(), binding()).isSuccess()).isFalse();
        // b was not approved by the misrouted answer either.
        assertThat(ledger.find(b.id()).orElseThrow().state()).isEqualTo(ProposalState.PENDING);
        assertThat(ledger.consume(b.id(), binding()).code()).contains(ErrorCode.CONSENT_NOT_APPROVED);
    }

    @Test
    void aMisroutedApprovalNeverChangesADecidedProposal() {
        ProposalSnapshot a = ledger.propose(SKILL, binding()).orElseThrow();
        ledger.decide(a.id(), ApprovalDecision.deny("no")).orElseThrow();
        assertThat(ledger.decide(a.id(), ApprovalDecision.approve(ProposalId.random()))
                        .code())
                .contains(ErrorCode.BINDING_MISMATCH);
        assertThat(ledger.find(a.id()).orElseThrow().state()).isEqualTo(ProposalState.DENIED);
    }

    /** A host UI that answers each pending request with the other request's approval. */
    @Test
    void aHostUiThatCompletesTheWrongPendingRequestApprovesNothing() throws Exception {
        ProposalSnapshot a = ledger.propose(SKILL, binding()).orElseThrow();
        ProposalSnapshot b = ledger.propose(OTHER_SKILL, binding()).orElseThrow();
        List<ApprovalRequest> shown = new ArrayList<>();
        List<CompletableFuture<ApprovalDecision>> answers = new ArrayList<>();
        ApprovalChannel mixedUp = new ApprovalChannel() {
            @Override
            public synchronized CompletionStage<ApprovalDecision> request(ApprovalRequest request) {
                CompletableFuture<ApprovalDecision> f = new CompletableFuture<>();
                shown.add(request);
                answers.add(f);
                return f;
            }
        };
        CompletableFuture<ConsentResult<ProposalState>> ra =
                ledger.requestApproval(Fixtures.request(a), mixedUp).toCompletableFuture();
        CompletableFuture<ConsentResult<ProposalState>> rb =
                ledger.requestApproval(Fixtures.request(b), mixedUp).toCompletableFuture();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (sizeOf(mixedUp, answers) < 2 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        synchronized (mixedUp) {
            assertThat(answers).hasSize(2);
            // The UI swaps them: the answer to the first request is the second's approval.
            answers.get(0).complete(shown.get(1).approve());
            answers.get(1).complete(shown.get(0).approve());
        }
        assertThat(ra.get(20, TimeUnit.SECONDS).code()).contains(ErrorCode.BINDING_MISMATCH);
        assertThat(rb.get(20, TimeUnit.SECONDS).code()).contains(ErrorCode.BINDING_MISMATCH);
        assertThat(ledger.consume(a.id(), binding()).isSuccess()).isFalse();
        assertThat(ledger.consume(b.id(), binding()).isSuccess()).isFalse();
    }

    @Test
    void aPlanApprovalIsBoundToThePlanRequestToo() {
        ProposalSnapshot p = ledger.propose(SKILL, binding()).orElseThrow();
        WorkflowApprovalRequest plan = WorkflowApprovalRequest.forPlan(
                ledger.proposePlan(WorkflowPlanTest.plan(java.util.List.of(WorkflowPlanTest.step(SKILL))))
                        .orElseThrow());
        assertThat(plan.approve().answers(plan.proposal())).isTrue();
        assertThat(ledger.decide(p.id(), plan.approve()).code()).contains(ErrorCode.BINDING_MISMATCH);
        assertThat(ledger.decide(plan.proposal(), plan.approve()).orElseThrow()).isEqualTo(ProposalState.APPROVED);
    }

    private static int sizeOf(Object lock, List<?> list) {
        synchronized (lock) {
            return list.size();
        }
    }
}
