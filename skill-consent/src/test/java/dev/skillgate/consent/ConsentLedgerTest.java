package dev.skillgate.consent;

import static dev.skillgate.consent.Fixtures.AGENT;
import static dev.skillgate.consent.Fixtures.INPUT_DIGEST;
import static dev.skillgate.consent.Fixtures.OTHER_SKILL;
import static dev.skillgate.consent.Fixtures.REVISION;
import static dev.skillgate.consent.Fixtures.RUN;
import static dev.skillgate.consent.Fixtures.RUNTIME;
import static dev.skillgate.consent.Fixtures.SKILL;
import static dev.skillgate.consent.Fixtures.WORKSPACE;
import static dev.skillgate.consent.Fixtures.binding;
import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.Fixtures.FakeTicker;
import dev.skillgate.consent.Fixtures.MutableClock;
import dev.skillgate.consent.shared.ConsentLedger;
import dev.skillgate.consent.shared.ConsumedGrant;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SkillName;
import dev.skillgate.model.Timeout;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ConsentLedgerTest {
    private static final long WINDOW = Limits.CONSENT_WINDOW_NANOS;
    private static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");

    private final FakeTicker ticker = new FakeTicker(1_000_000L);
    private final MutableClock clock = new MutableClock(T0);
    private final ConsentLedger ledger = ConsentLedger.open(RUN, ticker, clock);

    private ProposalSnapshot propose() {
        return ledger.propose(SKILL, binding()).orElseThrow();
    }

    private ProposalSnapshot approved() {
        ProposalSnapshot p = propose();
        assertThat(ledger.decide(p.id(), ApprovalDecision.approve(p.id())).orElseThrow())
                .isEqualTo(ProposalState.APPROVED);
        return p;
    }

    private ProposalState state(ProposalId id) {
        return ledger.find(id).orElseThrow().state();
    }

    @Test
    void approvedProposalIsConsumedExactlyOnce() {
        ProposalSnapshot p = approved();
        ConsumedGrant grant = ledger.consume(p.id(), binding()).orElseThrow();
        assertThat(grant.proposal()).isEqualTo(p.id());
        assertThat(grant.binding()).isEqualTo(binding());
        assertThat(grant.skill()).isEqualTo(SKILL);
        assertThat(state(p.id())).isEqualTo(ProposalState.CONSUMED);

        ConsentResult<ConsumedGrant> second = ledger.consume(p.id(), binding());
        assertThat(second.isSuccess()).isFalse();
        assertThat(second.code()).contains(ErrorCode.CONSENT_ALREADY_CONSUMED);
        assertThat(state(p.id())).isEqualTo(ProposalState.CONSUMED);
    }

    @Test
    void newProposalIsPendingWithDisplayTimesFromTheWallClock() {
        ProposalSnapshot p = propose();
        assertThat(p.state()).isEqualTo(ProposalState.PENDING);
        assertThat(p.createdAt()).isEqualTo(T0);
        assertThat(p.expiresAt()).isEqualTo(T0.plus(Duration.ofMinutes(5)));
        assertThat(p.binding().invocationDigest()).isEqualTo(INPUT_DIGEST);
    }

    @Test
    void pendingProposalCannotBeConsumed() {
        ProposalSnapshot p = propose();
        assertThat(ledger.consume(p.id(), binding()).code()).contains(ErrorCode.CONSENT_NOT_APPROVED);
        assertThat(state(p.id())).isEqualTo(ProposalState.PENDING);
    }

    @Test
    void deniedProposalCannotBeConsumedAndStaysDenied() {
        ProposalSnapshot p = propose();
        assertThat(ledger.decide(p.id(), ApprovalDecision.deny("no")).orElseThrow())
                .isEqualTo(ProposalState.DENIED);
        assertThat(ledger.consume(p.id(), binding()).code()).contains(ErrorCode.CONSENT_DENIED);
        assertThat(ledger.decide(p.id(), ApprovalDecision.approve(p.id())).code())
                .contains(ErrorCode.CONFLICTING_DECISION);
        assertThat(state(p.id())).isEqualTo(ProposalState.DENIED);
    }

    @Test
    void duplicateAndConflictingDecisionsAreErrorsNotApprovals() {
        ProposalSnapshot p = approved();
        assertThat(ledger.decide(p.id(), ApprovalDecision.approve(p.id())).code())
                .contains(ErrorCode.DUPLICATE_DECISION);
        assertThat(ledger.decide(p.id(), ApprovalDecision.deny("changed my mind"))
                        .code())
                .contains(ErrorCode.CONFLICTING_DECISION);
        assertThat(state(p.id())).isEqualTo(ProposalState.APPROVED);
        ledger.consume(p.id(), binding()).orElseThrow();
        assertThat(ledger.decide(p.id(), ApprovalDecision.approve(p.id())).code())
                .contains(ErrorCode.DUPLICATE_DECISION);
        assertThat(state(p.id())).isEqualTo(ProposalState.CONSUMED);
    }

    @Test
    void consumeWithADifferentBindingIsTerminal() {
        ProposalSnapshot p = approved();
        ConsentResult<ConsumedGrant> wrong = ledger.consume(p.id(), Fixtures.bindingWithInput("{\"name\":\"other\"}"));
        assertThat(wrong.code()).contains(ErrorCode.BINDING_MISMATCH);
        assertThat(state(p.id())).isEqualTo(ProposalState.MISMATCHED);
        // the right binding afterwards does not resurrect it
        assertThat(ledger.consume(p.id(), binding()).code()).contains(ErrorCode.BINDING_MISMATCH);
        assertThat(ledger.decide(p.id(), ApprovalDecision.approve(p.id())).code())
                .contains(ErrorCode.DUPLICATE_DECISION);
    }

    @Test
    void everyBindingFieldMattersForConsume() {
        List<ConsentBinding> variants = List.of(
                new ConsentBinding(
                        dev.skillgate.model.AgentId.of("agent-2"),
                        RUN,
                        WORKSPACE,
                        REVISION,
                        INPUT_DIGEST,
                        RUNTIME,
                        Timeout.DEFAULT,
                        OutputLimit.DEFAULT),
                new ConsentBinding(
                        AGENT,
                        RUN,
                        new dev.skillgate.model.WorkspaceIdentity(WORKSPACE.realPath(), "(dev=1,ino=3)"),
                        REVISION,
                        INPUT_DIGEST,
                        RUNTIME,
                        Timeout.DEFAULT,
                        OutputLimit.DEFAULT),
                new ConsentBinding(
                        AGENT,
                        RUN,
                        WORKSPACE,
                        Fixtures.revision("changed"),
                        INPUT_DIGEST,
                        RUNTIME,
                        Timeout.DEFAULT,
                        OutputLimit.DEFAULT),
                Fixtures.bindingWithInput("{}"),
                new ConsentBinding(
                        AGENT,
                        RUN,
                        WORKSPACE,
                        REVISION,
                        INPUT_DIGEST,
                        new dev.skillgate.model.RuntimeIdentity(
                                RUNTIME.executable(), "v20.20.3", RUNTIME.binaryDigest()),
                        Timeout.DEFAULT,
                        OutputLimit.DEFAULT),
                new ConsentBinding(
                        AGENT,
                        RUN,
                        WORKSPACE,
                        REVISION,
                        INPUT_DIGEST,
                        RUNTIME,
                        new Timeout(59_999),
                        OutputLimit.DEFAULT),
                new ConsentBinding(
                        AGENT,
                        RUN,
                        WORKSPACE,
                        REVISION,
                        INPUT_DIGEST,
                        RUNTIME,
                        Timeout.DEFAULT,
                        new OutputLimit(65_535)));
        for (ConsentBinding variant : variants) {
            ConsentLedger fresh = ConsentLedger.open(RUN, ticker, clock);
            ProposalSnapshot p = fresh.propose(SKILL, binding()).orElseThrow();
            fresh.decide(p.id(), ApprovalDecision.approve(p.id())).orElseThrow();
            assertThat(variant).isNotEqualTo(binding());
            assertThat(fresh.consume(p.id(), variant).code())
                    .as("variant %s", variant)
                    .contains(ErrorCode.BINDING_MISMATCH);
        }
    }

    @Test
    void windowExpiresExactlyAtFiveMinutesOnTheMonotonicTicker() {
        ProposalSnapshot p = approved();
        ticker.advance(WINDOW - 1);
        assertThat(state(p.id())).isEqualTo(ProposalState.APPROVED);
        ticker.advance(1);
        assertThat(state(p.id())).isEqualTo(ProposalState.EXPIRED);
        assertThat(ledger.consume(p.id(), binding()).code()).contains(ErrorCode.CONSENT_EXPIRED);
        ticker.advance(-1); // even a ticker that goes back cannot revive a terminal state
        assertThat(state(p.id())).isEqualTo(ProposalState.EXPIRED);
    }

    @Test
    void consumeOneNanosecondBeforeTheWindowSucceeds() {
        ProposalSnapshot p = approved();
        ticker.advance(WINDOW - 1);
        assertThat(ledger.consume(p.id(), binding()).isSuccess()).isTrue();
    }

    @Test
    void consumeOneNanosecondAfterTheWindowFails() {
        ProposalSnapshot p = approved();
        ticker.advance(WINDOW + 1);
        assertThat(ledger.consume(p.id(), binding()).code()).contains(ErrorCode.CONSENT_EXPIRED);
    }

    @Test
    void decisionAtTheWindowIsExpiredNotApproved() {
        ProposalSnapshot p = propose();
        ticker.advance(WINDOW);
        assertThat(ledger.decide(p.id(), ApprovalDecision.approve(p.id())).code())
                .contains(ErrorCode.CONSENT_EXPIRED);
        assertThat(state(p.id())).isEqualTo(ProposalState.EXPIRED);
    }

    @ParameterizedTest
    @ValueSource(longs = {-86_400L, 86_400L})
    void aWallClockJumpOfADayChangesNothing(long seconds) {
        ProposalSnapshot p = approved();
        ticker.advance(WINDOW - 1);
        clock.jump(Duration.ofSeconds(seconds));
        assertThat(state(p.id())).isEqualTo(ProposalState.APPROVED);
        assertThat(ledger.find(p.id()).orElseThrow().expiresAt()).isEqualTo(p.expiresAt());

        ProposalSnapshot q = ledger.propose(OTHER_SKILL, binding()).orElseThrow();
        ticker.advance(1);
        assertThat(state(p.id())).isEqualTo(ProposalState.EXPIRED);
        assertThat(state(q.id())).isEqualTo(ProposalState.PENDING);
        clock.jump(Duration.ofSeconds(-2 * seconds));
        ticker.advance(WINDOW - 2);
        assertThat(state(q.id())).isEqualTo(ProposalState.PENDING);
        ticker.advance(1);
        assertThat(state(q.id())).isEqualTo(ProposalState.EXPIRED);
    }

    @Test
    void aTickerGoingBackwardsExpiresRatherThanExtends() {
        ProposalSnapshot p = approved();
        ticker.advance(-1);
        assertThat(state(p.id())).isEqualTo(ProposalState.EXPIRED);
    }

    @Test
    void sixtyFifthProposalIsRejectedExplicitly() {
        for (int i = 0; i < Limits.PROPOSALS_PER_RUN; i++) {
            assertThat(ledger.propose(SKILL, binding()).isSuccess()).isTrue();
        }
        ConsentResult<ProposalSnapshot> extra = ledger.propose(OTHER_SKILL, binding());
        assertThat(extra.code()).contains(ErrorCode.PROPOSAL_LIMIT);
        assertThat(ledger.proposalCount()).isEqualTo(64);
        // rejection changed nothing: the newest proposal is still pending
        List<ProposalSnapshot> all = ledger.proposals();
        assertThat(all.get(63).state()).isEqualTo(ProposalState.PENDING);
        assertThat(all.subList(0, 63)).allMatch(p -> p.state() == ProposalState.STALE);
    }

    @Test
    void newProposalForSameRunAndSkillStalesPendingAndApprovedOnes() {
        ProposalSnapshot pending = propose();
        ProposalSnapshot approvedOne = ledger.propose(SKILL, binding()).orElseThrow();
        // first was staled by the second already
        assertThat(state(pending.id())).isEqualTo(ProposalState.STALE);
        ledger.decide(approvedOne.id(), ApprovalDecision.approve(approvedOne.id()))
                .orElseThrow();
        ProposalSnapshot other = ledger.propose(OTHER_SKILL, binding()).orElseThrow();
        assertThat(state(approvedOne.id())).isEqualTo(ProposalState.APPROVED);
        ProposalSnapshot replacement = ledger.propose(SKILL, binding()).orElseThrow();
        assertThat(state(approvedOne.id())).isEqualTo(ProposalState.STALE);
        assertThat(state(other.id())).isEqualTo(ProposalState.PENDING);
        assertThat(state(replacement.id())).isEqualTo(ProposalState.PENDING);
        assertThat(ledger.consume(approvedOne.id(), binding()).code()).contains(ErrorCode.CONSENT_STALE);
        assertThat(ledger.decide(pending.id(), ApprovalDecision.approve(pending.id()))
                        .code())
                .contains(ErrorCode.CONSENT_STALE);
    }

    @Test
    void staleDoesNotTouchTerminalProposals() {
        ProposalSnapshot consumed = approved();
        ledger.consume(consumed.id(), binding()).orElseThrow();
        ledger.propose(SKILL, binding()).orElseThrow();
        assertThat(state(consumed.id())).isEqualTo(ProposalState.CONSUMED);
    }

    @Test
    void endingTheRunCancelsEverythingOutstandingAndRefusesNewProposals() {
        ProposalSnapshot a = approved();
        ProposalSnapshot b = ledger.propose(OTHER_SKILL, binding()).orElseThrow();
        ProposalSnapshot c = ledger.propose(SkillName.of("third"), binding()).orElseThrow();
        ledger.decide(c.id(), ApprovalDecision.deny("no")).orElseThrow();
        assertThat(ledger.endRun()).isEqualTo(2);
        assertThat(state(a.id())).isEqualTo(ProposalState.CANCELLED);
        assertThat(state(b.id())).isEqualTo(ProposalState.CANCELLED);
        assertThat(state(c.id())).isEqualTo(ProposalState.DENIED);
        assertThat(ledger.consume(a.id(), binding()).code()).contains(ErrorCode.CONSENT_CANCELLED);
        assertThat(ledger.decide(b.id(), ApprovalDecision.approve(b.id())).code())
                .contains(ErrorCode.CONSENT_CANCELLED);
        assertThat(ledger.propose(SKILL, binding()).code()).contains(ErrorCode.CONSENT_CANCELLED);
        assertThat(ledger.isEnded()).isTrue();
        assertThat(ledger.abortRun()).isZero();
    }

    @Test
    void abortingTheRunCancelsToo() {
        ProposalSnapshot a = approved();
        assertThat(ledger.abortRun()).isEqualTo(1);
        assertThat(ledger.consume(a.id(), binding()).code()).contains(ErrorCode.CONSENT_CANCELLED);
    }

    @Test
    void cancellingOneProposal() {
        ProposalSnapshot a = approved();
        assertThat(ledger.cancel(a.id()).orElseThrow()).isEqualTo(ProposalState.CANCELLED);
        assertThat(ledger.cancel(a.id()).code()).contains(ErrorCode.CONSENT_CANCELLED);
        assertThat(ledger.consume(a.id(), binding()).code()).contains(ErrorCode.CONSENT_CANCELLED);
        assertThat(ledger.cancel(ProposalId.random()).code()).contains(ErrorCode.UNKNOWN_PROPOSAL);
    }

    @Test
    void aNewLedgerAfterRestartKnowsNoOldProposals() {
        ProposalSnapshot p = approved();
        ConsentLedger restarted = ConsentLedger.open(RUN, ticker, clock);
        assertThat(restarted.decide(p.id(), ApprovalDecision.approve(p.id())).code())
                .contains(ErrorCode.UNKNOWN_PROPOSAL);
        assertThat(restarted.consume(p.id(), binding()).code()).contains(ErrorCode.UNKNOWN_PROPOSAL);
        assertThat(restarted.find(p.id())).isEmpty();
        assertThat(restarted.proposals()).isEmpty();
    }

    @Test
    void aBindingForAnotherRunIsRefused() {
        assertThat(ledger.propose(SKILL, Fixtures.binding(RunId.of("run-2"))).code())
                .contains(ErrorCode.BINDING_MISMATCH);
        assertThat(ledger.proposalCount()).isZero();
    }

    @Test
    void proposalIdsAreRandomAndDistinct() {
        List<ProposalId> ids = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            ids.add(ledger.propose(SKILL, binding()).orElseThrow().id());
        }
        assertThat(ids).doesNotHaveDuplicates();
        assertThat(ids).allMatch(id -> id.value().version() == 4);
    }

    @Test
    void proposalIdParsingIsExact() {
        ProposalId id = ProposalId.random();
        assertThat(ProposalId.parse(id.toString())).isEqualTo(id);
        for (String bad : List.of(
                id.toString().toUpperCase(java.util.Locale.ROOT),
                " " + id,
                "{" + id + "}",
                id.toString().replace("-", ""),
                "",
                id.toString().substring(1) + "g")) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> ProposalId.parse(bad))
                    .isInstanceOfSatisfying(
                            dev.skillgate.model.InvalidValueException.class,
                            e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_IDENTIFIER));
        }
    }
}
