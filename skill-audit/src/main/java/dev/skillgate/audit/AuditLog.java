package dev.skillgate.audit;

import dev.skillgate.audit.internal.Engine;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.tlog.NoteSigner;
import dev.skillgate.tlog.NoteVerifierKey;
import dev.skillgate.tlog.SignedNote;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The private, append-only, hash-chained trust log and the trust store built on it (SPEC §9).
 *
 * <p>What it guarantees:
 *
 * <ul>
 *   <li>{@link #open} never throws because of anything on disk and never blocks start-up for longer
 *       than {@link AuditLogOptions#openWait()}; the outcome is {@link #status()}.
 *   <li>Anything wrong before the commit point ({@code audit.head}) makes the log
 *       {@link AuditState#DISABLED}: {@link #isTrusted} is false for every scope and appends are
 *       refused until {@link #repair(String)}, which is itself recorded.
 *   <li>An unconfirmed tail after the commit point is quarantined; a single complete record there can
 *       only reduce trust (a revocation is kept and re-committed, anything else is dropped).
 *   <li>An append returns {@link AppendResult.Committed} only after the record and the new commit
 *       point are both durable.
 *   <li>One writer per directory: a second writer (another process, or another handle in this JVM)
 *       gets a read-only handle.
 *   <li>Every committed record is handed to each configured {@link AuditSink}, in sequence order,
 *       before the append returns; a sink that fails or times out halts the handle
 *       ({@link AuditState#EXPORT_HALTED}: nothing trusted, appends refused) until
 *       {@link #resumeExport()} (decision 0370).
 * </ul>
 *
 * <p>What it does not guarantee: someone who can write the directory as the same user and knows the
 * format can rebuild the chain and the head, or roll both back together, without local detection.
 * Only a checkpoint held elsewhere ({@link #checkpoint}, {@link #verify}) reveals that. See
 * {@code docs/audit.md}. Trust decided here is about which skills the user approved; it does not
 * make a skill safe, and nothing here is a sandbox.
 *
 * <p>Thread-safe. Appends are serialised on a private thread; callers' interrupts are deferred
 * until their append finishes, never let through to the file.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class AuditLog implements AutoCloseable {
    private final Engine engine;

    private AuditLog(Engine engine) {
        this.engine = engine;
    }

    /** Opens (or creates) the log in {@code directory} for writing, with default options. */
    public static AuditLog open(Path directory) {
        return open(AuditLogOptions.builder(directory).build());
    }

    /** Opens the log as {@code options} say. Never throws for what is found on disk. */
    public static AuditLog open(AuditLogOptions options) {
        Objects.requireNonNull(options, "options");
        return new AuditLog(Engine.open(
                options.directory(),
                options.clock(),
                options.readOnly(),
                options.openWait(),
                options.sinks(),
                options.sinkTimeout()));
    }

    /** Opens the log read-only: no lock is taken and no file is created, changed or repaired. */
    public static AuditLog openReadOnly(Path directory) {
        return open(AuditLogOptions.builder(directory).readOnly(true).build());
    }

    /** The current state and its report. */
    public AuditStatus status() {
        return engine.status();
    }

    /** Waits up to {@code timeout} for start-up verification to finish, and returns the status. */
    public AuditStatus awaitReady(Duration timeout) {
        return engine.awaitReady(Objects.requireNonNull(timeout, "timeout"));
    }

    /**
     * Whether {@code scope} is trusted now: the log yields trust (OK or DEGRADED), the latest decision
     * on exactly this scope is an approval, and no revocation is held in memory for it. False while
     * verifying, when disabled, and after {@link #close()}.
     */
    public boolean isTrusted(TrustScope scope) {
        return engine.isTrusted(scope);
    }

    /**
     * The latest decision on every scope the verified log mentions, in the order they were decided.
     * Decisions only: scopes hold agent ids, names and digests, never paths or secrets.
     */
    public List<TrustDecision> list() {
        return engine.list();
    }

    /**
     * Up to {@code limit} verified committed records with sequence numbers above {@code after}, read
     * from disk. For a disabled log, the records before the first bad one.
     */
    public List<AuditRecord> records(long after, int limit) throws IOException {
        return engine.records(after, limit);
    }

    /** Records first-use approval of a prompt skill, or an execution receipt. */
    public AppendResult approve(TrustScope scope) {
        return engine.approve(scope);
    }

    /**
     * Revokes trust in {@code scope}. Refused with {@code TRUST_NOT_FOUND} when no decision exists and
     * {@code TRUST_REVOKED} when it is already revoked. When the revocation cannot be made durable
     * (read-only handle, I/O fault), it is still applied in memory for this handle's lifetime.
     */
    public AppendResult revoke(TrustScope scope) {
        return engine.revoke(scope);
    }

    /** Records that a consent grant was consumed. Grants no trust. */
    public AppendResult recordConsumption(AuditEvent.Consumed event) {
        return engine.record(event);
    }

    /** Records a policy change. Grants no trust. */
    public AppendResult recordPolicyChange(AuditEvent.PolicyChanged event) {
        return engine.record(event);
    }

    /**
     * Records how an authorised execution settled. Grants no trust. A torn, unconfirmed settlement
     * record found after a crash is quarantined (dropped), like every record that does not reduce
     * trust.
     */
    public AppendResult recordSettlement(AuditEvent.Settled event) {
        return engine.record(event);
    }

    /** Records an operator's resolution of an execution whose cleanup was unknown. Grants no trust. */
    public AppendResult recordResolution(AuditEvent.Resolved event) {
        return engine.record(event);
    }

    /** Records the approval of a workflow plan for one run. Grants no trust. */
    public AppendResult recordPlanApproval(AuditEvent.PlanApproved event) {
        return engine.record(event);
    }

    /** Records a durable workflow's takeover, step decision or retention removal. Grants no trust. */
    public AppendResult recordWorkflowChange(AuditEvent.WorkflowChanged event) {
        return engine.record(event);
    }

    /**
     * Records that a human's answer arrived after the engine stopped waiting for it and was ignored
     * (decision 0769). Grants no trust.
     */
    public AppendResult recordLateAnswer(AuditEvent.LateAnswer event) {
        return engine.record(event);
    }

    /** Records that a step of an approved workflow plan was used for a launch. Grants no trust. */
    public AppendResult recordPlanStep(AuditEvent.PlanStepConsumed event) {
        return engine.record(event);
    }

    /**
     * The explicit operator action that ends a {@link AuditState#DISABLED} state: the old
     * {@code audit.log} and {@code audit.head} move to a new {@code audit.corrupt-<time>} directory,
     * and a new log starts with a {@link AuditEvent.Repaired} record carrying the reason and digests of
     * the old files. Every earlier approval is gone and must be made again. Refused with
     * {@code AUDIT_REPAIR_NOT_NEEDED} unless the log is disabled, and with {@code AUDIT_DISABLED} when
     * this handle does not hold the lock.
     *
     * @param reason why the operator repairs (1–200 characters, no control characters)
     */
    public AppendResult repair(String reason) {
        return engine.repair(reason);
    }

    /**
     * The operator's answer to {@link AuditState#EXPORT_HALTED}: delivers to each sink, in order, every
     * committed record it has not acknowledged (read back from the verified log, so the record whose
     * export failed is delivered again), and, when every sink accepts, lifts the halt: the handle
     * returns to the state it had and appends are allowed again. When a sink fails again the handle
     * stays halted with a fresh {@code AUDIT_SINK_FAILED} diagnostic. Does nothing unless halted. Not
     * itself recorded in the log: it changes no trust decision.
     *
     * @return the status afterwards
     */
    public AuditStatus resumeExport() {
        return engine.resumeExport();
    }

    /** A checkpoint of the current commit point signed with {@code key}; empty unless the log yields trust. */
    public Optional<Checkpoint> checkpoint(CheckpointKey key) {
        return engine.checkpoint(key);
    }

    /**
     * Checks that this log extends {@code checkpoint}: detects truncation and rollback to before it,
     * a rewritten history, and a replaced log.
     *
     * @param trustedKey the key the checkpoint must be signed with; empty accepts the key it names
     */
    public CheckpointVerification verify(Checkpoint checkpoint, Optional<CheckpointPublicKey> trustedKey) {
        return engine.verify(checkpoint, trustedKey);
    }

    /**
     * A C2SP {@code tlog-checkpoint} of the current commit point (origin {@code signer.name()/logId},
     * tree size, RFC 6962 root) signed as a C2SP signed note; empty unless the log yields trust. Publish
     * it outside this machine (a witness, another store): that is what makes a later rollback
     * detectable ({@code docs/audit.md}).
     */
    public Optional<SignedNote> checkpoint(NoteSigner signer) {
        return engine.noteCheckpoint(signer);
    }

    /**
     * A snapshot of the log's Merkle tree recomputed from the committed records, for proofs; empty
     * unless the log yields trust and the recomputed root matches the commit point.
     *
     * @throws IOException when the log cannot be read
     */
    public Optional<AuditTree> tree() throws IOException {
        return engine.tree();
    }

    /**
     * Checks that this log extends an earlier C2SP checkpoint: signed by one of {@code trustedKeys},
     * for this log, and its records' root still the checkpoint's. Detects truncation, rollback of log
     * and head together to before it, rewriting and replacement.
     */
    public CheckpointVerification verifyCheckpoint(byte[] checkpointNote, List<NoteVerifierKey> trustedKeys) {
        AuditStatus s = status();
        Optional<AuditTree> t;
        try {
            t = tree();
        } catch (IOException e) {
            return new CheckpointVerification(
                    false,
                    "",
                    List.of(Diagnostic.error(
                            ErrorCode.AUDIT_IO,
                            "",
                            "the log could not be read (" + e.getClass().getSimpleName() + ")")));
        }
        if (t.isEmpty()) {
            ErrorCode code = s.state() == AuditState.VERIFYING ? ErrorCode.AUDIT_VERIFYING : ErrorCode.AUDIT_DISABLED;
            return new CheckpointVerification(
                    false,
                    "",
                    List.of(Diagnostic.error(
                            code,
                            "",
                            "the log yields no verified tree (" + s.state() + "); nothing can be confirmed")));
        }
        return t.get().verify(checkpointNote, trustedKeys);
    }

    /** Releases the lock and the files. Idempotent; afterwards nothing is trusted and appends throw. */
    @Override
    public void close() {
        engine.close();
    }
}
