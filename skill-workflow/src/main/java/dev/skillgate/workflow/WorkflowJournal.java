package dev.skillgate.workflow;

import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.workflow.internal.Envelope;
import dev.skillgate.workflow.internal.HostIds;
import dev.skillgate.workflow.internal.RecordCodec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apiguardian.api.API;

/**
 * The typed, encrypting side of the workflow store: it seals every {@link WorkflowRecord} under a
 * fresh data key (AES-256-GCM, wrapped by the {@link KeyProvider}; record id, schema version, owner
 * and fencing token authenticated), writes it through the {@link WorkflowStore} with this instance's
 * fencing token, opens and verifies what it reads, and enforces ownership and recovery.
 *
 * <p><b>Guarantees.</b> Only the current owner advances a workflow: every write carries the token of
 * the lease this journal holds, and the store rejects a stale one ({@code WORKFLOW_FENCED}). Another
 * instance takes a workflow over only after proving the owner dead ({@link #takeOver}): on the same
 * host by the owner's pid and start token; otherwise by the lease's expiry on the store's clock. A
 * recovered workflow shows every started-but-unsettled step, and every step settled without proven
 * cleanup, as {@link StepState#UNKNOWN}: it is never replayed and waits for an operator's
 * {@link #decide}. Every record read is authenticated; a flipped byte is
 * {@code WORKFLOW_RECORD_TAMPERED}, a record sealed under another key {@code WORKFLOW_KEY_MISMATCH},
 * an unknown version {@code WORKFLOW_SCHEMA_UNKNOWN} — and then no part of the workflow is returned.
 *
 * <p><b>Not guaranteed.</b> Nothing read from here authorises a launch: no consent and no grant is
 * ever stored, and a recovered workflow's remaining steps need fresh run-scoped consent. The journal
 * cannot tell whether an unknown step's effect happened; only an operator can. Leases are renewed by a
 * private daemon thread every third of the lease; an owner paused longer than its lease may be taken
 * over, and its later writes are then rejected.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class WorkflowJournal implements AutoCloseable {
    /** The default lease. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

    /** The default bound on retained records per workflow (definition, starts, settlements, decisions, end). */
    public static final int DEFAULT_MAX_RECORDS = 512;

    private static final int LIST_LIMIT = 4096;

    private final WorkflowStore store;
    private final KeyProvider keys;
    private final OwnerIdentity me;
    private final Duration lease;
    private final int maxRecords;
    private final boolean renewAutomatically;
    private final Map<WorkflowId, Owned> owned = new ConcurrentHashMap<>();
    private ScheduledExecutorService renewer; // guarded by this
    private volatile boolean closed;

    /** What this journal holds for a workflow it owns. Guarded by itself. */
    private static final class Owned {
        Lease lease;
        int records;
        final List<WorkflowRecord> history = new ArrayList<>();
        final Set<Integer> startedHere = new HashSet<>();

        Owned(Lease lease, int records, List<WorkflowRecord> history) {
            this.lease = lease;
            this.records = records;
            this.history.addAll(history);
        }
    }

    private WorkflowJournal(Builder b) {
        this.store = b.store;
        this.keys = b.keys;
        this.me = new OwnerIdentity(b.instance, b.hostId, b.process);
        this.lease = b.lease;
        this.maxRecords = b.maxRecords;
        this.renewAutomatically = b.renew;
    }

    /** A builder over {@code store} with {@code keys}. */
    public static Builder builder(WorkflowStore store, KeyProvider keys) {
        return new Builder(store, keys);
    }

    /**
     * The embedded default for a data directory: {@code dataDirectory/workflows} (the store) and
     * {@code dataDirectory/keys/workflow.key} (the key file), instance {@code local}.
     */
    public static WorkflowJournal embedded(Path dataDirectory) {
        Path dir = Objects.requireNonNull(dataDirectory, "dataDirectory");
        return builder(
                        WorkflowStore.embedded(dir.resolve("workflows")),
                        KeyProvider.keyFile(dir.resolve("keys").resolve("workflow.key")))
                .build();
    }

    /** Who this journal writes as. */
    public OwnerIdentity owner() {
        return me;
    }

    /** The lease this journal takes and renews. */
    public Duration leaseDuration() {
        return lease;
    }

    // ---- writing ---------------------------------------------------------------------------

    /** Creates a workflow owned by this instance (fencing token 1) with its definition as record 0. */
    public WorkflowResult<Lease> begin(WorkflowDefinition definition) {
        Objects.requireNonNull(definition, "definition");
        if (closed) {
            return WorkflowResult.failure(ErrorCode.WORKFLOW_STORE_IO, "the workflow journal is closed");
        }
        WorkflowRecord record = new WorkflowRecord.Defined(definition);
        try {
            SealedRecord sealed = seal(definition.workflow(), 0, 1, record);
            StoredWorkflow head = store.create(me, lease, sealed);
            Owned o = new Owned(head.lease(), head.records(), List.of(record));
            owned.put(definition.workflow(), o);
            startRenewer();
            return WorkflowResult.success(head.lease());
        } catch (KeyException e) {
            return WorkflowResult.failure(e.code(), e.getMessage());
        } catch (WorkflowStoreException e) {
            return WorkflowResult.failure(e.code(), e.getMessage());
        } catch (RuntimeException e) {
            return WorkflowResult.failure(
                    ErrorCode.WORKFLOW_STORE_IO,
                    "the workflow store failed (" + e.getClass().getSimpleName() + ")");
        }
    }

    /**
     * Records that {@code step} is about to launch with exactly {@code input}. Write it after the
     * step's consent was used and recorded and before the process starts; a failure here must stop
     * the launch.
     *
     * @return the lease, or {@code WORKFLOW_FENCED} (not the owner any more), {@code WORKFLOW_INVALID}
     *     (no such step, already started or done, or an input the plan does not allow),
     *     {@code WORKFLOW_RECORD_LIMIT}, {@code WORKFLOW_TERMINAL} or an I/O or key code
     */
    public WorkflowResult<Lease> recordStart(WorkflowId id, int step, byte[] input) {
        Objects.requireNonNull(input, "input");
        byte[] copy = input.clone();
        Sha256Digest digest = Sha256Digest.hash(copy);
        return write(
                id,
                false,
                o -> {
                    WorkflowDefinition def = definition(o);
                    if (step < 0 || step >= def.steps().size()) {
                        return Optional.of(invalid("no step " + step));
                    }
                    StepState state =
                            fold(def, o.history, o.startedHere).get(step).state();
                    if (state != StepState.NOT_STARTED && state != StepState.NOT_RUN) {
                        return Optional.of(invalid("step " + step + " is " + state));
                    }
                    if (def.steps()
                            .get(step)
                            .invocationDigest()
                            .map(d -> !d.equals(digest))
                            .orElse(false)) {
                        return Optional.of(invalid("step " + step + "'s plan fixes another input"));
                    }
                    if (copy.length > WorkflowRecord.MAX_INPUT_BYTES) {
                        return Optional.of(invalid("the input exceeds " + WorkflowRecord.MAX_INPUT_BYTES + " bytes"));
                    }
                    return Optional.empty();
                },
                o -> new WorkflowRecord.StepStarted(step, copy, digest),
                o -> o.startedHere.add(step));
    }

    /**
     * Records how {@code step} settled: its status, cleanup, codes and (only when it succeeded) its
     * checked output.
     */
    public WorkflowResult<Lease> recordSettlement(
            WorkflowId id,
            int step,
            ExecutionStatus status,
            CleanupStatus cleanup,
            List<ErrorCode> codes,
            Optional<byte[]> checkedOutput) {
        WorkflowRecord.StepSettled record;
        try {
            record = new WorkflowRecord.StepSettled(step, status, cleanup, codes, checkedOutput);
        } catch (IllegalArgumentException e) {
            return WorkflowResult.failure(ErrorCode.WORKFLOW_INVALID, e.getMessage());
        }
        return write(
                id,
                false,
                o -> {
                    WorkflowDefinition def = definition(o);
                    if (step < 0 || step >= def.steps().size()) {
                        return Optional.of(invalid("no step " + step));
                    }
                    StepState state =
                            fold(def, o.history, o.startedHere).get(step).state();
                    if (state != StepState.RUNNING) {
                        return Optional.of(invalid("step " + step + " is " + state + ", not running here"));
                    }
                    return Optional.empty();
                },
                o -> record,
                o -> o.startedHere.remove(step));
    }

    /**
     * Records an operator's decision about a step whose effect is unknown (only such a step). With
     * {@link OperatorDecision#EFFECT_ABSENT} the step becomes a remaining step; it still runs only
     * after fresh run-scoped consent.
     */
    public WorkflowResult<Lease> decide(WorkflowId id, int step, OperatorDecision decision, String note) {
        WorkflowRecord.StepDecided record;
        try {
            record = new WorkflowRecord.StepDecided(step, decision, note);
        } catch (IllegalArgumentException | NullPointerException e) {
            return WorkflowResult.failure(ErrorCode.WORKFLOW_INVALID, "invalid decision: " + e.getMessage());
        }
        return write(
                id,
                false,
                o -> {
                    WorkflowDefinition def = definition(o);
                    if (step < 0 || step >= def.steps().size()) {
                        return Optional.of(invalid("no step " + step));
                    }
                    StepState state =
                            fold(def, o.history, o.startedHere).get(step).state();
                    if (state != StepState.UNKNOWN) {
                        return Optional.of(
                                invalid("step " + step + " is " + state + "; only an unknown step is decided"));
                    }
                    return Optional.empty();
                },
                o -> record,
                o -> {});
    }

    /**
     * Ends the workflow with its final record. {@link EndReason#COMPLETED} only when every step is
     * done; {@link EndReason#CANCELLED} at any time (unfinished steps then never run).
     */
    public WorkflowResult<Lease> end(WorkflowId id, EndReason reason) {
        Objects.requireNonNull(reason, "reason");
        WorkflowResult<Lease> r = write(
                id,
                true,
                o -> {
                    if (reason == EndReason.COMPLETED) {
                        boolean allDone = fold(definition(o), o.history, o.startedHere).stream()
                                .allMatch(s -> s.state() == StepState.DONE);
                        if (!allDone) {
                            return Optional.of(invalid("not every step is done"));
                        }
                    }
                    return Optional.empty();
                },
                o -> new WorkflowRecord.Ended(reason),
                o -> {});
        if (r.isSuccess()) {
            owned.remove(id);
        }
        return r;
    }

    private interface Check {
        Optional<Diagnostic> apply(Owned o) throws Envelope.Refused;
    }

    private interface Make {
        WorkflowRecord apply(Owned o);
    }

    private interface After {
        void apply(Owned o);
    }

    private WorkflowResult<Lease> write(WorkflowId id, boolean ends, Check check, Make make, After after) {
        Objects.requireNonNull(id, "id");
        Owned o = owned.get(id);
        if (o == null) {
            return WorkflowResult.failure(
                    ErrorCode.WORKFLOW_FENCED, "this instance does not own workflow " + id + " (take it over first)");
        }
        synchronized (o) {
            Optional<Diagnostic> refused;
            try {
                refused = check.apply(o);
            } catch (Envelope.Refused e) {
                return WorkflowResult.failure(e.code(), e.getMessage());
            }
            if (refused.isPresent()) {
                return WorkflowResult.failure(refused.get());
            }
            int limit = ends ? maxRecords : maxRecords - 1; // room is always left for the final record
            if (o.records >= limit) {
                return WorkflowResult.failure(
                        ErrorCode.WORKFLOW_RECORD_LIMIT, "workflow " + id + " holds " + o.records + " records already");
            }
            WorkflowRecord record = make.apply(o);
            try {
                SealedRecord sealed = seal(id, o.records, o.lease.fencingToken(), record);
                StoredWorkflow head = store.append(id, o.lease.fencingToken(), sealed, ends);
                o.records = head.records();
                o.history.add(record);
                o.lease = head.lease();
                after.apply(o);
                return WorkflowResult.success(o.lease);
            } catch (WorkflowStoreException e) {
                if (e.code() == ErrorCode.WORKFLOW_FENCED || e.code() == ErrorCode.WORKFLOW_TERMINAL) {
                    owned.remove(id, o);
                }
                return WorkflowResult.failure(e.code(), e.getMessage());
            } catch (KeyException e) {
                return WorkflowResult.failure(e.code(), e.getMessage());
            } catch (RuntimeException e) {
                return WorkflowResult.failure(
                        ErrorCode.WORKFLOW_STORE_IO,
                        "the workflow store failed (" + e.getClass().getSimpleName() + ")");
            }
        }
    }

    private static Diagnostic invalid(String message) {
        return Diagnostic.error(ErrorCode.WORKFLOW_INVALID, "", message);
    }

    private static WorkflowDefinition definition(Owned o) {
        return ((WorkflowRecord.Defined) o.history.get(0)).definition();
    }

    private SealedRecord seal(WorkflowId id, int sequence, long token, WorkflowRecord record) throws KeyException {
        byte[] plain = RecordCodec.encode(record);
        try {
            byte[] sealed = Envelope.seal(
                    new Envelope.Header(
                            WorkflowRecord.SCHEMA_VERSION,
                            id,
                            sequence,
                            token,
                            me.instance().value(),
                            keys.keyId()),
                    plain,
                    keys);
            return new SealedRecord(id, sequence, WorkflowRecord.SCHEMA_VERSION, token, sealed);
        } finally {
            java.util.Arrays.fill(plain, (byte) 0);
        }
    }

    // ---- ownership ---------------------------------------------------------------------------

    /**
     * Takes {@code id} over for this instance after proving its owner dead: an owner on this host with
     * a process identity is dead when its pid is gone, reused by another start time, or a zombie
     * (refused with {@code WORKFLOW_OWNER_ALIVE} while it lives, whatever its lease says); any other
     * owner only when its lease has ended on the store's clock (checked by the store in the same
     * atomic step as the token). A workflow this journal already holds is returned as it is.
     *
     * @return the recovered workflow (its unknown steps need {@link #decide}; its remaining steps need
     *     fresh consent), or why not
     */
    public WorkflowResult<Recovery> takeOver(WorkflowId id) {
        Objects.requireNonNull(id, "id");
        if (closed) {
            return WorkflowResult.failure(ErrorCode.WORKFLOW_STORE_IO, "the workflow journal is closed");
        }
        try {
            if (owned.containsKey(id)) {
                return recover(id);
            }
            StoredWorkflow head = store.find(id)
                    .orElseThrow(() -> new WorkflowStoreException(ErrorCode.WORKFLOW_NOT_FOUND, "no workflow " + id));
            if (head.ended()) {
                return WorkflowResult.failure(ErrorCode.WORKFLOW_TERMINAL, "workflow " + id + " has ended");
            }
            OwnerIdentity owner = head.owner();
            TakeoverCondition condition;
            if (owner.sameAs(me)) {
                // This very process wrote the head but holds no lease (a journal reopened in the same
                // JVM): the owner is alive, so only the lease's expiry may hand it over.
                condition = TakeoverCondition.LEASE_EXPIRED;
            } else if (owner.hostId().equals(me.hostId()) && owner.process().isPresent()) {
                if (owner.process().get().isAlive()) {
                    return WorkflowResult.failure(
                            ErrorCode.WORKFLOW_OWNER_ALIVE,
                            "the owner " + owner.instance() + " (pid "
                                    + owner.process().get().pid() + ") is alive on this host");
                }
                condition = TakeoverCondition.OWNER_PROVEN_DEAD;
            } else {
                condition = TakeoverCondition.LEASE_EXPIRED;
            }
            // Verify what is stored before taking responsibility for it.
            WorkflowResult<Recovery> before = open(head, Set.of());
            if (!before.isSuccess()) {
                return before;
            }
            StoredWorkflow taken = store.takeOver(id, head.fencingToken(), me, lease, condition);
            Recovery verified = before.value().get();
            List<WorkflowRecord> history = readHistory(taken);
            owned.put(id, new Owned(taken.lease(), taken.records(), history));
            startRenewer();
            return WorkflowResult.success(
                    new Recovery(taken, verified.definition(), verified.steps(), verified.ended()));
        } catch (WorkflowStoreException e) {
            return WorkflowResult.failure(e.code(), e.getMessage());
        } catch (Envelope.Refused e) {
            return WorkflowResult.failure(e.code(), e.getMessage());
        } catch (RuntimeException e) {
            return WorkflowResult.failure(
                    ErrorCode.WORKFLOW_STORE_IO,
                    "the workflow store failed (" + e.getClass().getSimpleName() + ")");
        }
    }

    private List<WorkflowRecord> readHistory(StoredWorkflow head) throws WorkflowStoreException, Envelope.Refused {
        List<WorkflowRecord> out = new ArrayList<>();
        for (SealedRecord r : verifiedRecords(head)) {
            out.add(openRecord(r, head));
        }
        return out;
    }

    /** Whether this journal holds {@code id}'s lease now. */
    public boolean owns(WorkflowId id) {
        return owned.containsKey(id);
    }

    /** Renews every lease this journal holds now (the renewer does this on its own). */
    public void renewLeases() {
        for (Map.Entry<WorkflowId, Owned> e : owned.entrySet()) {
            Owned o = e.getValue();
            synchronized (o) {
                try {
                    o.lease = store.renew(e.getKey(), o.lease.fencingToken(), lease)
                            .lease();
                } catch (WorkflowStoreException ex) {
                    if (ex.code() == ErrorCode.WORKFLOW_FENCED || ex.code() == ErrorCode.WORKFLOW_NOT_FOUND) {
                        owned.remove(e.getKey(), o);
                    }
                } catch (RuntimeException ex) {
                    // keep the lease; the next round tries again
                }
            }
        }
    }

    private synchronized void startRenewer() {
        if (!renewAutomatically || renewer != null || closed) {
            return;
        }
        renewer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "skillgate-workflow-lease");
            t.setDaemon(true);
            return t;
        });
        long every = Math.max(1, lease.toMillis() / 3);
        renewer.scheduleWithFixedDelay(this::renewLeases, every, every, TimeUnit.MILLISECONDS);
    }

    // ---- reading -----------------------------------------------------------------------------

    /** Verifies and opens workflow {@code id}: its head, definition, every step's state, its end. */
    public WorkflowResult<Recovery> recover(WorkflowId id) {
        Objects.requireNonNull(id, "id");
        try {
            Optional<StoredWorkflow> head = store.find(id);
            if (head.isEmpty()) {
                return WorkflowResult.failure(ErrorCode.WORKFLOW_NOT_FOUND, "no workflow " + id);
            }
            Owned o = owned.get(id);
            Set<Integer> here;
            if (o == null) {
                here = Set.of();
            } else {
                synchronized (o) {
                    here = Set.copyOf(o.startedHere);
                }
            }
            return open(
                    head.get(),
                    head.get().fencingToken() == (o == null ? -1 : o.lease.fencingToken()) ? here : Set.of());
        } catch (WorkflowStoreException e) {
            return WorkflowResult.failure(e.code(), e.getMessage());
        } catch (RuntimeException e) {
            return WorkflowResult.failure(
                    ErrorCode.WORKFLOW_STORE_IO,
                    "the workflow store failed (" + e.getClass().getSimpleName() + ")");
        }
    }

    private WorkflowResult<Recovery> open(StoredWorkflow head, Set<Integer> startedHere) throws WorkflowStoreException {
        try {
            List<WorkflowRecord> history = readHistory(head);
            WorkflowDefinition def = ((WorkflowRecord.Defined) history.get(0)).definition();
            Optional<EndReason> ended = history.get(history.size() - 1) instanceof WorkflowRecord.Ended e
                    ? Optional.of(e.reason())
                    : Optional.empty();
            return WorkflowResult.success(new Recovery(head, def, fold(def, history, startedHere), ended));
        } catch (Envelope.Refused e) {
            return WorkflowResult.failure(e.code(), "workflow " + head.id() + ": " + e.getMessage());
        }
    }

    private List<SealedRecord> verifiedRecords(StoredWorkflow head) throws WorkflowStoreException, Envelope.Refused {
        List<SealedRecord> records = store.records(head.id());
        if (records.isEmpty()) {
            throw new Envelope.Refused(ErrorCode.WORKFLOW_STORE_CORRUPT, "the workflow has no definition record");
        }
        long token = 0;
        for (int i = 0; i < records.size(); i++) {
            SealedRecord r = records.get(i);
            if (!r.workflow().equals(head.id()) || r.sequence() != i) {
                throw new Envelope.Refused(ErrorCode.WORKFLOW_STORE_CORRUPT, "record " + i + " is out of place");
            }
            if (r.fencingToken() < token || r.fencingToken() > head.fencingToken()) {
                throw new Envelope.Refused(
                        ErrorCode.WORKFLOW_STORE_CORRUPT, "record " + i + " has an impossible fencing token");
            }
            token = r.fencingToken();
        }
        return records;
    }

    private WorkflowRecord openRecord(SealedRecord r, StoredWorkflow head) throws Envelope.Refused {
        Envelope.Opened opened = Envelope.open(r.sealed(), keys);
        Envelope.Header h = opened.header();
        try {
            if (!h.workflow().equals(r.workflow())
                    || h.sequence() != r.sequence()
                    || h.fencingToken() != r.fencingToken()
                    || h.schemaVersion() != r.schemaVersion()) {
                throw new Envelope.Refused(
                        ErrorCode.WORKFLOW_RECORD_TAMPERED, "record " + r.sequence() + " was sealed for another place");
            }
            if (h.fencingToken() == head.fencingToken()
                    && !h.owner().equals(head.owner().instance().value())) {
                throw new Envelope.Refused(
                        ErrorCode.WORKFLOW_RECORD_TAMPERED, "record " + r.sequence() + " was sealed by another owner");
            }
            WorkflowRecord record = RecordCodec.decode(opened.plaintext());
            boolean first = r.sequence() == 0;
            if (first != (record instanceof WorkflowRecord.Defined)) {
                throw new Envelope.Refused(ErrorCode.WORKFLOW_STORE_CORRUPT, "the definition is not record 0");
            }
            if (first
                    && !((WorkflowRecord.Defined) record)
                            .definition()
                            .workflow()
                            .equals(head.id())) {
                throw new Envelope.Refused(ErrorCode.WORKFLOW_RECORD_TAMPERED, "the definition names another workflow");
            }
            return record;
        } finally {
            java.util.Arrays.fill(opened.plaintext(), (byte) 0);
        }
    }

    /** Folds the records into each step's state. */
    static List<StepView> fold(WorkflowDefinition def, List<WorkflowRecord> history, Set<Integer> startedHere)
            throws Envelope.Refused {
        int n = def.steps().size();
        StepState[] state = new StepState[n];
        java.util.Arrays.fill(state, StepState.NOT_STARTED);
        List<Optional<WorkflowRecord.StepStarted>> started = new ArrayList<>();
        List<Optional<WorkflowRecord.StepSettled>> settled = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            started.add(Optional.empty());
            settled.add(Optional.empty());
        }
        for (int i = 1; i < history.size(); i++) {
            WorkflowRecord r = history.get(i);
            if (r instanceof WorkflowRecord.StepStarted s) {
                check(s.step() < n
                        && (state[s.step()] == StepState.NOT_STARTED || state[s.step()] == StepState.NOT_RUN));
                state[s.step()] = StepState.RUNNING;
                started.set(s.step(), Optional.of(s));
                settled.set(s.step(), Optional.empty());
            } else if (r instanceof WorkflowRecord.StepSettled s) {
                check(s.step() < n && state[s.step()] == StepState.RUNNING);
                state[s.step()] =
                        s.effectUnknown() ? StepState.UNKNOWN : s.neverStarted() ? StepState.NOT_RUN : StepState.DONE;
                settled.set(s.step(), Optional.of(s));
            } else if (r instanceof WorkflowRecord.StepDecided d) {
                check(d.step() < n && (state[d.step()] == StepState.UNKNOWN || state[d.step()] == StepState.RUNNING));
                state[d.step()] = d.decision() == OperatorDecision.EFFECT_HAPPENED ? StepState.DONE : StepState.NOT_RUN;
            } else if (r instanceof WorkflowRecord.Ended) {
                check(i == history.size() - 1);
            } else {
                check(false);
            }
        }
        List<StepView> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            StepState s = state[i];
            if (s == StepState.RUNNING && !startedHere.contains(i)) {
                // Started, never settled, and not by this live owner: an interrupted write.
                s = StepState.UNKNOWN;
            }
            out.add(new StepView(i, def.steps().get(i), s, started.get(i), settled.get(i)));
        }
        return out;
    }

    private static void check(boolean ok) throws Envelope.Refused {
        if (!ok) {
            throw new Envelope.Refused(ErrorCode.WORKFLOW_STORE_CORRUPT, "the records are not a possible history");
        }
    }

    /** Every workflow the store holds (heads only; at most 4096). */
    public WorkflowResult<List<StoredWorkflow>> list() {
        try {
            return WorkflowResult.success(store.list(LIST_LIMIT));
        } catch (WorkflowStoreException e) {
            return WorkflowResult.failure(e.code(), e.getMessage());
        }
    }

    /**
     * Removes the workflows that ended more than {@code retention} ago, and only those. Record the
     * report in the audit log.
     */
    public WorkflowResult<RetentionReport> purge(Duration retention) {
        Objects.requireNonNull(retention, "retention");
        if (retention.isNegative()) {
            return WorkflowResult.failure(ErrorCode.WORKFLOW_INVALID, "a retention period is not negative");
        }
        try {
            return WorkflowResult.success(new RetentionReport(store.purgeEnded(retention)));
        } catch (WorkflowStoreException e) {
            return WorkflowResult.failure(e.code(), e.getMessage());
        }
    }

    /** Stops renewing leases and closes the store. What this instance owned stays owned until its lease ends. */
    @Override
    public void close() {
        closed = true;
        synchronized (this) {
            if (renewer != null) {
                renewer.shutdownNow();
            }
        }
        owned.clear();
        store.close();
    }

    /** Builds a {@link WorkflowJournal}. */
    public static final class Builder {
        private final WorkflowStore store;
        private final KeyProvider keys;
        private InstanceId instance = InstanceId.of("local");
        private String hostId = HostIds.local();
        private Optional<ProcessIdentity> process = ProcessIdentity.current();
        private Duration lease = DEFAULT_LEASE;
        private int maxRecords = DEFAULT_MAX_RECORDS;
        private boolean renew = true;

        private Builder(WorkflowStore store, KeyProvider keys) {
            this.store = Objects.requireNonNull(store, "store");
            this.keys = Objects.requireNonNull(keys, "keys");
        }

        /** This instance's id (default {@code local}). */
        public Builder instance(InstanceId id) {
            this.instance = Objects.requireNonNull(id, "id");
            return this;
        }

        /**
         * The host id (default: a digest of the machine id and boot id). Two instances with different
         * host ids treat each other as remote: only a lease's expiry hands a workflow over.
         */
        public Builder hostId(String hostId) {
            new OwnerIdentity(instance, hostId, Optional.empty());
            this.hostId = hostId;
            return this;
        }

        /**
         * The process this instance's ownership names (default: this JVM, where {@code /proc} can tell
         * its start token). Empty makes this owner provable dead only by its lease's expiry.
         */
        public Builder processIdentity(Optional<ProcessIdentity> process) {
            this.process = Objects.requireNonNull(process, "process");
            return this;
        }

        /** The lease taken and renewed (1 s - 1 h; default 30 s). */
        public Builder lease(Duration lease) {
            Objects.requireNonNull(lease, "lease");
            if (lease.compareTo(Duration.ofSeconds(1)) < 0 || lease.compareTo(Duration.ofHours(1)) > 0) {
                throw new IllegalArgumentException("a lease is 1 s - 1 h");
            }
            this.lease = lease;
            return this;
        }

        /** The most records retained per workflow (16-4096; default 512). */
        public Builder maxRecords(int maxRecords) {
            if (maxRecords < 16 || maxRecords > 4096) {
                throw new IllegalArgumentException("maxRecords is 16-4096");
            }
            this.maxRecords = maxRecords;
            return this;
        }

        /** Whether a private daemon thread renews held leases (default true; tests turn it off). */
        public Builder renewLeases(boolean renew) {
            this.renew = renew;
            return this;
        }

        /** The journal. */
        public WorkflowJournal build() {
            return new WorkflowJournal(this);
        }
    }
}
