package dev.skillgate.audit.internal;

import dev.skillgate.audit.TrustDecision;
import dev.skillgate.audit.TrustScope;
import dev.skillgate.audit.TrustStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The latest decision per scope id, built from verified records. Written by one thread (the log's
 * worker), read by any.
 */
final class TrustTable {
    /** One scope's latest decision. */
    record Entry(TrustScope scope, ScopeKey key, boolean approved, long sequence, Instant decidedAt) {}

    private final Map<ScopeKey, Entry> entries = new ConcurrentHashMap<>();

    void approve(TrustScope scope, ScopeKey key, long sequence, Instant at) {
        entries.put(key, new Entry(scope, key, true, sequence, at));
    }

    void revoke(TrustScope scope, ScopeKey key, long sequence, Instant at) {
        entries.put(key, new Entry(scope, key, false, sequence, at));
    }

    Entry get(ScopeKey key) {
        return entries.get(key);
    }

    int size() {
        return entries.size();
    }

    boolean approved(ScopeKey key) {
        Entry e = entries.get(key);
        return e != null && e.approved();
    }

    /** The decisions, ordered by deciding sequence number. */
    List<TrustDecision> list(boolean yieldsTrust, java.util.Set<ScopeKey> revokedInMemory) {
        List<Entry> sorted = new ArrayList<>(entries.values());
        sorted.sort(Comparator.comparingLong(Entry::sequence));
        List<TrustDecision> out = new ArrayList<>(sorted.size());
        for (Entry e : sorted) {
            TrustStatus status;
            if (!e.approved() || revokedInMemory.contains(e.key())) {
                status = TrustStatus.REVOKED;
            } else {
                status = yieldsTrust ? TrustStatus.TRUSTED : TrustStatus.SUSPENDED;
            }
            out.add(new TrustDecision(e.scope(), status, e.sequence(), e.decidedAt()));
        }
        return out;
    }
}
