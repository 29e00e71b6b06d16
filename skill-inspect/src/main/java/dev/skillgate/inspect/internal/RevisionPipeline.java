package dev.skillgate.inspect.internal;

import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Hashes a capture's revision while the capture is still reading and verifying (decision 0300).
 *
 * <p>The revision's framing needs the files in byte-wise path order, so the pipeline is created with
 * every path the revision will cover, sorted, and one slot per path. The capturing thread {@link
 * #feed feeds} each file's bytes into its slot as soon as they are read, in any order. Once enough
 * bytes were fed, one task on the shared {@link CaptureHashExecutor} consumes the slots strictly in
 * path order through a {@link Revision.Builder}, waiting for a slot that is not filled yet. {@link
 * #join} returns the revision; if no worker took the task (a single processor, a busy executor, a
 * small bundle), the capturing thread hashes the slots itself there. The revision is byte for byte
 * {@code Revision.compute} over the same files.
 *
 * <p>Ownership: the capturing thread owns the pipeline and must {@link #close} it in a {@code
 * finally}. {@code close()} after a successful {@code join} only drops the references; otherwise it
 * cancels the hash, waits until a running worker has stopped (at most the rest of one file's
 * hashing), and then drops every reference to the buffers. So when {@code close()} returns, no
 * thread reads the buffers any more and nothing the pipeline or its task holds points to them: the
 * caller can clear them. The content arrays are only read, never modified.
 *
 * <p>A worker that has hashed to the end runs the {@link #afterHash} task, if one was given by then,
 * before it counts as finished (decision 0820: it helps with the capture's verification pass); so
 * {@link #join} and {@code close()} also wait for that task.
 *
 * <p>Not thread-safe except between the capturing thread and its one worker.
 */
public final class RevisionPipeline implements AutoCloseable {
    /**
     * Below this many fed bytes the hash stays on the capturing thread: handing work to another
     * thread costs tens of microseconds, which is what hashing about 64 KiB costs.
     */
    public static final long OFFLOAD_THRESHOLD_BYTES = 64 * 1024;

    private static final int UNCLAIMED = 0;
    private static final int WORKER = 1;
    private static final int CALLER = 2;

    /** Spins before parking, while the other side is expected within microseconds. */
    private static final int SPINS = 200;

    /**
     * How long a worker spins, at most, for a slot that is not filled yet before it parks: about
     * one file's read (tens of microseconds for 64 KiB files, up to a few hundred for 1 MiB). Waking
     * a parked worker took 40–65 µs on the build machine, more than the wait (decision 0875). In
     * the steady state the hash is slower than the reads and the worker does not wait at all. Once
     * a wait outlasted the spin (the reads are slow: a loaded host, a slow disk), the worker spins
     * only briefly before parking, so one capture spins for at most this long in all.
     */
    static final long SLOT_SPIN_NANOS = 100_000;

    /** Parks are bounded, so a missed wake-up costs at most this, never a hang. */
    private static final long PARK_NANOS = 200_000;

    /**
     * How long {@link #join} spins, at most, for a worker that has hashed to the end and is checking
     * its last files of the verification pass, before it parks. That wait is about one file's
     * re-read (tens of microseconds for the maximal bundle); waking a parked thread took 40–65 µs on
     * the build machine, longer than the wait itself (decision 0844).
     */
    static final long AFTER_HASH_SPIN_NANOS = 100_000;

    /** Revisions hashed by a worker since start-up; a diagnostic for tests and benchmarks. */
    private static final LongAdder WORKER_HASHES = new LongAdder();

    private final PortablePath[] paths;
    private final AtomicReferenceArray<byte[]> slots;
    private final Optional<Executor> executor;
    private final long threshold;
    private final AtomicInteger owner = new AtomicInteger(UNCLAIMED);
    private Revision.Builder builder;

    // Capturing thread only.
    private long fed;
    private int filled;
    private Runnable task;
    private boolean joined;
    private boolean closed;

    // Shared between the capturing thread and the worker.
    private volatile boolean cancelled;
    private volatile boolean finished;
    private volatile boolean hashed; // the worker has hashed to the end and runs afterHash, if any
    private volatile Thread parkedWorker;
    private volatile Thread waitingCaller;
    private volatile Runnable afterHash;
    private boolean parkedOnce; // worker only: it had to park for a slot, so it spins short from then on
    private Revision result; // published by the volatile write of finished
    private Throwable failure; // published by the volatile write of finished

    private RevisionPipeline(List<PortablePath> sortedPaths, Optional<Executor> executor, long threshold) {
        this.paths = sortedPaths.toArray(PortablePath[]::new);
        for (int i = 1; i < paths.length; i++) {
            if (paths[i - 1].compareTo(paths[i]) >= 0) {
                throw new IllegalArgumentException("paths must be distinct and in byte-wise order");
            }
        }
        this.slots = new AtomicReferenceArray<>(paths.length);
        this.executor = executor;
        this.threshold = threshold;
        this.builder = Revision.builder();
    }

    /** A pipeline over {@code sortedPaths} that hashes on the shared executor when one exists. */
    public static RevisionPipeline open(List<PortablePath> sortedPaths) {
        return new RevisionPipeline(sortedPaths, CaptureHashExecutor.shared(), OFFLOAD_THRESHOLD_BYTES);
    }

    /**
     * A pipeline with a chosen executor and threshold (tests: an executor that rejects, one that
     * runs late, a threshold of zero).
     */
    public static RevisionPipeline open(List<PortablePath> sortedPaths, Optional<Executor> executor, long threshold) {
        return new RevisionPipeline(sortedPaths, executor, threshold);
    }

    /**
     * A pipeline as {@link #open(List, Optional, long)} that first offers itself to {@code standby}:
     * if that worker is still waiting (or its task still queued) it takes this hash, whatever the
     * bundle's size, and nothing more is submitted; otherwise (it gave up, or there is none) the
     * pipeline submits as usual once {@code threshold} bytes were fed (decision 0875).
     */
    public static RevisionPipeline open(
            List<PortablePath> sortedPaths, Optional<Executor> executor, long threshold, Optional<Standby> standby) {
        RevisionPipeline pipeline = new RevisionPipeline(sortedPaths, executor, threshold);
        if (standby.isPresent() && standby.get().attach(pipeline)) {
            pipeline.task = standby.get();
        }
        return pipeline;
    }

    /**
     * A worker woken before the capture knows what it will hash (decision 0875): the capture starts
     * one as soon as it has read a manifest, so that the worker's wake-up (tens of microseconds)
     * overlaps the manifest's parse instead of delaying the hash. The task spins, for at most {@link
     * #STANDBY_SPIN_NANOS}, until a pipeline is {@link RevisionPipeline#open(List, Optional, long,
     * Optional) attached} and then hashes it exactly like a task the pipeline submitted itself; if
     * none is attached by then, or the standby is {@link #release released}, it returns and holds
     * nothing. It never sees a buffer before a pipeline is attached, and an attached pipeline's
     * {@link RevisionPipeline#close} waits for it as for any worker.
     *
     * <p>Not guaranteed: that a worker takes it at all (a busy executor queues or rejects it, and
     * then the capture hashes as before).
     */
    public static final class Standby implements Runnable {
        /**
         * How long the woken worker waits, spinning, for the capture to attach its pipeline: the
         * manifest's parse and the set-up of the declared reads took 60–100 µs on the build machine.
         * A worker that waited this long returns, and the pipeline submits as before.
         */
        static final long STANDBY_SPIN_NANOS = 250_000;

        private static final Object RELEASED = new Object();
        private static final Object GAVE_UP = new Object();

        private final AtomicReference<Object> state = new AtomicReference<>();
        private final Executor executor;
        private final long spinNanos;

        private Standby(Executor executor, long spinNanos) {
            this.executor = executor;
            this.spinNanos = spinNanos;
        }

        /** Wakes a worker of {@code executor} to wait for a pipeline; empty without an executor or when it rejects. */
        public static Optional<Standby> start(Optional<Executor> executor) {
            return start(executor, STANDBY_SPIN_NANOS);
        }

        /** {@link #start(Optional)} with a chosen spin bound (tests: zero, so that it gives up at once). */
        static Optional<Standby> start(Optional<Executor> executor, long spinNanos) {
            if (executor.isEmpty()) {
                return Optional.empty();
            }
            Standby standby = new Standby(executor.get(), spinNanos);
            try {
                executor.get().execute(standby);
            } catch (RejectedExecutionException e) {
                return Optional.empty(); // every worker is busy: the pipeline submits (or hashes) as before
            }
            return Optional.of(standby);
        }

        @Override
        public void run() {
            long until = System.nanoTime() + spinNanos;
            Object now = state.get();
            while (now == null && System.nanoTime() - until < 0) {
                Thread.onSpinWait();
                now = state.get();
            }
            if (now == null && state.compareAndSet(null, GAVE_UP)) {
                return;
            }
            if (state.get() instanceof RevisionPipeline pipeline) {
                pipeline.work(); // claims the hash unless the capture took it back or cancelled it
            }
        }

        /** Hands {@code pipeline} to this worker; false when it gave up or was released. */
        boolean attach(RevisionPipeline pipeline) {
            return state.compareAndSet(null, pipeline);
        }

        /**
         * No pipeline will come (a prompt-only capture, a failure): the worker stops waiting, and a
         * task still queued is taken out. Without effect once a pipeline was attached (its {@code
         * close()} then takes care of the task). Idempotent.
         */
        public void release() {
            if (state.compareAndSet(null, RELEASED) && executor instanceof ThreadPoolExecutor pool) {
                pool.remove(this);
            }
        }

        /** Whether a pipeline was attached; for tests. */
        boolean attached() {
            return state.get() instanceof RevisionPipeline;
        }
    }

    /** The paths the revision covers, in framing order. */
    public List<PortablePath> paths() {
        return List.of(paths);
    }

    /**
     * Hands the bytes of {@code path} to the hash. Each path is fed once; the array must not change
     * afterwards until {@link #close}.
     */
    public void feed(PortablePath path, byte[] content) {
        if (closed || cancelled) {
            throw new IllegalStateException("the pipeline was closed or cancelled");
        }
        int i = Arrays.binarySearch(paths, path);
        if (i < 0) {
            throw new IllegalArgumentException("not a path of this revision");
        }
        if (!slots.compareAndSet(i, null, content)) {
            throw new IllegalStateException("a path was fed twice");
        }
        filled++;
        fed += content.length;
        if (task == null && executor.isPresent() && fed >= threshold) {
            task = this::work;
            try {
                executor.get().execute(task);
            } catch (RejectedExecutionException e) {
                // Every worker is busy with other captures: join() hashes on this thread.
            }
        }
        Thread worker = parkedWorker;
        if (worker != null) {
            LockSupport.unpark(worker);
        }
    }

    /**
     * Work for the worker once it has hashed to the end (and only then): it runs before the worker
     * counts as finished, so {@link #join} and {@link #close} wait for it. Given late (after the
     * worker finished, or when no worker took the hash) it never runs; the caller must not depend on
     * it running. It must not throw, must stop promptly when the caller tells it to, and may read
     * the fed arrays only.
     */
    public void afterHash(Runnable task) {
        if (closed || cancelled) {
            throw new IllegalStateException("the pipeline was closed or cancelled");
        }
        afterHash = task;
    }

    /**
     * Stops the hash without waiting: a worker stops before the next file. For a capture that will
     * not use this revision; {@link #close} still has to run.
     */
    public void cancel() {
        cancelled = true;
        owner.compareAndSet(UNCLAIMED, CALLER);
        Thread worker = parkedWorker;
        if (worker != null) {
            LockSupport.unpark(worker);
        }
    }

    /**
     * The revision over every path, once every path was fed. Waits for the worker if one is hashing,
     * or hashes on this thread if none started. On {@link InterruptedException} nothing was returned;
     * {@link #close} cancels and waits for the worker.
     */
    public Revision join() throws InterruptedException {
        if (closed || cancelled || joined) {
            throw new IllegalStateException("the pipeline was closed, cancelled or joined");
        }
        if (filled != paths.length) {
            throw new IllegalStateException("not every path was fed");
        }
        if (owner.compareAndSet(UNCLAIMED, CALLER)) {
            Revision revision = hash(false);
            joined = true;
            return revision;
        }
        awaitWorker(true);
        if (failure != null) {
            throw new IllegalStateException("hashing the revision failed", failure);
        }
        if (result == null) {
            throw new IllegalStateException("the hash stopped without a revision");
        }
        joined = true;
        return result;
    }

    /**
     * Cancels the hash unless it was joined, waits (uninterruptibly, keeping the interrupt status)
     * until a running worker has stopped, and drops every reference to the fed buffers. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (!joined) {
            cancel();
            if (owner.get() == WORKER) {
                awaitWorkerUninterruptibly();
            }
        }
        if (task != null && owner.get() != WORKER && executor.orElse(null) instanceof ThreadPoolExecutor pool) {
            // Not needed any more: take it out of the queue rather than leave a no-op there.
            pool.remove(task);
        }
        for (int i = 0; i < paths.length; i++) {
            slots.set(i, null);
        }
        builder = null;
        afterHash = null;
        result = null;
        failure = null;
    }

    /** Whether a worker thread (rather than the capturing thread) took the hash; for tests. */
    public boolean hashedByWorker() {
        return owner.get() == WORKER;
    }

    /** How many revisions a worker has hashed to the end in this JVM; for tests and benchmarks. */
    public static long workerHashes() {
        return WORKER_HASHES.sum();
    }

    /** Whether a worker is still inside the hash; for tests of {@link #close}. */
    boolean workerRunning() {
        return owner.get() == WORKER && !finished;
    }

    /** How many slots still reference an array; for tests of {@link #close}. */
    int heldSlots() {
        int held = 0;
        for (int i = 0; i < paths.length; i++) {
            held += slots.get(i) == null ? 0 : 1;
        }
        return held;
    }

    private void work() {
        if (!owner.compareAndSet(UNCLAIMED, WORKER)) {
            return; // the capturing thread took the hash, or cancelled it; the slots are not ours
        }
        try {
            result = hash(true);
            if (result != null) {
                hashed = true;
                WORKER_HASHES.increment();
                Runnable then = afterHash;
                if (then != null && !cancelled) {
                    then.run();
                }
            }
        } catch (Throwable t) {
            failure = t;
        } finally {
            finished = true;
            Thread caller = waitingCaller;
            if (caller != null) {
                LockSupport.unpark(caller);
            }
        }
    }

    /** The revision, or {@code null} when cancelled. */
    private Revision hash(boolean onWorker) {
        Revision.Builder b = builder;
        for (int i = 0; i < paths.length; i++) {
            byte[] content = onWorker ? awaitSlot(i) : slots.get(i);
            if (content == null || cancelled) {
                return null;
            }
            b.append(paths[i], content);
        }
        return b.build();
    }

    /** The content of slot {@code i} once it is fed, or {@code null} when the hash is cancelled. */
    private byte[] awaitSlot(int i) {
        byte[] content = slots.get(i);
        if (content == null && !parkedOnce) {
            // The capturing thread is reading this file: spin (bounded) rather than pay a wake-up.
            long until = System.nanoTime() + SLOT_SPIN_NANOS;
            while (content == null && System.nanoTime() - until < 0) {
                if (cancelled) {
                    return null;
                }
                Thread.onSpinWait();
                content = slots.get(i);
            }
        }
        for (int spin = 0; content == null && spin < SPINS; spin++) {
            if (cancelled) {
                return null;
            }
            Thread.onSpinWait();
            content = slots.get(i);
        }
        if (content != null) {
            return content;
        }
        // The reads are slower than this spin (a loaded host, a slow disk): from now on this worker
        // parks after a short spin, so that it does not take a busy host's CPU from the reads.
        parkedOnce = true;
        parkedWorker = Thread.currentThread();
        try {
            while (true) {
                if (cancelled) {
                    return null;
                }
                content = slots.get(i);
                if (content != null) {
                    return content;
                }
                LockSupport.parkNanos(this, PARK_NANOS);
            }
        } finally {
            parkedWorker = null;
        }
    }

    /**
     * Waits until the worker has finished. Interruptible: throws on an interrupt. Otherwise: keeps
     * waiting and returns whether the thread was interrupted meanwhile (its status is cleared so
     * that parking keeps working; the caller restores it).
     */
    private boolean awaitWorker(boolean interruptible) throws InterruptedException {
        for (int spin = 0; !finished && spin < SPINS; spin++) {
            Thread.onSpinWait();
        }
        if (!finished && hashed) {
            // Only the worker's last files of the verification pass are left: spin (bounded) rather
            // than pay a park and a wake-up that take longer than the wait.
            long until = System.nanoTime() + AFTER_HASH_SPIN_NANOS;
            while (!finished && System.nanoTime() - until < 0) {
                Thread.onSpinWait();
            }
        }
        boolean interrupted = false;
        if (finished) {
            return false;
        }
        waitingCaller = Thread.currentThread();
        try {
            while (!finished) {
                if (Thread.interrupted()) {
                    if (interruptible) {
                        throw new InterruptedException("interrupted while the revision was hashed");
                    }
                    interrupted = true;
                }
                LockSupport.parkNanos(this, PARK_NANOS);
            }
        } finally {
            waitingCaller = null;
        }
        return interrupted;
    }

    private void awaitWorkerUninterruptibly() {
        // Bounded: a cancelled worker stops before its next file (at most 1 MiB more to hash), and an
        // afterHash task stops before its next file when its owner stops it (Capturer does, first).
        boolean interrupted;
        try {
            interrupted = awaitWorker(false);
        } catch (InterruptedException e) {
            interrupted = true; // not thrown when not interruptible
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
