package dev.skillgate.inspect.internal;

import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one executor that hashes capture revisions off the capturing thread (decision 0300).
 *
 * <p>Bounded and quiet: at most {@link #THREADS} daemon threads named {@code
 * skillgate-capture-hash-N}, created on demand and ended after {@link #IDLE_SECONDS} seconds idle,
 * and a queue of at most {@link #QUEUE} tasks. A task that finds the queue full is rejected at once
 * and the capture hashes on its own thread instead. A capture never waits for another capture's
 * hash: if no worker has taken its task by the time the capture needs the revision, the capture
 * takes the task back and hashes on its own thread. A task that is no longer needed holds no
 * buffer and is removed from the queue. On a single processor there is no executor at all.
 * Threads do not inherit the creating thread's context class loader.
 */
public final class CaptureHashExecutor {
    /**
     * At most one thread fewer than the processors, and at most 4: a capture uses one worker next to
     * its own thread, and a library must not flood its host with threads.
     */
    public static final int THREADS =
            Math.max(0, Math.min(4, Runtime.getRuntime().availableProcessors() - 1));

    /** How long an idle worker waits for the next capture before it ends. */
    public static final long IDLE_SECONDS = 30;

    /** Tasks that may wait for a worker; more are rejected (the capture then hashes itself). */
    static final int QUEUE = 2 * Math.max(1, THREADS);

    /** The thread name prefix, for diagnostics and for the benchmark's allocation accounting. */
    public static final String THREAD_NAME_PREFIX = "skillgate-capture-hash-";

    private CaptureHashExecutor() {}

    /** The shared executor, or empty on a single processor (hash on the capturing thread). */
    public static Optional<Executor> shared() {
        return THREADS == 0 ? Optional.empty() : Optional.of(Holder.POOL);
    }

    private static final class Holder {
        static final ThreadPoolExecutor POOL = create();

        private static ThreadPoolExecutor create() {
            AtomicInteger number = new AtomicInteger();
            ThreadFactory factory = task -> {
                // No inherited thread locals: a worker must not pin whatever the first caller held.
                Thread thread = new Thread(null, task, THREAD_NAME_PREFIX + number.incrementAndGet(), 0, false);
                thread.setDaemon(true);
                thread.setContextClassLoader(null);
                return thread;
            };
            // THREADS threads, created on demand, ended when idle. The short queue lets a worker take
            // the next capture's hash as soon as it is done with the previous one; a queued task
            // that a capture no longer needs (it hashed on its own thread, or failed) is a no-op
            // that holds no buffer. A full queue rejects, and the capture hashes on its own thread.
            ThreadPoolExecutor pool = new ThreadPoolExecutor(
                    THREADS,
                    THREADS,
                    IDLE_SECONDS,
                    TimeUnit.SECONDS,
                    new ArrayBlockingQueue<>(QUEUE),
                    factory,
                    new ThreadPoolExecutor.AbortPolicy());
            pool.allowCoreThreadTimeOut(true);
            return pool;
        }
    }
}
