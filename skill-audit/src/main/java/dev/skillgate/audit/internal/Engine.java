package dev.skillgate.audit.internal;

import dev.skillgate.audit.AppendResult;
import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.audit.AuditSink;
import dev.skillgate.audit.AuditStatus;
import dev.skillgate.audit.AuditTree;
import dev.skillgate.audit.Checkpoint;
import dev.skillgate.audit.CheckpointKey;
import dev.skillgate.audit.CheckpointPublicKey;
import dev.skillgate.audit.CheckpointVerification;
import dev.skillgate.audit.TrustDecision;
import dev.skillgate.audit.TrustScope;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.tlog.NoteSigner;
import dev.skillgate.tlog.SignedNote;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The audit log's implementation behind {@link dev.skillgate.audit.AuditLog}: a coordinator that
 * runs the parts on one worker thread. Not an API: the package is not exported.
 *
 * <p>Every file operation runs on one private worker thread, in submission order: verification at
 * open, appends, repair, close. Callers wait for their task without being interruptible, so a
 * caller's interrupt can never close a channel mid-write (the interrupt flag is restored
 * afterwards). Readers ({@link #isTrusted}, {@link #status}, {@link #list}) read a published
 * snapshot ({@link LogState.View}) and never block.
 *
 * <p>The parts, one job each: {@link AuditDirectory} (files, placement, permissions), {@link
 * WriterLock} (single writer), {@link Recovery} and {@link ReadOnlyOpen} (open: verification and
 * the recovery rule, over {@link LogScanner}), {@link Appender} with {@link CommitPoint} and {@link
 * TreeState} (append and commit, chain and tree together), {@link Exporter} (sinks), {@link Repair}
 * and {@link Checkpoints}; the byte formats are {@link Frames}, {@link Payloads} and {@link Head}.
 */
public final class Engine implements AutoCloseable {
    // The file names, for the tests of this package.
    static final String LOG = AuditDirectory.LOG;
    static final String HEAD = AuditDirectory.HEAD;
    static final String HEAD_TMP = AuditDirectory.HEAD_TMP;

    private static final AtomicInteger THREADS = new AtomicInteger();

    private final AuditDirectory files;
    private final boolean readOnlyRequested;
    private final ExecutorService worker;
    private volatile Thread workerThread;
    private final Future<?> ready;
    private volatile boolean closed;

    private final LogState state = new LogState();
    private final WriterLock lock = new WriterLock();
    private final Exporter exporter;
    private final Recovery recovery;
    private final ReadOnlyOpen readOnly;
    private final Appender appender;
    private final Repair repair;
    private final Checkpoints checkpoints;

    private Engine(Path dir, Clock clock, boolean readOnly, FileOps ops, List<AuditSink> sinks, Duration sinkTimeout) {
        this.files = new AuditDirectory(dir);
        Path log = files.resolve(AuditDirectory.LOG);
        this.exporter = new Exporter(state, log, sinks, sinkTimeout);
        CommitPoint commit = new CommitPoint(dir, ops);
        this.recovery = new Recovery(state, files, commit, ops, clock);
        this.readOnly = new ReadOnlyOpen(state, files, readOnly);
        this.appender = new Appender(state, lock, commit, recovery, exporter, ops, clock);
        this.repair = new Repair(state, files, lock, commit, exporter, ops, clock);
        this.checkpoints = new Checkpoints(state, log, clock);
        this.readOnlyRequested = readOnly;
        this.worker = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "skillgate-audit-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            workerThread = t;
            return t;
        });
        this.ready = worker.submit(() -> {
            initialize();
            // Nothing is replayed at open: each sink starts with the next record this handle commits.
            exporter.startAfter(state.head == null ? 0 : state.head.sequence());
        });
    }

    /**
     * Opens the log in {@code dir}. Never throws for anything found on disk: the outcome is in
     * {@link #status()}.
     *
     * @param wait how long to wait for verification before returning a {@code VERIFYING} handle
     */
    public static Engine open(Path dir, Clock clock, boolean readOnly, Duration wait) {
        return open(dir, clock, readOnly, wait, FileOps.REAL);
    }

    /**
     * Opens the log with sinks that receive every record this handle commits.
     *
     * @param sinkTimeout how long one export may take before it counts as a failure
     */
    public static Engine open(
            Path dir, Clock clock, boolean readOnly, Duration wait, List<AuditSink> sinks, Duration sinkTimeout) {
        return open(dir, clock, readOnly, wait, FileOps.REAL, sinks, sinkTimeout);
    }

    static Engine open(Path dir, Clock clock, boolean readOnly, Duration wait, FileOps ops) {
        return open(dir, clock, readOnly, wait, ops, List.of(), Duration.ofSeconds(5));
    }

    static Engine open(
            Path dir,
            Clock clock,
            boolean readOnly,
            Duration wait,
            FileOps ops,
            List<AuditSink> sinks,
            Duration sinkTimeout) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(wait, "wait");
        Objects.requireNonNull(sinkTimeout, "sinkTimeout");
        Engine engine =
                new Engine(dir.toAbsolutePath().normalize(), clock, readOnly, ops, List.copyOf(sinks), sinkTimeout);
        engine.awaitReady(wait);
        return engine;
    }

    // ------------------------------------------------------------------ public surface

    /** The current status. */
    public AuditStatus status() {
        return state.view().status();
    }

    /** Waits up to {@code timeout} for start-up verification and returns the status. */
    public AuditStatus awaitReady(Duration timeout) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
        try {
            while (true) {
                try {
                    ready.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (TimeoutException | ExecutionException e) {
                    break;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return state.view().status();
    }

    /** Whether {@code scope} is trusted now: the log yields trust and its latest decision is an approval. */
    public boolean isTrusted(TrustScope scope) {
        Objects.requireNonNull(scope, "scope");
        LogState.View v = state.view();
        if (closed || !v.status().yieldsTrust()) {
            return false;
        }
        ScopeKey id = ScopeKey.of(scope.id());
        return v.trust().approved(id) && !state.revokedInMemory.contains(id);
    }

    /** The latest decision per scope. */
    public List<TrustDecision> list() {
        LogState.View v = state.view();
        return v.trust().list(v.status().yieldsTrust() && !closed, state.revokedInMemory);
    }

    /** Up to {@code limit} verified committed records with a sequence number above {@code after}. */
    public List<AuditRecord> records(long after, int limit) throws IOException {
        if (limit < 0 || after < 0) {
            throw new IllegalArgumentException("after and limit must not be negative");
        }
        return LogReader.records(files.resolve(AuditDirectory.LOG), state.view().head(), after, limit);
    }

    /** Appends an approval of {@code scope}. */
    public AppendResult approve(TrustScope scope) {
        Objects.requireNonNull(scope, "scope");
        return submit(() -> appender.append(new AuditEvent.Approved(scope)));
    }

    /** Appends a revocation of {@code scope}; applied in memory even when it cannot be made durable. */
    public AppendResult revoke(TrustScope scope) {
        Objects.requireNonNull(scope, "scope");
        return submit(() -> appender.revoke(scope));
    }

    /** Appends an informational event (consumption, policy change, settlement, resolution, plan). */
    public AppendResult record(AuditEvent event) {
        Objects.requireNonNull(event, "event");
        if (event instanceof AuditEvent.Approved
                || event instanceof AuditEvent.Revoked
                || event instanceof AuditEvent.Repaired) {
            throw new IllegalArgumentException("use approve, revoke or repair for this event");
        }
        return submit(() -> appender.append(event));
    }

    /** Starts a new log after corruption, keeping the old files as evidence; audited by its first record. */
    public AppendResult repair(String reason) {
        Scopes.checkText(
                Objects.requireNonNull(reason, "reason"), AuditEvent.Repaired.MAX_REASON_LENGTH, "a repair reason");
        return submit(() -> repair.repair(reason));
    }

    /** A signed checkpoint of the current commit point, when the log yields trust. */
    public Optional<Checkpoint> checkpoint(CheckpointKey key) {
        Objects.requireNonNull(key, "key");
        return closed ? Optional.empty() : checkpoints.legacy(key);
    }

    /** A C2SP checkpoint of the current commit point's tree signed by {@code signer}, when the log yields trust. */
    public Optional<SignedNote> noteCheckpoint(NoteSigner signer) {
        Objects.requireNonNull(signer, "signer");
        return closed ? Optional.empty() : checkpoints.note(signer);
    }

    /**
     * A verified snapshot of the Merkle tree at the current commit point, recomputed from the log;
     * empty unless the log yields trust and the recomputation matches the commit point.
     */
    public Optional<AuditTree> tree() throws IOException {
        return closed ? Optional.empty() : checkpoints.tree();
    }

    /** Checks that this log extends {@code checkpoint} (and, if given, that the trusted key signed it). */
    public CheckpointVerification verify(Checkpoint checkpoint, Optional<CheckpointPublicKey> trustedKey) {
        Objects.requireNonNull(checkpoint, "checkpoint");
        Objects.requireNonNull(trustedKey, "trustedKey");
        return submit(() -> checkpoints.verify(checkpoint, trustedKey));
    }

    /** Delivers what the sinks missed and, when all accept, lifts an export halt. */
    public AuditStatus resumeExport() {
        return submit(exporter::resume);
    }

    /** Releases the lock and the files. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        try {
            submit(() -> {
                state.closeLog();
                lock.release();
                state.show(state.view().closed());
                return null;
            });
        } catch (IllegalStateException e) {
            // already shut down
        }
        closed = true;
        worker.shutdown();
        exporter.shutdown();
    }

    // ------------------------------------------------------------------ test hooks

    Thread workerThread() {
        return workerThread;
    }

    boolean lockHeld() {
        return submit(lock::valid);
    }

    Path directory() {
        return files.dir();
    }

    // ------------------------------------------------------------------ open

    /**
     * Start-up, on the worker: a reader verifies without changing anything; a writer checks where the
     * log lives, prepares the directory, becomes the single writer (else it falls back to reading)
     * and runs the recovery rule.
     */
    private void initialize() {
        workerThread = Thread.currentThread();
        List<Diagnostic> notes = new ArrayList<>();
        try {
            Optional<Diagnostic> unsafe = files.placement();
            if (readOnlyRequested) {
                // A reader reports where the log lives; it changes nothing, so it does not refuse.
                unsafe.ifPresent(d -> notes.add(Diagnostic.warning(d.code(), d.location(), d.message())));
                readOnly.open(notes);
                return;
            }
            if (unsafe.isPresent()) {
                // Another user could replace the whole log (a valid, re-chained one included): nothing is
                // created, nothing is trusted, every append is refused (decision 0520).
                state.trust = new TrustTable();
                state.publishDisabled(
                        ErrorCode.DATA_DIRECTORY_UNSAFE,
                        unsafe.get().location(),
                        -1,
                        unsafe.get().message(),
                        null,
                        notes);
                return;
            }
            String fatal = files.prepare(notes, true);
            if (fatal != null) {
                state.publishDisabled(ErrorCode.AUDIT_CORRUPT, "", -1, fatal, null, notes);
                return;
            }
            if (!lock.register(files.key())) {
                notes.add(
                        0,
                        Diagnostic.warning(
                                ErrorCode.AUDIT_LOCKED,
                                "",
                                "the audit log is already open for writing in this JVM; this handle is read-only"));
                readOnly.open(notes);
                return;
            }
            Path lockPath = files.resolve(AuditDirectory.LOCK);
            if (Files.isSymbolicLink(lockPath)
                    || (Files.exists(lockPath, LinkOption.NOFOLLOW_LINKS)
                            && !Files.isRegularFile(lockPath, LinkOption.NOFOLLOW_LINKS))) {
                lock.unregister();
                state.publishDisabled(
                        ErrorCode.AUDIT_CORRUPT,
                        AuditDirectory.LOCK,
                        -1,
                        AuditDirectory.LOCK + " is a symbolic link or not a regular file; remove it by hand",
                        null,
                        notes);
                return;
            }
            if (!lock.acquire(files.dir())) {
                lock.unregister();
                notes.add(
                        0,
                        Diagnostic.warning(
                                ErrorCode.AUDIT_LOCKED,
                                "",
                                "another process holds the audit log; this handle is read-only"));
                readOnly.open(notes);
                return;
            }
            if (files.problem() != null) {
                state.publishDisabled(ErrorCode.AUDIT_PERMISSIONS, "", -1, files.problem(), null, notes);
                return;
            }
            Files.deleteIfExists(files.resolve(AuditDirectory.HEAD_TMP));
            recovery.recover(notes, false);
        } catch (IOException | RuntimeException e) {
            state.trust = new TrustTable();
            state.publishDisabled(
                    ErrorCode.AUDIT_IO,
                    "",
                    -1,
                    "the audit log could not be read (" + e.getClass().getSimpleName() + ")",
                    null,
                    notes);
        }
    }

    // ------------------------------------------------------------------ worker plumbing

    /** Runs {@code task} on the worker and waits for it, uninterruptibly (the flag is restored). */
    private <T> T submit(Supplier<T> task) {
        Future<T> f;
        try {
            f = worker.submit(() -> {
                // An interrupt on this thread would close a channel in the middle of a write.
                Thread.interrupted();
                return task.get();
            });
        } catch (RejectedExecutionException e) {
            throw new IllegalStateException("the audit log is closed", e);
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return f.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof RuntimeException re) {
                        throw re;
                    }
                    if (cause instanceof Error err) {
                        throw err;
                    }
                    throw new IllegalStateException(cause);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
