package dev.skillgate.engine.internal;

import dev.skillgate.model.AgentId;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Bounds what agents can ask of the human (decision 0763): approvals pending at once per agent,
 * approval requests per agent per minute, and approvals pending at once in the whole gate. Counted
 * across runs, so fresh runs do not reset them. Thread-safe; memory is bounded by the pending and
 * per-minute limits (an agent with nothing pending and nothing in the last minute is forgotten).
 * Not API.
 */
public final class Demands {
    /** Most approvals pending at once in one gate, whichever agents ask. */
    public static final int MAX_PENDING_PER_GATE = 64;

    private static final long MINUTE = TimeUnit.MINUTES.toNanos(1);

    private final int maxPendingPerAgent;
    private final int maxPerMinute;
    private final Map<AgentId, Agent> agents = new HashMap<>(); // guarded by this
    private int pendingInGate; // guarded by this

    private static final class Agent {
        int pending;
        final Deque<Long> asked = new ArrayDeque<>();
    }

    public Demands(int maxPendingPerAgent, int maxPerMinute) {
        this.maxPendingPerAgent = maxPendingPerAgent;
        this.maxPerMinute = maxPerMinute;
    }

    /**
     * Admits one approval request of {@code agent}, or says why not ({@code CONSENT_DEMAND_LIMIT}). An
     * admitted request must be {@linkplain #release released} exactly once when its answer is in.
     */
    public synchronized Optional<Diagnostic> admit(AgentId agent) {
        long now = System.nanoTime();
        prune(now);
        Agent a = agents.computeIfAbsent(agent, k -> new Agent());
        if (pendingInGate >= MAX_PENDING_PER_GATE) {
            return refusal("the gate already has " + MAX_PENDING_PER_GATE + " approvals pending");
        }
        if (a.pending >= maxPendingPerAgent) {
            return refusal("this agent already has " + maxPendingPerAgent + " approvals pending");
        }
        if (a.asked.size() >= maxPerMinute) {
            return refusal("this agent already asked for " + maxPerMinute + " approvals in the last minute");
        }
        a.pending++;
        a.asked.addLast(now);
        pendingInGate++;
        return Optional.empty();
    }

    /** Ends one admitted request of {@code agent}. */
    public synchronized void release(AgentId agent) {
        Agent a = agents.get(agent);
        if (a != null && a.pending > 0) {
            a.pending--;
            pendingInGate--;
        }
    }

    /** Approvals pending now for {@code agent}. */
    public synchronized int pending(AgentId agent) {
        Agent a = agents.get(agent);
        return a == null ? 0 : a.pending;
    }

    private void prune(long now) {
        Iterator<Agent> it = agents.values().iterator();
        while (it.hasNext()) {
            Agent a = it.next();
            while (!a.asked.isEmpty() && now - a.asked.peekFirst() >= MINUTE) {
                a.asked.pollFirst();
            }
            if (a.pending == 0 && a.asked.isEmpty()) {
                it.remove();
            }
        }
    }

    private static Optional<Diagnostic> refusal(String message) {
        return Optional.of(Diagnostic.error(ErrorCode.CONSENT_DEMAND_LIMIT, "", message));
    }
}
