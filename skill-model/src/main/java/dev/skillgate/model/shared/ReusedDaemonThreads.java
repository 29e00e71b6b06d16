package dev.skillgate.model.shared;

import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apiguardian.api.API;

/**
 * Process-wide daemon threads for long tasks that each need a thread of their own for as long as
 * they last (the engine's executions, decision 0816; the runner's launch sequences, decision 0871):
 * an idle thread is reused instead of a new one started. Unbounded, so no task ever waits behind
 * another; idle threads end after 30 s.
 *
 * <p>Per task: the thread carries the task's name and the starting caller's context class loader
 * while the task runs, and goes back to the idle name, no context class loader and a cleared
 * interrupt flag afterwards. Threads are made without inheritable thread-locals, since a thread made
 * while one caller starts a task later runs other callers' tasks. Not guaranteed: which thread runs
 * a task, or that a thread is ever reused.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class ReusedDaemonThreads {
    private final String idleName;
    private final ExecutorService pool;

    /** @param idleName the name of a thread between tasks */
    public ReusedDaemonThreads(String idleName) {
        this.idleName = Objects.requireNonNull(idleName, "idleName");
        this.pool = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(null, r, idleName, 0, false);
            t.setDaemon(true);
            t.setContextClassLoader(null);
            return t;
        });
    }

    /**
     * Runs {@code task} on an idle thread, or a new one, named {@code name} while it runs.
     *
     * @throws RejectedExecutionException if no thread could be started (as can {@link OutOfMemoryError})
     */
    public void start(String name, Runnable task) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(task, "task");
        ClassLoader callerLoader = Thread.currentThread().getContextClassLoader();
        pool.execute(() -> {
            Thread me = Thread.currentThread();
            me.setName(name);
            me.setContextClassLoader(callerLoader);
            try {
                task.run();
            } finally {
                me.setName(idleName);
                me.setContextClassLoader(null);
                Thread.interrupted();
            }
        });
    }
}
