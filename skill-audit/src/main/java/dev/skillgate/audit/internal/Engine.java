package dev.skillgate.audit.internal;

import dev.skillgate.audit.AppendResult;
import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.audit.AuditSink;
import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.AuditStatus;
import dev.skillgate.audit.Checkpoint;
import dev.skillgate.audit.CheckpointKey;
import dev.skillgate.audit.CheckpointPublicKey;
import dev.skillgate.audit.CheckpointVerification;
import dev.skillgate.audit.ExportedRecord;
import dev.skillgate.audit.TrustDecision;
import dev.skillgate.audit.TrustScope;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.DirectoryPlacement;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.tlog.CompactTree;
import dev.skillgate.tlog.Rfc6962;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
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
 * The audit log's implementation behind {@link dev.skillgate.audit.AuditLog}. Not an API: the
 * package is not exported.
 *
 * <p>Every file operation runs on one private worker thread, in submission order: verification at
 * open, appends, repair, close. Callers wait for their task without being interruptible, so a
 * caller's interrupt can never close a channel mid-write (the interrupt flag is restored
 * afterwards). Readers ({@link #isTrusted}, {@link #status}, {@link #list}) read a published
 * snapshot and never block.
 *
 * <p>Locking: the writer holds an exclusive {@link FileLock} on {@code audit.lock} through one
 * channel for its whole life. Nothing else in this JVM ever opens {@code audit.lock} (closing any
 * channel to a file drops the process's POSIX lock on it), and {@code audit.log} itself is never
 * locked, so readers may open and close it freely. A static registry keeps a second writer in the
 * same JVM away from the lock file altogether.
 */
public final class Engine implements AutoCloseable {
    static final String LOG = "audit.log";
    static final String HEAD = "audit.head";
    static final String LOCK = "audit.lock";
    static final String HEAD_TMP = "audit.head.tmp";
    static final String REPAIR_TMP = "audit.log.repair";
    static final String TORN_PREFIX = "audit.log.torn-";
    static final String EVIDENCE_PREFIX = "audit.corrupt-";
    /** Quarantined tails kept; older ones are deleted. */
    static final int KEEP_QUARANTINED = 8;

    private static final Set<Object> WRITERS = ConcurrentHashMap.newKeySet();
    /** Lock channels that must never be closed (see {@link #acquireLock}). */
    private static final List<FileChannel> PINNED = new ArrayList<>();

    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'").withZone(ZoneOffset.UTC);
    private static final OpenOption[] READ_NOFOLLOW = {StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS};

    private final Path dir;
    private final Clock clock;
    private final boolean readOnlyRequested;
    private final FileOps ops;
    private final ExecutorService worker;
    private volatile Thread workerThread;
    private final Future<?> ready;
    private final Set<ScopeKey> revokedInMemory = ConcurrentHashMap.newKeySet();
    private final List<SinkSlot> sinks;
    private final long sinkTimeoutNanos;

    // Worker-confined state.
    private Object registryKey;
    private FileChannel lockChannel;
    private FileLock lock;
    private FileChannel log;
    private Head head;
    /** The Merkle tree over the committed frames; always in step with {@link #head} while writable. */
    private CompactTree tree = CompactTree.empty();

    private TrustTable trust = new TrustTable();
    private ErrorCode disabledCause = ErrorCode.AUDIT_CORRUPT;
    private long disabledFirstBad = -1;
    private String directoryProblem;
    private Instant lastRecordedAt;
    /** The view to return to when an export halt is lifted; null while exports are not halted. */
    private View beforeHalt;

    private volatile View view;
    private volatile boolean closed;

    /** The published state: immutable apart from the trust table, which only the worker mutates. */
    private record View(AuditStatus status, TrustTable trust, Head head, Diagnostic readOnlyReason) {}

    private Engine(Path dir, Clock clock, boolean readOnly, FileOps ops, List<AuditSink> sinks, Duration sinkTimeout) {
        this.dir = dir;
        List<SinkSlot> slots = new ArrayList<>();
        for (AuditSink sink : sinks) {
            slots.add(new SinkSlot(sink, SinkNames.checked(sink)));
        }
        this.sinks = List.copyOf(slots);
        this.sinkTimeoutNanos = sinkTimeout.toNanos();
        this.clock = clock;
        this.readOnlyRequested = readOnly;
        this.ops = ops;
        this.worker = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "skillgate-audit-" + THREADS.incrementAndGet());
            t.setDaemon(true);
            workerThread = t;
            return t;
        });
        this.view = new View(
                new AuditStatus(
                        AuditState.VERIFYING,
                        false,
                        0,
                        Optional.empty(),
                        OptionalLong.empty(),
                        List.of(Diagnostic.info(
                                ErrorCode.AUDIT_VERIFYING,
                                "",
                                "the audit log is being verified; nothing is trusted yet"))),
                new TrustTable(),
                null,
                Diagnostic.error(ErrorCode.AUDIT_VERIFYING, "", "the audit log is still being verified"));
        this.ready = worker.submit(() -> {
            initialize();
            // Nothing is replayed at open: each sink starts with the next record this handle commits.
            long committed = head == null ? 0 : head.sequence();
            this.sinks.forEach(slot -> slot.exportedThrough = committed);
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
        return view.status();
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
        return view.status();
    }

    /** Whether {@code scope} is trusted now: the log yields trust and its latest decision is an approval. */
    public boolean isTrusted(TrustScope scope) {
        Objects.requireNonNull(scope, "scope");
        View v = view;
        if (closed || !v.status().yieldsTrust()) {
            return false;
        }
        ScopeKey id = ScopeKey.of(scope.id());
        return v.trust().approved(id) && !revokedInMemory.contains(id);
    }

    /** The latest decision per scope. */
    public List<TrustDecision> list() {
        View v = view;
        return v.trust().list(v.status().yieldsTrust() && !closed, revokedInMemory);
    }

    /** Up to {@code limit} verified committed records with a sequence number above {@code after}. */
    public List<AuditRecord> records(long after, int limit) throws IOException {
        if (limit < 0 || after < 0) {
            throw new IllegalArgumentException("after and limit must not be negative");
        }
        Head h = view.head();
        List<AuditRecord> out = new ArrayList<>();
        if (h == null || limit == 0 || after >= h.sequence()) {
            return out;
        }
        try (FileChannel ch = FileChannel.open(dir.resolve(LOG), READ_NOFOLLOW)) {
            LogScanner.scan(Source.of(ch), h, (seq, end, type, decoded, hash, regression) -> {
                if (seq > after) {
                    out.add(new AuditRecord(
                            seq, decoded.recordedAt(), regression, decoded.event(), Sha256Digest.of(hash)));
                }
                return out.size() < limit;
            });
        }
        return out;
    }

    /** Appends an approval of {@code scope}. */
    public AppendResult approve(TrustScope scope) {
        Objects.requireNonNull(scope, "scope");
        return submit(() -> append(new AuditEvent.Approved(scope)));
    }

    /** Appends a revocation of {@code scope}; applied in memory even when it cannot be made durable. */
    public AppendResult revoke(TrustScope scope) {
        Objects.requireNonNull(scope, "scope");
        ScopeKey id = ScopeKey.of(scope.id());
        return submit(() -> {
            View v = view;
            if (!v.status().writable()) {
                revokedInMemory.add(id);
                return refusedByState(v);
            }
            TrustTable.Entry entry = v.trust().get(id);
            if (entry == null) {
                return new AppendResult.Refused(
                        Diagnostic.error(ErrorCode.TRUST_NOT_FOUND, "", "no decision is recorded for this scope"));
            }
            if (!entry.approved()) {
                return new AppendResult.Refused(Diagnostic.error(
                        ErrorCode.TRUST_REVOKED, "", "the scope was already revoked at seq " + entry.sequence()));
            }
            return append(new AuditEvent.Revoked(scope));
        });
    }

    /** Appends an informational event (consumption, policy change, settlement, resolution, plan). */
    public AppendResult record(AuditEvent event) {
        Objects.requireNonNull(event, "event");
        if (event instanceof AuditEvent.Approved
                || event instanceof AuditEvent.Revoked
                || event instanceof AuditEvent.Repaired) {
            throw new IllegalArgumentException("use approve, revoke or repair for this event");
        }
        return submit(() -> append(event));
    }

    /** Starts a new log after corruption, keeping the old files as evidence; audited by its first record. */
    public AppendResult repair(String reason) {
        Scopes.checkText(
                Objects.requireNonNull(reason, "reason"), AuditEvent.Repaired.MAX_REASON_LENGTH, "a repair reason");
        return submit(() -> doRepair(reason));
    }

    /** A signed checkpoint of the current commit point, when the log yields trust. */
    public Optional<Checkpoint> checkpoint(CheckpointKey key) {
        Objects.requireNonNull(key, "key");
        View v = view;
        if (!v.status().yieldsTrust() || v.head() == null || closed) {
            return Optional.empty();
        }
        Head h = v.head();
        return Optional.of(Checkpoint.sign(
                h.logIdHex(),
                h.sequence(),
                h.length(),
                Sha256Digest.of(h.tip()),
                clock.instant().truncatedTo(ChronoUnit.MILLIS),
                key));
    }

    /** A C2SP checkpoint of the current commit point's tree signed by {@code signer}, when the log yields trust. */
    public Optional<dev.skillgate.tlog.SignedNote> noteCheckpoint(dev.skillgate.tlog.NoteSigner signer) {
        Objects.requireNonNull(signer, "signer");
        View v = view;
        if (!v.status().yieldsTrust() || v.head() == null || !v.head().hasRoot() || closed) {
            return Optional.empty();
        }
        Head h = v.head();
        return Optional.of(dev.skillgate.tlog.TlogCheckpoint.of(
                        dev.skillgate.audit.AuditTree.origin(signer.name(), h.logIdHex()),
                        h.sequence(),
                        new dev.skillgate.tlog.MerkleHash(h.root()))
                .sign(List.of(signer)));
    }

    /**
     * A verified snapshot of the Merkle tree at the current commit point, recomputed from the log;
     * empty unless the log yields trust and the recomputation matches the commit point.
     */
    public Optional<dev.skillgate.audit.AuditTree> tree() throws IOException {
        View v = view;
        if (!v.status().yieldsTrust() || v.head() == null || closed) {
            return Optional.empty();
        }
        return TreeSnapshot.take(dir.resolve(LOG), v.head()).map(t -> t);
    }

    /** Checks that this log extends {@code checkpoint} (and, if given, that the trusted key signed it). */
    public CheckpointVerification verify(Checkpoint checkpoint, Optional<CheckpointPublicKey> trustedKey) {
        Objects.requireNonNull(checkpoint, "checkpoint");
        Objects.requireNonNull(trustedKey, "trustedKey");
        return submit(() -> doVerify(checkpoint, trustedKey));
    }

    /** Releases the lock and the files. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        try {
            submit(() -> {
                closeFiles();
                return null;
            });
        } catch (IllegalStateException e) {
            // already shut down
        }
        closed = true;
        worker.shutdown();
        sinks.forEach(slot -> slot.executor.shutdownNow());
    }

    /** Delivers what the sinks missed and, when all accept, lifts an export halt. */
    public AuditStatus resumeExport() {
        return submit(this::doResume);
    }

    // ------------------------------------------------------------------ test hooks

    Thread workerThread() {
        return workerThread;
    }

    boolean lockHeld() {
        return submit(this::lockValid);
    }

    Path directory() {
        return dir;
    }

    // ------------------------------------------------------------------ worker plumbing

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

    private void publish(AuditState state, boolean writable, List<Diagnostic> diagnostics, Diagnostic readOnlyReason) {
        long seq = head == null ? 0 : head.sequence();
        Optional<String> id = head == null ? Optional.empty() : Optional.of(head.logIdHex());
        view = new View(
                new AuditStatus(state, writable, seq, id, OptionalLong.empty(), diagnostics),
                trust,
                head,
                writable ? null : readOnlyReason);
    }

    private void publishDisabled(
            ErrorCode cause, String location, long firstBad, String reason, Head knownHead, List<Diagnostic> notes) {
        List<Diagnostic> d = new ArrayList<>();
        d.add(Diagnostic.error(
                cause, location, firstBad > 0 ? reason + " (first bad record: seq " + firstBad + ")" : reason));
        d.add(Diagnostic.error(
                ErrorCode.AUDIT_DISABLED, "", "nothing is trusted and appends are refused until an operator repair"));
        d.addAll(notes);
        disabledCause = cause;
        disabledFirstBad = firstBad;
        head = knownHead;
        Optional<String> id = knownHead == null ? Optional.empty() : Optional.of(knownHead.logIdHex());
        view = new View(
                new AuditStatus(
                        AuditState.DISABLED,
                        false,
                        verifiedSequence,
                        id,
                        firstBad > 0 ? OptionalLong.of(firstBad) : OptionalLong.empty(),
                        d),
                trust,
                knownHead,
                d.get(1));
    }

    private long verifiedSequence;

    // ------------------------------------------------------------------ open

    private void initialize() {
        workerThread = Thread.currentThread();
        List<Diagnostic> notes = new ArrayList<>();
        try {
            Optional<Diagnostic> unsafe = placement();
            if (readOnlyRequested) {
                // A reader reports where the log lives; it changes nothing, so it does not refuse.
                unsafe.ifPresent(d -> notes.add(Diagnostic.warning(d.code(), d.location(), d.message())));
                initReadOnly(notes);
                return;
            }
            if (unsafe.isPresent()) {
                // Another user could replace the whole log (a valid, re-chained one included): nothing is
                // created, nothing is trusted, every append is refused (decision 0520).
                trust = new TrustTable();
                publishDisabled(
                        ErrorCode.DATA_DIRECTORY_UNSAFE,
                        unsafe.get().location(),
                        -1,
                        unsafe.get().message(),
                        null,
                        notes);
                return;
            }
            String fatal = prepareDirectory(notes, true);
            if (fatal != null) {
                publishDisabled(ErrorCode.AUDIT_CORRUPT, "", -1, fatal, null, notes);
                return;
            }
            Object key = directoryKey();
            if (!WRITERS.add(key)) {
                notes.add(
                        0,
                        Diagnostic.warning(
                                ErrorCode.AUDIT_LOCKED,
                                "",
                                "the audit log is already open for writing in this JVM; this handle is read-only"));
                initReadOnly(notes);
                return;
            }
            registryKey = key;
            Path lockPath = dir.resolve(LOCK);
            if (Files.isSymbolicLink(lockPath)
                    || (Files.exists(lockPath, LinkOption.NOFOLLOW_LINKS)
                            && !Files.isRegularFile(lockPath, LinkOption.NOFOLLOW_LINKS))) {
                WRITERS.remove(key);
                registryKey = null;
                publishDisabled(
                        ErrorCode.AUDIT_CORRUPT,
                        LOCK,
                        -1,
                        LOCK + " is a symbolic link or not a regular file; remove it by hand",
                        null,
                        notes);
                return;
            }
            if (!acquireLock()) {
                WRITERS.remove(key);
                registryKey = null;
                notes.add(
                        0,
                        Diagnostic.warning(
                                ErrorCode.AUDIT_LOCKED,
                                "",
                                "another process holds the audit log; this handle is read-only"));
                initReadOnly(notes);
                return;
            }
            if (directoryProblem != null) {
                publishDisabled(ErrorCode.AUDIT_PERMISSIONS, "", -1, directoryProblem, null, notes);
                return;
            }
            Files.deleteIfExists(dir.resolve(HEAD_TMP));
            recover(notes, false);
        } catch (IOException | RuntimeException e) {
            trust = new TrustTable();
            publishDisabled(
                    ErrorCode.AUDIT_IO,
                    "",
                    -1,
                    "the audit log could not be read (" + e.getClass().getSimpleName() + ")",
                    null,
                    notes);
        }
    }

    /**
     * The StrictModes check of the directory that holds the audit directory (the data directory):
     * no other user or group may be able to change it or any directory on its path. The audit
     * directory itself is checked by {@link Permissions} ({@code AUDIT_PERMISSIONS}).
     */
    private Optional<Diagnostic> placement() {
        Path parent = dir.toAbsolutePath().normalize().getParent();
        return parent == null ? Optional.empty() : DirectoryPlacement.check(parent, "directory holding the audit log");
    }

    /** Returns a fatal reason, or null; records non-fatal findings in {@code notes}. */
    private String prepareDirectory(List<Diagnostic> notes, boolean create) throws IOException {
        if (Files.isSymbolicLink(dir)) {
            return "the audit directory is a symbolic link";
        }
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            if (!create) {
                return null;
            }
            Path parent = dir.getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            if (Permissions.posix(dir)) {
                Files.createDirectory(dir, Permissions.dirAttribute());
            } else {
                Files.createDirectory(dir);
            }
        }
        BasicFileAttributes a = Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!a.isDirectory()) {
            return "the audit directory is not a directory";
        }
        Permissions.Check c = Permissions.check(dir, true, !readOnlyRequested && create, "audit directory");
        if (c.fatal()) {
            directoryProblem =
                    "the audit directory is " + c.diagnostics().get(0).message();
        } else {
            notes.addAll(c.diagnostics());
        }
        return null;
    }

    private Object directoryKey() throws IOException {
        Object key = Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                .fileKey();
        return key != null ? key : dir.toRealPath(LinkOption.NOFOLLOW_LINKS).toString();
    }

    private boolean acquireLock() throws IOException {
        Path p = dir.resolve(LOCK);
        FileChannel ch = Permissions.posix(dir)
                ? FileChannel.open(
                        p,
                        Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                        Permissions.fileAttribute())
                : FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
        FileLock l;
        try {
            l = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            // Another channel of this JVM holds the lock (the same directory reached by another
            // name). Closing ours would release that holder's POSIX lock, so keep it open forever.
            synchronized (PINNED) {
                PINNED.add(ch);
            }
            return false;
        }
        if (l == null) {
            // No lock of this JVM is on the file (the registry guarantees it), so closing is safe.
            ch.close();
            return false;
        }
        lockChannel = ch;
        lock = l;
        return true;
    }

    private boolean lockValid() {
        return lock != null && lock.isValid() && lockChannel.isOpen();
    }

    /** A problem found while checking a file; null when the file is fine or absent. */
    private String checkFile(String name, boolean tighten, List<Diagnostic> notes, boolean[] permissionFault)
            throws IOException {
        Path p = dir.resolve(name);
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (a.isSymbolicLink()) {
            return name + " is a symbolic link";
        }
        if (!a.isRegularFile()) {
            return name + " is not a regular file";
        }
        Permissions.Check c = Permissions.check(p, false, tighten, name);
        if (c.fatal()) {
            permissionFault[0] = true;
            return name + " is " + c.diagnostics().get(0).message();
        }
        notes.addAll(c.diagnostics());
        return null;
    }

    /**
     * Writer recovery: verifies the committed prefix, then quarantines or re-commits the tail. Used at
     * open and after a write fault. Publishes the resulting view.
     */
    private void recover(List<Diagnostic> notes, boolean afterFault) throws IOException {
        closeLog();
        trust = new TrustTable();
        verifiedSequence = 0;
        head = null;
        Path logP = dir.resolve(LOG);
        Path headP = dir.resolve(HEAD);
        boolean[] permissionFault = {false};
        for (String name : List.of(LOG, HEAD)) {
            String bad = checkFile(name, true, notes, permissionFault);
            if (bad != null) {
                publishDisabled(
                        permissionFault[0] ? ErrorCode.AUDIT_PERMISSIONS : ErrorCode.AUDIT_CORRUPT,
                        name,
                        -1,
                        bad,
                        null,
                        notes);
                return;
            }
        }
        boolean logExists = Files.exists(logP, LinkOption.NOFOLLOW_LINKS);
        boolean headExists = Files.exists(headP, LinkOption.NOFOLLOW_LINKS);
        if (!headExists) {
            if (!logExists || Files.size(logP) <= Frames.HEADER_SIZE) {
                if (logExists) {
                    notes.add(Diagnostic.info(
                            ErrorCode.AUDIT_TAIL_QUARANTINED,
                            LOG,
                            "an initialisation interrupted by a crash was redone"));
                    Files.delete(logP);
                }
                try {
                    initialiseNewLog();
                } catch (IOException e) {
                    closeLog();
                    head = null;
                    List<Diagnostic> d = new ArrayList<>(notes);
                    Diagnostic io = Diagnostic.error(
                            ErrorCode.AUDIT_IO,
                            LOG,
                            "a new log could not be created (" + e.getClass().getSimpleName() + ")");
                    d.add(0, io);
                    publish(AuditState.DEGRADED, false, d, io);
                    return;
                }
                publish(afterFault ? AuditState.DEGRADED : AuditState.OK, true, notes, null);
                return;
            }
            publishDisabled(
                    ErrorCode.AUDIT_CORRUPT,
                    HEAD,
                    -1,
                    "the commit point is missing but the log holds records",
                    null,
                    notes);
            return;
        }
        if (!logExists) {
            publishDisabled(
                    ErrorCode.AUDIT_CORRUPT, LOG, -1, "the log is missing but its commit point exists", null, notes);
            return;
        }
        Head h;
        try {
            h = Head.parse(readBounded(headP, Head.MAX_SIZE + 1));
        } catch (Frames.FormatException e) {
            publishDisabled(
                    ErrorCode.AUDIT_CORRUPT,
                    HEAD,
                    -1,
                    "the commit point is unreadable: " + e.getMessage(),
                    null,
                    notes);
            return;
        }
        log = openLogForWriting(logP);
        LogScanner.Result r = LogScanner.scan(Source.of(log), h, null);
        trust = r.trust;
        verifiedSequence = r.verifiedSequence;
        lastRecordedAt = r.lastRecordedAt;
        if (r.problem != null) {
            publishDisabled(r.problem.code(), LOG, r.problem.firstBadSequence(), r.problem.reason(), h, notes);
            return;
        }
        tree = r.tree.copy();
        head = h.withRoot(tree.root().bytes());
        h = head;
        LogScanner.Tail tail = r.tail;
        try {
            switch (tail.kind()) {
                case NONE -> {
                    publish(afterFault || hasWarnings(notes) ? AuditState.DEGRADED : AuditState.OK, true, notes, null);
                    return;
                }
                case CORRUPT -> {
                    publishDisabled(ErrorCode.AUDIT_CORRUPT, LOG, h.sequence() + 1, tail.reason(), h, notes);
                    return;
                }
                case TORN -> {
                    String q = quarantine(h, tail.bytes());
                    notes.add(
                            0,
                            Diagnostic.warning(
                                    ErrorCode.AUDIT_TAIL_QUARANTINED, LOG, tail.reason() + "; moved to " + q));
                }
                case SINGLE -> {
                    Payloads.Decoded d = tail.decoded().orElseThrow();
                    long seq = h.sequence() + 1;
                    if (tail.type().orElseThrow() == RecordType.REVOKE) {
                        // Only ever reduce trust: an unconfirmed revocation is kept.
                        revokedInMemory.add(ScopeKey.of(
                                ((AuditEvent.Revoked) d.event()).scope().id()));
                        CompactTree nextTree = tree.copy();
                        nextTree.append(tail.leafHash().orElseThrow());
                        Head next = new Head(
                                h.logId(),
                                seq,
                                tail.chainHash(),
                                h.length() + tail.frameLength(),
                                nextTree.root().bytes());
                        writeHead(next);
                        head = next;
                        tree = nextTree;
                        LogScanner.apply(trust, seq, d);
                        verifiedSequence = seq;
                        lastRecordedAt = d.recordedAt();
                        notes.add(
                                0,
                                Diagnostic.warning(
                                        ErrorCode.AUDIT_TAIL_QUARANTINED,
                                        LOG,
                                        "an unconfirmed revocation (seq " + seq
                                                + ") beyond the commit point was kept and re-committed"));
                    } else {
                        String q = quarantine(h, tail.bytes());
                        notes.add(
                                0,
                                Diagnostic.warning(
                                        ErrorCode.AUDIT_TAIL_QUARANTINED,
                                        LOG,
                                        "an unconfirmed "
                                                + tail.type()
                                                        .orElseThrow()
                                                        .name()
                                                        .toLowerCase(java.util.Locale.ROOT) + " record (seq " + seq
                                                + ") beyond the commit point grants nothing; moved to " + q));
                    }
                }
            }
        } catch (java.nio.channels.ClosedByInterruptException e) {
            throw e; // recoverAfterFault retries
        } catch (IOException e) {
            Diagnostic io = Diagnostic.error(
                    ErrorCode.AUDIT_IO,
                    LOG,
                    "the unconfirmed tail could not be quarantined ("
                            + e.getClass().getSimpleName() + "); read-only until reopened");
            List<Diagnostic> d = new ArrayList<>();
            d.add(io);
            d.add(Diagnostic.warning(ErrorCode.AUDIT_TAIL_QUARANTINED, LOG, tail.reason()));
            d.addAll(notes);
            publish(AuditState.DEGRADED, false, d, io);
            return;
        }
        publish(AuditState.DEGRADED, true, notes, null);
    }

    private static boolean hasWarnings(List<Diagnostic> notes) {
        return notes.stream().anyMatch(d -> d.severity() != dev.skillgate.model.Severity.INFO);
    }

    private FileChannel openLogForWriting(Path logP) throws IOException {
        Object before = Files.readAttributes(logP, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                .fileKey();
        FileChannel ch =
                FileChannel.open(logP, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
        Object after = Files.readAttributes(logP, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                .fileKey();
        if (before != null && !before.equals(after)) {
            ch.close();
            throw new IOException("the log file was replaced while it was opened");
        }
        return ch;
    }

    private void initialiseNewLog() throws IOException {
        byte[] logId = new byte[Frames.LOG_ID_SIZE];
        RANDOM.nextBytes(logId);
        Path logP = dir.resolve(LOG);
        log = createFile(logP, true);
        ops.write(log, ByteBuffer.wrap(Frames.header(logId)), 0);
        ops.force(log, true);
        Head h = new Head(
                logId,
                0,
                Frames.genesis(logId),
                Frames.HEADER_SIZE,
                Rfc6962.emptyRoot().bytes());
        writeHead(h);
        head = h;
        tree = CompactTree.empty();
        trust = new TrustTable();
        verifiedSequence = 0;
    }

    private FileChannel createFile(Path p, boolean readable) throws IOException {
        Set<OpenOption> options = readable
                ? Set.of(
                        StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.READ,
                        StandardOpenOption.WRITE,
                        LinkOption.NOFOLLOW_LINKS)
                : Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
        return Permissions.posix(p)
                ? FileChannel.open(p, options, Permissions.fileAttribute())
                : FileChannel.open(p, options);
    }

    private void writeHead(Head h) throws IOException {
        Path tmp = dir.resolve(HEAD_TMP);
        Files.deleteIfExists(tmp);
        try (FileChannel ch = createFile(tmp, false)) {
            ops.write(ch, ByteBuffer.wrap(h.encode()), 0);
            ops.force(ch, true);
        }
        ops.move(tmp, dir.resolve(HEAD));
        ops.syncDirectory(dir);
    }

    /** Copies the tail to a new {@code 0600} file, truncates the log to the commit point, syncs. */
    private String quarantine(Head h, long bytes) throws IOException {
        String name = TORN_PREFIX + STAMP.format(clock.instant()) + "-" + (h.sequence() + 1) + "-" + randomHex(4);
        ByteBuffer tail = ByteBuffer.allocate((int) bytes);
        while (tail.hasRemaining()) {
            if (log.read(tail, h.length() + tail.position()) < 0) {
                break;
            }
        }
        tail.flip();
        try (FileChannel out = createFile(dir.resolve(name), false)) {
            ops.write(out, tail, 0);
            ops.force(out, true);
        }
        log.truncate(h.length());
        ops.force(log, true);
        ops.syncDirectory(dir);
        pruneQuarantine();
        return name;
    }

    private void pruneQuarantine() {
        List<Path> torn = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, TORN_PREFIX + "*")) {
            s.forEach(torn::add);
        } catch (IOException e) {
            return;
        }
        torn.sort(null);
        for (int i = 0; i < torn.size() - KEEP_QUARANTINED; i++) {
            try {
                Files.deleteIfExists(torn.get(i));
            } catch (IOException e) {
                return;
            }
        }
    }

    private static String randomHex(int bytes) {
        byte[] b = new byte[bytes];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    private static byte[] readBounded(Path p, int max) throws IOException {
        try (InputStream in = Files.newInputStream(p, READ_NOFOLLOW)) {
            return in.readNBytes(max);
        }
    }

    // ------------------------------------------------------------------ read-only open

    /**
     * Whether {@code p} exists (a link counts, as itself). Only "no such file" means absent: a path
     * that cannot be looked up (permission denied, a parent that is not a directory) throws, so a
     * log that is merely unreachable is never reported as no log at all.
     */
    private static boolean present(Path p) throws IOException {
        try {
            Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return true;
        } catch (NoSuchFileException e) {
            // Newer JDKs report ENOTDIR as "no such file" too: absent only when the nearest existing
            // ancestor is a directory (a loop over the path's ancestors, bounded by its depth).
            for (Path ancestor = p.toAbsolutePath().getParent(); ancestor != null; ancestor = ancestor.getParent()) {
                if (Files.exists(ancestor)) {
                    if (!Files.isDirectory(ancestor)) {
                        throw new NotDirectoryException(ancestor.toString());
                    }
                    return false;
                }
            }
            return false;
        }
    }

    private void initReadOnly(List<Diagnostic> notes) throws IOException {
        if (!present(dir)) {
            notes.add(Diagnostic.info(ErrorCode.AUDIT_VERIFYING, "", "no audit log exists yet; nothing is trusted"));
            publish(AuditState.OK, false, notes, readOnlyReason(notes));
            return;
        }
        String fatal = readOnlyRequested ? prepareDirectory(notes, false) : null;
        if (fatal != null || directoryProblem != null) {
            publishDisabled(
                    fatal != null ? ErrorCode.AUDIT_CORRUPT : ErrorCode.AUDIT_PERMISSIONS,
                    "",
                    -1,
                    fatal != null ? fatal : directoryProblem,
                    null,
                    notes);
            return;
        }
        Path logP = dir.resolve(LOG);
        Path headP = dir.resolve(HEAD);
        for (int attempt = 0; attempt < 3; attempt++) {
            List<Diagnostic> n = new ArrayList<>(notes);
            trust = new TrustTable();
            verifiedSequence = 0;
            head = null;
            boolean[] permissionFault = {false};
            String bad = null;
            String badName = "";
            for (String name : List.of(LOG, HEAD)) {
                bad = checkFile(name, false, n, permissionFault);
                if (bad != null) {
                    badName = name;
                    break;
                }
            }
            if (bad != null) {
                publishDisabled(
                        permissionFault[0] ? ErrorCode.AUDIT_PERMISSIONS : ErrorCode.AUDIT_CORRUPT,
                        badName,
                        -1,
                        bad,
                        null,
                        n);
                return;
            }
            boolean logExists = present(logP);
            if (!present(headP)) {
                if (!logExists || Files.size(logP) <= Frames.HEADER_SIZE) {
                    n.add(Diagnostic.info(
                            ErrorCode.AUDIT_VERIFYING, "", "no audit log exists yet; nothing is trusted"));
                    publish(AuditState.OK, false, n, readOnlyReason(n));
                    return;
                }
                publishDisabled(
                        ErrorCode.AUDIT_CORRUPT,
                        HEAD,
                        -1,
                        "the commit point is missing but the log holds records",
                        null,
                        n);
                return;
            }
            if (!logExists) {
                publishDisabled(
                        ErrorCode.AUDIT_CORRUPT, LOG, -1, "the log is missing but its commit point exists", null, n);
                return;
            }
            byte[] headBytes = readBounded(headP, Head.MAX_SIZE + 1);
            Head h;
            try {
                h = Head.parse(headBytes);
            } catch (Frames.FormatException e) {
                publishDisabled(
                        ErrorCode.AUDIT_CORRUPT,
                        HEAD,
                        -1,
                        "the commit point is unreadable: " + e.getMessage(),
                        null,
                        n);
                return;
            }
            LogScanner.Result r;
            try (FileChannel ch = FileChannel.open(logP, READ_NOFOLLOW)) {
                r = LogScanner.scan(Source.of(ch), h, null);
            }
            boolean headMoved = !java.util.Arrays.equals(headBytes, readBounded(headP, Head.MAX_SIZE + 1));
            if ((r.problem != null || r.tail.kind() == LogScanner.TailKind.CORRUPT) && headMoved) {
                continue; // a writer committed meanwhile; look again
            }
            trust = r.trust;
            verifiedSequence = r.verifiedSequence;
            if (r.problem != null) {
                publishDisabled(r.problem.code(), LOG, r.problem.firstBadSequence(), r.problem.reason(), h, n);
                return;
            }
            head = h.withRoot(r.tree.root().bytes());
            switch (r.tail.kind()) {
                case NONE -> {}
                case CORRUPT -> {
                    publishDisabled(ErrorCode.AUDIT_CORRUPT, LOG, h.sequence() + 1, r.tail.reason(), h, n);
                    return;
                }
                case SINGLE -> {
                    Payloads.Decoded d = r.tail.decoded().orElseThrow();
                    if (d.event() instanceof AuditEvent.Revoked v) {
                        revokedInMemory.add(ScopeKey.of(v.scope().id()));
                        n.add(Diagnostic.info(
                                ErrorCode.AUDIT_TAIL_QUARANTINED,
                                LOG,
                                "an unconfirmed revocation beyond the commit point is honoured in memory"));
                    } else {
                        n.add(Diagnostic.info(
                                ErrorCode.AUDIT_TAIL_QUARANTINED,
                                LOG,
                                r.tail.reason() + "; it grants nothing (a writer may be committing it now)"));
                    }
                }
                case TORN ->
                    n.add(Diagnostic.info(
                            ErrorCode.AUDIT_TAIL_QUARANTINED,
                            LOG,
                            r.tail.reason() + "; ignored (a writer may be appending now)"));
            }
            publish(AuditState.OK, false, n, readOnlyReason(n));
            return;
        }
        publishDisabled(ErrorCode.AUDIT_CORRUPT, LOG, -1, "the log kept changing while it was read", null, notes);
    }

    private static Diagnostic readOnlyReason(List<Diagnostic> notes) {
        for (Diagnostic d : notes) {
            if (d.code() == ErrorCode.AUDIT_LOCKED) {
                return d;
            }
        }
        return Diagnostic.error(ErrorCode.AUDIT_LOCKED, "", "this handle was opened read-only");
    }

    // ------------------------------------------------------------------ append

    private AppendResult refusedByState(View v) {
        if (v.status().state() == AuditState.DISABLED) {
            return new AppendResult.Refused(Diagnostic.error(
                    ErrorCode.AUDIT_DISABLED,
                    "",
                    "the audit log is disabled; appends are refused until an operator repair"));
        }
        Diagnostic reason = v.readOnlyReason() != null
                ? v.readOnlyReason()
                : Diagnostic.error(ErrorCode.AUDIT_LOCKED, "", "this handle cannot write");
        return new AppendResult.Refused(reason);
    }

    private AppendResult append(AuditEvent event) {
        View v = view;
        if (!v.status().writable()) {
            return refusedByState(v);
        }
        if (!lockValid()) {
            Diagnostic lost = Diagnostic.error(
                    ErrorCode.AUDIT_LOCKED, LOCK, "the lock on the audit log was lost; read-only until reopened");
            List<Diagnostic> d = new ArrayList<>(v.status().diagnostics());
            d.add(0, lost);
            publish(AuditState.DEGRADED, false, d, lost);
            return new AppendResult.Refused(lost);
        }
        if (log == null || !log.isOpen()) {
            // The channel was closed under us (e.g. an interrupt reached this thread): re-verify first.
            recoverAfterFault(Diagnostic.warning(
                    ErrorCode.AUDIT_IO, LOG, "the log channel was closed unexpectedly; the log was re-verified"));
            if (!view.status().writable()) {
                return refusedByState(view);
            }
        }
        Instant at = clock.instant().truncatedTo(ChronoUnit.MILLIS);
        byte[] payload;
        try {
            payload = Payloads.encode(event, at);
        } catch (InvalidValueException e) {
            return new AppendResult.Refused(Diagnostic.error(
                    ErrorCode.AUDIT_RECORD_INVALID,
                    "",
                    e.getMessage().substring(e.code().name().length() + 2)));
        }
        RecordType type = Payloads.typeOf(event);
        long seq = head.sequence() + 1;
        byte[] previousTip = head.tip();
        byte[] frame = Frames.frame(seq, type, payload, previousTip);
        byte[] hash = Frames.storedHash(frame);
        CompactTree nextTree = tree.copy();
        nextTree.appendData(frame, 0, frame.length);
        Head next = new Head(
                head.logId(),
                seq,
                hash,
                head.length() + frame.length,
                nextTree.root().bytes());
        try {
            ops.write(log, ByteBuffer.wrap(frame), head.length());
            ops.force(log, false);
            writeHead(next);
        } catch (IOException e) {
            if (event instanceof AuditEvent.Revoked r) {
                revokedInMemory.add(ScopeKey.of(r.scope().id()));
            }
            Diagnostic failure = Diagnostic.error(
                    ErrorCode.AUDIT_IO,
                    LOG,
                    "an append of seq " + seq + " failed (" + e.getClass().getSimpleName()
                            + "); it is not acknowledged");
            recoverAfterFault(failure);
            if (view.status().writable()) {
                // The recovery may have re-committed the failed frame (a trailing revocation).
                exportCommitted(null);
            }
            return new AppendResult.Failed(failure);
        }
        head = next;
        tree = nextTree;
        verifiedSequence = seq;
        boolean regression = lastRecordedAt != null && at.isBefore(lastRecordedAt);
        lastRecordedAt = at;
        LogScanner.apply(trust, seq, Payloads.Decoded.of(at, event));
        publish(v.status().state(), true, v.status().diagnostics(), null);
        exportCommitted(new ExportedRecord(
                next.logIdHex(),
                Sha256Digest.of(previousTip),
                new AuditRecord(seq, at, regression, event, Sha256Digest.of(hash))));
        return new AppendResult.Committed(seq, Sha256Digest.of(hash));
    }

    private void recoverAfterFault(Diagnostic cause) {
        View before = view;
        for (int attempt = 0; ; attempt++) {
            List<Diagnostic> notes = new ArrayList<>();
            notes.add(cause);
            // A stray interrupt closes channels mid-read; clear it and try again a few times.
            Thread.interrupted();
            try {
                recover(notes, true);
                return;
            } catch (java.nio.channels.ClosedByInterruptException e) {
                if (attempt < 3) {
                    continue;
                }
                failRecovery(before, cause, e);
                return;
            } catch (IOException | RuntimeException e) {
                failRecovery(before, cause, e);
                return;
            }
        }
    }

    private void failRecovery(View before, Diagnostic cause, Exception e) {
        closeLog();
        List<Diagnostic> d = new ArrayList<>();
        Diagnostic io = Diagnostic.error(
                ErrorCode.AUDIT_IO,
                LOG,
                "the log could not be re-verified after a fault ("
                        + e.getClass().getSimpleName() + "); read-only until reopened");
        d.add(io);
        d.add(cause);
        trust = before.trust();
        head = before.head();
        publish(
                before.status().state() == AuditState.DISABLED ? AuditState.DISABLED : AuditState.DEGRADED,
                false,
                d,
                io);
    }

    // ------------------------------------------------------------------ export (decision 0370)

    /** One configured sink: its own thread, and the last sequence number it acknowledged. */
    private static final class SinkSlot {
        private static final AtomicInteger SINK_THREADS = new AtomicInteger();
        final AuditSink sink;
        final String name;
        /** Replaced after a timeout, so a hung call never blocks the next export. */
        volatile ExecutorService executor;
        /** Worker-confined. */
        long exportedThrough;

        SinkSlot(AuditSink sink, String name) {
            this.sink = sink;
            this.name = name;
            this.executor = newExecutor();
        }

        private ExecutorService newExecutor() {
            return Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "skillgate-audit-sink-" + name + "-" + SINK_THREADS.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }

        void abandonThread() {
            ExecutorService old = executor;
            executor = newExecutor();
            old.shutdownNow();
        }
    }

    /**
     * Hands every committed record a sink has not acknowledged to it, in order, each call bounded by
     * the sink timeout. The just-committed record is handed over from memory; anything older (after a
     * fault recovery or a halt) is read back from the verified log. Any failure halts the handle.
     *
     * @param justCommitted the record this task committed, or null
     */
    private void exportCommitted(ExportedRecord justCommitted) {
        if (beforeHalt == null) {
            exportPending(justCommitted);
        }
    }

    /** Returns whether every sink acknowledged everything committed; halts when not. */
    private boolean exportPending(ExportedRecord justCommitted) {
        if (sinks.isEmpty() || head == null) {
            return true;
        }
        long through = head.sequence();
        List<String> failures = new ArrayList<>();
        List<ExportedRecord> backlog = null;
        for (SinkSlot slot : sinks) {
            if (slot.exportedThrough >= through) {
                continue;
            }
            List<ExportedRecord> todo;
            if (justCommitted != null && justCommitted.sequence() == through && slot.exportedThrough == through - 1) {
                todo = List.of(justCommitted);
            } else {
                if (backlog == null) {
                    long from = through;
                    for (SinkSlot s : sinks) {
                        from = Math.min(from, s.exportedThrough);
                    }
                    backlog = readBacklog(from);
                }
                todo = new ArrayList<>();
                for (ExportedRecord r : backlog) {
                    if (r.sequence() > slot.exportedThrough) {
                        todo.add(r);
                    }
                }
                if (todo.isEmpty() || todo.get(todo.size() - 1).sequence() != through) {
                    failures.add("the committed records after seq " + slot.exportedThrough
                            + " could not be read back for export to sink '" + slot.name + "'");
                    continue;
                }
            }
            for (ExportedRecord r : todo) {
                String failure = deliver(slot, r);
                if (failure != null) {
                    failures.add("the export of seq " + r.sequence() + " to sink '" + slot.name + "' " + failure
                            + "; the record is committed locally and is delivered again by resumeExport");
                    break;
                }
                slot.exportedThrough = r.sequence();
            }
        }
        if (!failures.isEmpty()) {
            halt(failures);
            return false;
        }
        return true;
    }

    /** The verified committed records after {@code after}, with their previous chain hashes. */
    private List<ExportedRecord> readBacklog(long after) {
        Head h = head;
        List<ExportedRecord> out = new ArrayList<>();
        byte[][] previous = {Frames.genesis(h.logId())};
        try (FileChannel ch = FileChannel.open(dir.resolve(LOG), READ_NOFOLLOW)) {
            LogScanner.scan(Source.of(ch), h, (seq, end, type, decoded, hash, regression) -> {
                if (seq > after) {
                    out.add(new ExportedRecord(
                            h.logIdHex(),
                            Sha256Digest.of(previous[0]),
                            new AuditRecord(
                                    seq, decoded.recordedAt(), regression, decoded.event(), Sha256Digest.of(hash))));
                }
                previous[0] = hash;
                return true;
            });
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
        return out;
    }

    /** Calls the sink on its own thread, bounded; null when it accepted, else why not (input-free). */
    private String deliver(SinkSlot slot, ExportedRecord record) {
        Future<Void> f;
        try {
            f = slot.executor.submit(() -> {
                slot.sink.export(record);
                return null;
            });
        } catch (RejectedExecutionException e) {
            return "could not be started";
        }
        try {
            f.get(sinkTimeoutNanos, TimeUnit.NANOSECONDS);
            return null;
        } catch (TimeoutException e) {
            f.cancel(true);
            slot.abandonThread();
            return "did not return within " + TimeUnit.NANOSECONDS.toMillis(sinkTimeoutNanos) + " ms";
        } catch (ExecutionException e) {
            return "failed (" + e.getCause().getClass().getSimpleName() + ")";
        } catch (CancellationException e) {
            return "was cancelled";
        } catch (InterruptedException e) {
            // Only a stray interrupt reaches this thread; the worker clears it before each task.
            f.cancel(true);
            slot.abandonThread();
            return "was interrupted";
        }
    }

    /** Publishes {@link AuditState#EXPORT_HALTED}: nothing trusted, appends refused. */
    private void halt(List<String> failures) {
        if (beforeHalt == null) {
            beforeHalt = view;
        }
        View before = beforeHalt;
        List<Diagnostic> d = new ArrayList<>();
        for (String f : failures) {
            d.add(Diagnostic.error(ErrorCode.AUDIT_SINK_FAILED, "", f));
        }
        d.add(Diagnostic.error(
                ErrorCode.AUDIT_SINK_FAILED,
                "",
                "nothing is trusted and appends are refused until the export resumes (an operator's resumeExport)"));
        d.addAll(before.status().diagnostics());
        view = new View(
                new AuditStatus(
                        AuditState.EXPORT_HALTED,
                        false,
                        before.status().committedSequence(),
                        before.status().logId(),
                        OptionalLong.empty(),
                        d),
                before.trust(),
                before.head(),
                d.get(0));
    }

    private AuditStatus doResume() {
        if (beforeHalt == null) {
            return view.status();
        }
        View restore = beforeHalt;
        if (!exportPending(null)) {
            return view.status();
        }
        beforeHalt = null;
        view = restore;
        return view.status();
    }

    // ------------------------------------------------------------------ repair

    private AppendResult doRepair(String reason) {
        View v = view;
        if (v.status().state() != AuditState.DISABLED) {
            return new AppendResult.Refused(Diagnostic.error(
                    ErrorCode.AUDIT_REPAIR_NOT_NEEDED,
                    "",
                    "the audit log is " + v.status().state() + "; nothing to repair"));
        }
        if (!lockValid()) {
            return new AppendResult.Refused(
                    Diagnostic.error(
                            ErrorCode.AUDIT_DISABLED,
                            "",
                            "a repair needs this handle to hold the lock on a usable audit directory (fix the directory by hand, then reopen)"));
        }
        Path logP = dir.resolve(LOG);
        Path headP = dir.resolve(HEAD);
        try {
            if (directoryProblem != null) {
                Files.setPosixFilePermissions(dir, Permissions.DIR_MODE);
                directoryProblem = null;
            }
            String evidenceName = EVIDENCE_PREFIX + STAMP.format(clock.instant()) + "-" + randomHex(4);
            Optional<Sha256Digest> headDigest = digestIfRegular(headP);
            Optional<Sha256Digest> logDigest = digestIfRegular(logP);
            Optional<String> oldId = oldLogId(headP, logP);
            closeLog();
            byte[] newId = new byte[Frames.LOG_ID_SIZE];
            RANDOM.nextBytes(newId);
            AuditEvent.Repaired event = new AuditEvent.Repaired(
                    reason,
                    disabledCause,
                    disabledFirstBad > 0 ? OptionalLong.of(disabledFirstBad) : OptionalLong.empty(),
                    oldId,
                    logDigest,
                    headDigest,
                    evidenceName);
            Instant at = clock.instant().truncatedTo(ChronoUnit.MILLIS);
            byte[] frame = Frames.frame(1, RecordType.REPAIR, Payloads.encode(event, at), Frames.genesis(newId));
            Path tmpLog = dir.resolve(REPAIR_TMP);
            Files.deleteIfExists(tmpLog);
            try (FileChannel ch = createFile(tmpLog, false)) {
                ops.write(ch, ByteBuffer.wrap(Frames.header(newId)), 0);
                ops.write(ch, ByteBuffer.wrap(frame), Frames.HEADER_SIZE);
                ops.force(ch, true);
            }
            Path evidence = dir.resolve(evidenceName);
            if (Permissions.posix(dir)) {
                Files.createDirectory(evidence, Permissions.dirAttribute());
            } else {
                Files.createDirectory(evidence);
            }
            // The head goes first: a crash from here on leaves a log without a commit point, which
            // stays disabled, never an empty log that would hide the repair.
            if (Files.exists(headP, LinkOption.NOFOLLOW_LINKS)) {
                ops.move(headP, evidence.resolve(HEAD));
            }
            if (Files.exists(logP, LinkOption.NOFOLLOW_LINKS)) {
                ops.move(logP, evidence.resolve(LOG));
            }
            ops.syncDirectory(evidence);
            ops.move(tmpLog, logP);
            CompactTree newTree = CompactTree.empty();
            newTree.appendData(frame, 0, frame.length);
            Head h = new Head(
                    newId,
                    1,
                    Frames.storedHash(frame),
                    Frames.HEADER_SIZE + frame.length,
                    newTree.root().bytes());
            writeHead(h);
            tree = newTree;
            log = openLogForWriting(logP);
            head = h;
            trust = new TrustTable();
            verifiedSequence = 1;
            disabledFirstBad = -1;
            lastRecordedAt = at;
            publish(
                    AuditState.OK,
                    true,
                    List.of(Diagnostic.info(
                            ErrorCode.AUDIT_DISABLED,
                            "",
                            "repaired: a new log was started; the old files are kept in " + evidenceName)),
                    null);
            // A new log: every sink starts again at its first record.
            sinks.forEach(slot -> slot.exportedThrough = 0);
            exportCommitted(new ExportedRecord(
                    h.logIdHex(),
                    Sha256Digest.of(Frames.genesis(newId)),
                    new AuditRecord(1, at, false, event, Sha256Digest.of(Frames.storedHash(frame)))));
            return new AppendResult.Committed(1, Sha256Digest.of(Frames.storedHash(frame)));
        } catch (IOException | RuntimeException e) {
            Diagnostic io = Diagnostic.error(
                    ErrorCode.AUDIT_IO,
                    "",
                    "the repair failed (" + e.getClass().getSimpleName() + "); the log stays disabled");
            List<Diagnostic> d = new ArrayList<>(v.status().diagnostics());
            d.add(0, io);
            view = new View(
                    new AuditStatus(
                            AuditState.DISABLED,
                            false,
                            v.status().committedSequence(),
                            v.status().logId(),
                            v.status().firstBadSequence(),
                            d),
                    v.trust(),
                    v.head(),
                    v.readOnlyReason());
            return new AppendResult.Failed(io);
        }
    }

    private static Optional<Sha256Digest> digestIfRegular(Path p) throws IOException {
        if (!Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        MessageDigest md = Sha256Digest.newMessageDigest();
        try (InputStream in = Files.newInputStream(p, READ_NOFOLLOW)) {
            byte[] buf = new byte[1 << 16];
            int n;
            while ((n = in.read(buf)) > 0) {
                md.update(buf, 0, n);
            }
        }
        return Optional.of(Sha256Digest.of(md.digest()));
    }

    private static Optional<String> oldLogId(Path headP, Path logP) {
        try {
            if (Files.isRegularFile(headP, LinkOption.NOFOLLOW_LINKS)) {
                return Optional.of(
                        Head.parse(readBounded(headP, Head.MAX_SIZE + 1)).logIdHex());
            }
        } catch (IOException | Frames.FormatException e) {
            // fall through to the log header
        }
        try {
            if (Files.isRegularFile(logP, LinkOption.NOFOLLOW_LINKS)) {
                return Optional.of(HexFormat.of().formatHex(Frames.parseHeader(readBounded(logP, Frames.HEADER_SIZE))));
            }
        } catch (IOException | Frames.FormatException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    // ------------------------------------------------------------------ checkpoints

    private CheckpointVerification doVerify(Checkpoint cp, Optional<CheckpointPublicKey> trustedKey) {
        List<Diagnostic> d = new ArrayList<>();
        if (!cp.signatureValid()) {
            d.add(Diagnostic.error(
                    ErrorCode.AUDIT_CHECKPOINT_SIGNATURE, "", "the checkpoint's signature does not verify"));
        }
        if (trustedKey.isPresent() && !trustedKey.get().equals(cp.key())) {
            d.add(Diagnostic.error(
                    ErrorCode.AUDIT_CHECKPOINT_SIGNATURE,
                    "",
                    "the checkpoint is signed by key " + cp.key().keyId() + ", not by the trusted key "
                            + trustedKey.get().keyId()));
        }
        View v = view;
        Head h = v.head();
        if (h == null) {
            d.add(Diagnostic.error(
                    ErrorCode.AUDIT_CHECKPOINT_MISMATCH, "", "the log has no readable commit point to compare"));
        } else if (!h.logIdHex().equals(cp.logId())) {
            d.add(Diagnostic.error(
                    ErrorCode.AUDIT_CHECKPOINT_MISMATCH,
                    "",
                    "the checkpoint is for log " + cp.logId() + " but this is log " + h.logIdHex()
                            + " (replaced, or repaired since)"));
        } else if (h.sequence() < cp.size() || h.length() < cp.length()) {
            d.add(Diagnostic.error(
                    ErrorCode.AUDIT_CHECKPOINT_MISMATCH,
                    "",
                    "the log holds " + h.sequence() + " committed records but the checkpoint names " + cp.size()
                            + ": truncated or rolled back"));
        } else {
            byte[][] tipAt = new byte[1][];
            long[] endAt = {-1};
            boolean complete = true;
            if (cp.size() == h.sequence()) {
                tipAt[0] = h.tip();
                endAt[0] = h.length();
            } else if (cp.size() == 0) {
                tipAt[0] = Frames.genesis(h.logId());
                endAt[0] = Frames.HEADER_SIZE;
            } else {
                try (FileChannel ch = FileChannel.open(dir.resolve(LOG), READ_NOFOLLOW)) {
                    LogScanner.scan(Source.of(ch), h, (seq, end, type, decoded, hash, regression) -> {
                        if (seq == cp.size()) {
                            tipAt[0] = hash;
                            endAt[0] = end;
                            return false;
                        }
                        return true;
                    });
                } catch (IOException e) {
                    complete = false;
                }
            }
            if (!complete || tipAt[0] == null) {
                d.add(Diagnostic.error(
                        ErrorCode.AUDIT_CHECKPOINT_MISMATCH,
                        "",
                        "record " + cp.size()
                                + " of the log could not be verified, so the checkpoint cannot be confirmed"));
            } else if (!cp.tip().matches(tipAt[0]) || endAt[0] != cp.length()) {
                d.add(Diagnostic.error(
                        ErrorCode.AUDIT_CHECKPOINT_MISMATCH,
                        "",
                        "the log's history up to record " + cp.size() + " differs from the checkpoint: rewritten"));
            }
        }
        if (v.status().state() == AuditState.DISABLED) {
            d.add(Diagnostic.error(ErrorCode.AUDIT_DISABLED, "", "the log itself is disabled"));
        } else if (v.status().state() == AuditState.VERIFYING) {
            d.add(Diagnostic.error(ErrorCode.AUDIT_VERIFYING, "", "the log is still being verified"));
        }
        return new CheckpointVerification(
                d.stream().noneMatch(Diagnostic::isError), cp.key().keyId(), d);
    }

    // ------------------------------------------------------------------ close

    private void closeLog() {
        if (log != null) {
            try {
                log.close();
            } catch (IOException e) {
                // nothing more to do; the channel is gone either way
            }
            log = null;
        }
    }

    private void closeFiles() {
        closeLog();
        if (lock != null) {
            try {
                lock.release();
            } catch (IOException e) {
                // closing the channel below releases it too
            }
            lock = null;
        }
        if (lockChannel != null) {
            try {
                lockChannel.close();
            } catch (IOException e) {
                // the process exit releases it at the latest
            }
            lockChannel = null;
        }
        if (registryKey != null) {
            WRITERS.remove(registryKey);
            registryKey = null;
        }
        View v = view;
        publishClosed(v);
    }

    private void publishClosed(View v) {
        view = new View(
                new AuditStatus(
                        v.status().state(),
                        false,
                        v.status().committedSequence(),
                        v.status().logId(),
                        v.status().firstBadSequence(),
                        v.status().diagnostics()),
                v.trust(),
                v.head(),
                Diagnostic.error(ErrorCode.AUDIT_LOCKED, "", "the audit log is closed"));
    }
}
