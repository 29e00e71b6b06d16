package dev.skillgate.workflow;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** A store that returns record {@code sequence} with one byte XORed — an adversary who can write the medium. */
final class FlippingStore implements WorkflowStore {
    private final WorkflowStore real;
    private final int sequence;
    private final int index;
    private final int mask;

    FlippingStore(WorkflowStore real, int sequence, int index, int mask) {
        this.real = real;
        this.sequence = sequence;
        this.index = index;
        this.mask = mask;
    }

    static int sealedLength(WorkflowStore store, WorkflowId id, int sequence) {
        try {
            return store.records(id).get(sequence).sealed().length;
        } catch (WorkflowStoreException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public StoredWorkflow create(OwnerIdentity owner, Duration lease, SealedRecord definition)
            throws WorkflowStoreException {
        return real.create(owner, lease, definition);
    }

    @Override
    public StoredWorkflow append(WorkflowId id, long token, SealedRecord record, boolean ends)
            throws WorkflowStoreException {
        return real.append(id, token, record, ends);
    }

    @Override
    public StoredWorkflow renew(WorkflowId id, long token, Duration lease) throws WorkflowStoreException {
        return real.renew(id, token, lease);
    }

    @Override
    public StoredWorkflow takeOver(WorkflowId id, long expected, OwnerIdentity o, Duration lease, TakeoverCondition c)
            throws WorkflowStoreException {
        return real.takeOver(id, expected, o, lease, c);
    }

    @Override
    public Optional<StoredWorkflow> find(WorkflowId id) throws WorkflowStoreException {
        return real.find(id);
    }

    @Override
    public List<SealedRecord> records(WorkflowId id) throws WorkflowStoreException {
        List<SealedRecord> out = new ArrayList<>(real.records(id));
        SealedRecord r = out.get(sequence);
        byte[] b = r.sealed();
        b[index] ^= (byte) mask;
        out.set(sequence, new SealedRecord(r.workflow(), r.sequence(), r.schemaVersion(), r.fencingToken(), b));
        return out;
    }

    @Override
    public List<StoredWorkflow> list(int limit) throws WorkflowStoreException {
        return real.list(limit);
    }

    @Override
    public List<StoredWorkflow> purgeEnded(Duration retention) throws WorkflowStoreException {
        return real.purgeEnded(retention);
    }

    @Override
    public Instant now() throws WorkflowStoreException {
        return real.now();
    }

    @Override
    public void close() {}
}
