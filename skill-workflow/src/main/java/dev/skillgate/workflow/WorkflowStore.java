package dev.skillgate.workflow;

import dev.skillgate.workflow.internal.FileWorkflowStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * Persists sealed workflow records and each workflow's owner, lease and fencing token (SPEC §20,
 * seed ADR-0114). Platform teams may supply their own (the PostgreSQL one is in
 * {@code skill-store-postgres}); the default is {@link #embedded(Path)}.
 *
 * <p>A store keeps opaque {@link SealedRecord}s: sealing and opening (AES-256-GCM, per-record data
 * keys) happen in {@link WorkflowJournal}, so no store ever handles plaintext or keys.
 *
 * <p><b>Contract</b> (checked by the testkit's {@code AbstractWorkflowStoreContractTest}):
 * <ul>
 *   <li>every mutating operation is atomic, also against other processes and machines sharing the
 *       store: it happens completely or not at all, and when it throws nothing changed;
 *   <li>{@link #append} succeeds only when the token is the current fencing token, the record's
 *       sequence is the next one and the workflow has not ended; a stale token is
 *       {@code WORKFLOW_FENCED} — whatever the writer's lease says;
 *   <li>{@link #takeOver} succeeds only when the expected token is still current and — for
 *       {@link TakeoverCondition#LEASE_EXPIRED} — the lease has ended by the store's own clock,
 *       checked in the same atomic step (otherwise {@code WORKFLOW_OWNER_ALIVE}); it raises the token
 *       by one;
 *   <li>an acknowledged (returned) append survives a crash of the writer at any point; a torn or
 *       partial record is never returned by {@link #records};
 *   <li>{@link #purgeEnded} removes only workflows that ended before the retention period.
 * </ul>
 * A store is trusted host code, like every SPI here: it can lose records (the journal then reports
 * the gap) but it cannot forge them, because it does not hold the keys.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public interface WorkflowStore extends AutoCloseable {

    /**
     * Creates workflow {@code definition.workflow()} with its first record (sequence 0), owned by
     * {@code owner} with fencing token 1 and a lease of {@code lease} from now (store clock).
     *
     * @throws WorkflowStoreException {@code WORKFLOW_INVALID} when the id exists, or an I/O code
     */
    StoredWorkflow create(OwnerIdentity owner, Duration lease, SealedRecord definition) throws WorkflowStoreException;

    /**
     * Appends {@code record} (its sequence must be the workflow's record count) if
     * {@code fencingToken} is current and the workflow has not ended; with {@code ends} it also marks
     * the workflow ended (store clock) in the same atomic step.
     */
    StoredWorkflow append(WorkflowId id, long fencingToken, SealedRecord record, boolean ends)
            throws WorkflowStoreException;

    /** Extends the lease to {@code lease} from now if {@code fencingToken} is current. */
    StoredWorkflow renew(WorkflowId id, long fencingToken, Duration lease) throws WorkflowStoreException;

    /**
     * Makes {@code newOwner} the owner with token {@code expectedToken + 1} and a fresh lease, if
     * {@code expectedToken} is current and {@code condition} holds (see the class description).
     */
    StoredWorkflow takeOver(
            WorkflowId id, long expectedToken, OwnerIdentity newOwner, Duration lease, TakeoverCondition condition)
            throws WorkflowStoreException;

    /** The workflow's head, if the store holds it. */
    Optional<StoredWorkflow> find(WorkflowId id) throws WorkflowStoreException;

    /** The workflow's records in sequence order, 0 to {@code records - 1}, each complete. */
    List<SealedRecord> records(WorkflowId id) throws WorkflowStoreException;

    /** Every workflow's head (at most {@code limit}), in no particular order. */
    List<StoredWorkflow> list(int limit) throws WorkflowStoreException;

    /**
     * Removes every workflow that ended more than {@code retention} ago (store clock) with all its
     * records; never one that has not ended.
     *
     * @return the removed workflows as they were
     */
    List<StoredWorkflow> purgeEnded(Duration retention) throws WorkflowStoreException;

    /** The store's clock, which leases are measured on. */
    Instant now() throws WorkflowStoreException;

    /** Releases what the store holds open; idempotent. */
    @Override
    void close();

    /**
     * The embedded default: files in {@code directory} (created 0700): per workflow an append-only
     * record file of CRC-32C framed records, each forced to disk before the append returns, and a
     * head file replaced atomically (temporary file, fsync, rename, directory fsync). A torn tail
     * frame is ignored and cut off by the next writer; a damaged frame before the tail is
     * {@code WORKFLOW_STORE_CORRUPT}. Every mutation holds an exclusive lock on {@code directory/.lock}
     * (processes) and a per-directory lock (threads), so several host processes on one machine may
     * share it. Links are never followed.
     */
    static WorkflowStore embedded(Path directory) {
        return new FileWorkflowStore(directory);
    }
}
