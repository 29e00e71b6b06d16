package dev.skillgate.audit.internal;

import dev.skillgate.audit.TrustDecision;
import dev.skillgate.audit.TrustScope;
import dev.skillgate.audit.TrustStatus;
import dev.skillgate.model.Sha256Digest;
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
    record Entry(TrustScope scope, Sha256Digest id, boolean approved, long sequence, Instant decidedAt) {}

    private final Map<Sha256Digest, Entry> entries = new ConcurrentHashMap<>();

    void approve(TrustScope scope, Sha256Digest id, long sequence, Instant at) {
        entries.put(id, new Entry(scope, id, true, sequence, at));
    }

    void revoke(TrustScope scope, Sha256Digest id, long sequence, Instant at) {
        entries.put(id, new Entry(scope, id, false, sequence, at));
    }

    Entry get(Sha256Digest id) {
        return entries.get(id);
    }

    int size() {
        return entries.size();
    }

    boolean approved(Sha256Digest id) {
        Entry e = entries.get(id);
        return e != null && e.approved();
    }

    /** The decisions, ordered by deciding sequence number. */
    List<TrustDecision> list(boolean yieldsTrust, java.util.Set<Sha256Digest> revokedInMemory) {
        List<Entry> sorted = new ArrayList<>(entries.values());
        sorted.sort(Comparator.comparingLong(Entry::sequence));
        List<TrustDecision> out = new ArrayList<>(sorted.size());
        for (Entry e : sorted) {
            TrustStatus status;
            if (!e.approved() || revokedInMemory.contains(e.id())) {
                status = TrustStatus.REVOKED;
            } else {
                status = yieldsTrust ? TrustStatus.TRUSTED : TrustStatus.SUSPENDED;
            }
            out.add(new TrustDecision(e.scope(), status, e.sequence(), e.decidedAt()));
        }
        return out;
    }
}
