package dev.skillgate.engine.internal;

import dev.skillgate.consent.ConsentBinding;
import dev.skillgate.consent.ConsentResult;
import dev.skillgate.consent.ProposalSnapshot;
import dev.skillgate.consent.shared.ConsentLedger;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SkillName;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The consent ledgers of the live runs, at most {@link #MAX_LIVE_RUNS} of them (decision 0763). A
 * run with a pending or approved proposal is never ended to make room for a new run. Thread-safe.
 * Not API.
 */
final class RunLedgers {

    /** Most live runs whose consent ledgers are kept; the oldest idle run's ledger is ended beyond this. */
    static final int MAX_LIVE_RUNS = dev.skillgate.engine.SkillGate.MAX_LIVE_RUNS;

    private final Map<RunId, ConsentLedger> ledgers = new LinkedHashMap<>(); // guarded by itself

    /** A proposal and the ledger that holds it. */
    record Proposed(ConsentLedger ledger, ProposalSnapshot proposal) {}

    /**
     * Proposes in the ledger of {@code run}, keeping at most {@link #MAX_LIVE_RUNS} live runs
     * (decision 0763): beyond that the oldest run with nothing outstanding is forgotten; a run with a
     * pending or approved proposal is never ended for a new one — when all are busy the new run is
     * refused with {@code RUN_LIMIT}. Atomic with the eviction, so no proposal lands in a forgotten ledger.
     */
    ConsentResult<Proposed> propose(RunId run, SkillName skill, ConsentBinding binding) {
        synchronized (ledgers) {
            ConsentLedger ledger = ledgers.get(run);
            if (ledger == null) {
                if (ledgers.size() >= MAX_LIVE_RUNS && !forgetOneIdleRun()) {
                    return ConsentResult.failure(
                            ErrorCode.RUN_LIMIT,
                            "the gate already keeps " + MAX_LIVE_RUNS + " live runs with approvals outstanding");
                }
                ledger = ConsentLedger.open(run);
                ledgers.put(run, ledger);
            }
            ConsentResult<ProposalSnapshot> proposed = ledger.propose(skill, binding);
            if (!proposed.isSuccess()) {
                return ConsentResult.failure(proposed.failure().orElseThrow());
            }
            return ConsentResult.success(new Proposed(ledger, proposed.value().orElseThrow()));
        }
    }

    /** Forgets the oldest live run that has nothing pending or approved; false when every run is busy. */
    private boolean forgetOneIdleRun() {
        Iterator<Map.Entry<RunId, ConsentLedger>> it = ledgers.entrySet().iterator();
        while (it.hasNext()) {
            ConsentLedger candidate = it.next().getValue();
            if (candidate.outstandingCount() == 0) {
                it.remove();
                candidate.endRun();
                return true;
            }
        }
        return false;
    }

    /** Ends {@code run}: its outstanding proposals are cancelled and its ledger forgotten. */
    void end(RunId run) {
        ConsentLedger ledger;
        synchronized (ledgers) {
            ledger = ledgers.remove(run);
        }
        if (ledger != null) {
            ledger.endRun();
        }
    }

    /** Ends every run's ledger. */
    void endAll() {
        List<ConsentLedger> all;
        synchronized (ledgers) {
            all = new ArrayList<>(ledgers.values());
            ledgers.clear();
        }
        all.forEach(ConsentLedger::endRun);
    }
}
