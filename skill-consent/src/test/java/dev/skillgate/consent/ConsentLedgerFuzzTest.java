package dev.skillgate.consent;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.skillgate.consent.Fixtures.FakeTicker;
import dev.skillgate.consent.Fixtures.MutableClock;
import dev.skillgate.consent.shared.ConsentLedger;
import dev.skillgate.consent.shared.ConsumedGrant;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import dev.skillgate.model.SkillName;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Stateful fuzzing of {@link ConsentLedger}: Jazzer picks a sequence of operations (propose, decide,
 * consume, tick, replace, cancel, end the run, jump the wall clock, unknown ids) and every outcome
 * is compared with a small reference model written independently from the rules of SPEC §8. The
 * invariants are also asserted directly: no proposal is consumed twice, only an approved proposal
 * is consumed, and a terminal state never changes.
 *
 * <p>{@code mvn test} replays the seeds in {@code ConsentLedgerFuzzTestInputs/}; {@code
 * JAZZER_FUZZ=1} fuzzes.
 */
class ConsentLedgerFuzzTest {
    private static final long W = Limits.CONSENT_WINDOW_NANOS;
    private static final SkillName[] SKILLS = {SkillName.of("a"), SkillName.of("b"), SkillName.of("c")};
    private static final ConsentBinding[] BINDINGS = {
        Fixtures.bindingWithInput("{\"v\":0}"), Fixtures.bindingWithInput("{\"v\":1}"), Fixtures.bindingWithInput("{}")
    };

    /** The reference model of one proposal. */
    private static final class Model {
        final int skill;
        final int binding;
        final long created;
        ProposalState state = ProposalState.PENDING;
        Boolean decision;

        Model(int skill, int binding, long created) {
            this.skill = skill;
            this.binding = binding;
            this.created = created;
        }

        boolean open() {
            return state == ProposalState.PENDING || state == ProposalState.APPROVED;
        }

        void settle(long now) {
            long elapsed = now - created;
            if (open() && (elapsed < 0 || elapsed >= W)) {
                state = ProposalState.EXPIRED;
            }
        }
    }

    @FuzzTest(maxDuration = "30s")
    void noSequenceConsumesTwiceOrConsumesUnapprovedOrRevivesATerminalState(FuzzedDataProvider data) {
        FakeTicker ticker = new FakeTicker(data.consumeLong());
        MutableClock clock = new MutableClock(Instant.parse("2026-11-30T12:00:00Z"));
        ConsentLedger ledger = ConsentLedger.open(Fixtures.RUN, ticker, clock);

        List<ProposalId> ids = new ArrayList<>();
        Map<ProposalId, Model> model = new HashMap<>();
        Map<ProposalId, Integer> consumed = new HashMap<>();
        Map<ProposalId, ProposalState> firstTerminal = new HashMap<>();
        boolean ended = false;

        int steps = data.consumeInt(0, 400);
        for (int step = 0; step < steps && data.remainingBytes() > 0; step++) {
            long now = ticker.nanos();
            int op = data.consumeInt(0, 9);
            switch (op) {
                case 0:
                case 1: {
                    int s = data.consumeInt(0, SKILLS.length - 1);
                    int b = data.consumeInt(0, BINDINGS.length - 1);
                    ConsentResult<ProposalSnapshot> r = ledger.propose(SKILLS[s], BINDINGS[b]);
                    if (ended) {
                        expect(r.code(), ErrorCode.CONSENT_CANCELLED);
                    } else if (ids.size() >= Limits.PROPOSALS_PER_RUN) {
                        expect(r.code(), ErrorCode.PROPOSAL_LIMIT);
                    } else {
                        check(r.isSuccess(), "expected success");
                        for (Model m : model.values()) {
                            m.settle(now);
                            if (m.skill == s && m.open()) {
                                m.state = ProposalState.STALE;
                            }
                        }
                        ProposalSnapshot p = r.orElseThrow();
                        check(p.state() == ProposalState.PENDING, "new proposal not pending");
                        check(!model.containsKey(p.id()), "proposal id reused");
                        ids.add(p.id());
                        model.put(p.id(), new Model(s, b, now));
                    }
                    break;
                }
                case 2:
                case 3: {
                    boolean approve = op == 2;
                    ProposalId id = pick(data, ids);
                    ConsentResult<ProposalState> r =
                            ledger.decide(id, approve ? ApprovalDecision.approve(id) : ApprovalDecision.deny("x"));
                    Model m = model.get(id);
                    if (m == null) {
                        expect(r.code(), ErrorCode.UNKNOWN_PROPOSAL);
                        break;
                    }
                    m.settle(now);
                    if (m.decision != null) {
                        expect(
                                r.code(),
                                m.decision == approve ? ErrorCode.DUPLICATE_DECISION : ErrorCode.CONFLICTING_DECISION);
                    } else if (m.state != ProposalState.PENDING) {
                        expect(r.code(), codeOf(m.state));
                    } else {
                        m.decision = approve;
                        m.state = approve ? ProposalState.APPROVED : ProposalState.DENIED;
                        expect(r.value(), m.state);
                    }
                    break;
                }
                case 4: {
                    ProposalId id = pick(data, ids);
                    int b = data.consumeInt(0, BINDINGS.length - 1);
                    ConsentResult<ConsumedGrant> r = ledger.consume(id, BINDINGS[b]);
                    Model m = model.get(id);
                    if (m == null) {
                        expect(r.code(), ErrorCode.UNKNOWN_PROPOSAL);
                        break;
                    }
                    m.settle(now);
                    ProposalState before = m.state;
                    if (!m.open()) {
                        expect(r.code(), codeOf(m.state));
                    } else if (m.binding != b) {
                        m.state = ProposalState.MISMATCHED;
                        expect(r.code(), ErrorCode.BINDING_MISMATCH);
                    } else if (m.state == ProposalState.PENDING) {
                        expect(r.code(), ErrorCode.CONSENT_NOT_APPROVED);
                    } else {
                        m.state = ProposalState.CONSUMED;
                        check(r.isSuccess(), "expected success");
                    }
                    if (r.isSuccess()) {
                        // direct invariants, independent of the model's bookkeeping
                        check(before == ProposalState.APPROVED, "consumed a proposal that was not approved");
                        check(consumed.merge(id, 1, Integer::sum) == 1, "second consumption");
                        check(r.orElseThrow().binding().equals(BINDINGS[b]), "grant binding");
                        check(r.orElseThrow().proposal().equals(id), "grant id");
                    }
                    break;
                }
                case 5: {
                    long[] choices = {0, 1, W - 1, W, W + 1, -1};
                    int c = data.consumeInt(0, choices.length);
                    ticker.advance(c == choices.length ? data.consumeLong(0, 2 * W) : choices[c]);
                    break;
                }
                case 6: {
                    ProposalId id = pick(data, ids);
                    ConsentResult<ProposalState> r = ledger.cancel(id);
                    Model m = model.get(id);
                    if (m == null) {
                        expect(r.code(), ErrorCode.UNKNOWN_PROPOSAL);
                        break;
                    }
                    m.settle(now);
                    if (m.open()) {
                        m.state = ProposalState.CANCELLED;
                        expect(r.value(), ProposalState.CANCELLED);
                    } else {
                        expect(r.code(), codeOf(m.state));
                    }
                    break;
                }
                case 7: {
                    int cancelled = data.consumeBoolean() ? ledger.endRun() : ledger.abortRun();
                    int expected = 0;
                    for (Model m : model.values()) {
                        m.settle(now);
                        if (m.open()) {
                            m.state = ProposalState.CANCELLED;
                            expected++;
                        }
                    }
                    ended = true;
                    check(cancelled == expected, "cancel count");
                    break;
                }
                case 8:
                    clock.jump(Duration.ofDays(data.consumeBoolean() ? 1 : -1));
                    break;
                default: {
                    ProposalId stranger = ProposalId.random();
                    expect(
                            ledger.decide(stranger, ApprovalDecision.approve(stranger))
                                    .code(),
                            ErrorCode.UNKNOWN_PROPOSAL);
                    expect(ledger.consume(stranger, BINDINGS[0]).code(), ErrorCode.UNKNOWN_PROPOSAL);
                    break;
                }
            }
            // after every step the ledger's view equals the model's
            long after = ticker.nanos();
            List<ProposalSnapshot> all = ledger.proposals();
            check(all.size() == ids.size(), "proposal count");
            for (int i = 0; i < ids.size(); i++) {
                ProposalId id = ids.get(i);
                Model m = model.get(id);
                m.settle(after);
                ProposalSnapshot snap = all.get(i);
                check(snap.id().equals(id), "order");
                check(
                        snap.state() == m.state,
                        "state of proposal " + i + " after op " + op + ": " + snap.state() + " != model " + m.state);
                check(snap.binding().equals(BINDINGS[m.binding]), "binding");
                check(snap.skill().equals(SKILLS[m.skill]), "skill");
                if (snap.state().isTerminal()) {
                    ProposalState first = firstTerminal.putIfAbsent(id, snap.state());
                    check(first == null || first == snap.state(), "terminal state changed");
                } else {
                    check(!firstTerminal.containsKey(id), "terminal state reopened");
                }
            }
            check(ledger.isEnded() == ended, "ended flag");
        }
        check(consumed.values().stream().allMatch(n -> n == 1), "a proposal was consumed twice");
    }

    /** Plain checks: this loop runs millions of times while fuzzing, so no assertion library here. */
    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    private static <T> void expect(java.util.Optional<T> actual, T expected) {
        if (!actual.isPresent() || !actual.get().equals(expected)) {
            throw new AssertionError("expected " + expected + " but was " + actual);
        }
    }

    private static ProposalId pick(FuzzedDataProvider data, List<ProposalId> ids) {
        if (ids.isEmpty() || data.consumeInt(0, 15) == 0) {
            return ProposalId.random();
        }
        return ids.get(data.consumeInt(0, ids.size() - 1));
    }

    private static ErrorCode codeOf(ProposalState state) {
        switch (state) {
            case DENIED:
                return ErrorCode.CONSENT_DENIED;
            case CONSUMED:
                return ErrorCode.CONSENT_ALREADY_CONSUMED;
            case EXPIRED:
                return ErrorCode.CONSENT_EXPIRED;
            case STALE:
                return ErrorCode.CONSENT_STALE;
            case CANCELLED:
                return ErrorCode.CONSENT_CANCELLED;
            case MISMATCHED:
                return ErrorCode.BINDING_MISMATCH;
            default:
                throw new AssertionError("not terminal: " + state);
        }
    }
}
