package dev.skillgate.runner.internal;

import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.ProcessExit;
import dev.skillgate.runner.DirectoryIdentity;
import dev.skillgate.runner.LaunchSpec;
import dev.skillgate.runner.SupervisedRun;
import dev.skillgate.runner.SupervisionListener;
import dev.skillgate.runner.SupervisionResult;
import dev.skillgate.runner.SupervisionResult.CleanupEvidence;
import dev.skillgate.runner.SupervisionResult.Outcome;
import dev.skillgate.runner.SupervisorIdentity;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One run of the portable supervisor: {@link ProcessBuilder} with the exact argv and environment,
 * stdin written on its own thread and closed, stdout and stderr drained concurrently into bounded
 * buffers, a monotonic deadline from spawn, and termination of the child and every descendant it
 * could see (SIGTERM, grace, SIGKILL via {@link ProcessHandle}).
 *
 * <p>It cannot create a process group or session (the child shares the JVM's), cannot see a
 * descendant once it has been re-parented, and so always reports cleanup unproven.
 */
public final class PortableRun implements SupervisedRun {

    /** How often visible descendants are snapshotted while the child runs. */
    static final Duration POLL = Duration.ofMillis(100);

    /** How long the output pipes may stay open after the child is gone. */
    static final Duration DRAIN = Duration.ofMillis(300);

    /** Most descendants tracked. */
    static final int MAX_TRACKED = 4096;

    private final LaunchSpec spec;
    private final SupervisionListener listener;
    private final CompletableFuture<SupervisionResult> result = new CompletableFuture<>();
    private final LinkedBlockingQueue<Outcome> events = new LinkedBlockingQueue<>();
    private final Set<ProcessHandle> tracked = new LinkedHashSet<>();
    private final AtomicLong stdoutTotal = new AtomicLong();
    private final AtomicLong stderrTotal = new AtomicLong();
    private volatile boolean cancelled;
    private volatile Process process;

    private PortableRun(LaunchSpec spec, SupervisionListener listener) {
        this.spec = spec;
        this.listener = listener;
    }

    /** Starts supervising on a new daemon thread and returns at once. */
    public static PortableRun start(LaunchSpec spec, SupervisionListener listener) {
        PortableRun run = new PortableRun(spec, listener);
        Thread t = new Thread(run::supervise, "skillgate-portable-" + spec.runId());
        t.setDaemon(true);
        t.start();
        return run;
    }

    @Override
    public void cancel() {
        cancelled = true;
        events.offer(Outcome.CANCELLED);
    }

    @Override
    public CompletionStage<SupervisionResult> result() {
        return result.minimalCompletionStage();
    }

    private void supervise() {
        try {
            superviseChecked();
        } catch (Throwable t) {
            Process process = this.process;
            if (process != null) {
                process.destroyForcibly();
            }
            for (ProcessHandle h : snapshotTracked()) {
                h.destroyForcibly();
            }
            finish(new SupervisionResult(
                    Outcome.SUPERVISOR_FAILED,
                    ProcessExit.notObserved(),
                    new byte[0],
                    new byte[0],
                    CleanupEvidence.unproven(snapshotTracked().size(), false),
                    HardeningLayer.NONE,
                    Duration.ZERO,
                    "SUPERVISOR_DIED: portable supervisor fault " + t.getClass().getSimpleName()));
        }
    }

    private void superviseChecked() throws InterruptedException {
        SupervisorIdentity identity = new SupervisorIdentity(
                ProcessHandle.current().pid(), ProcessLiveness.currentJvmToken(), Staging.newAttempt());
        if (cancelled) {
            finishNotStarted(Outcome.SETUP_FAILED, "EXEC_ABORTED: cancelled before the child started");
            return;
        }
        try {
            spec.ownership().record(identity);
        } catch (IOException | RuntimeException e) {
            finishNotStarted(
                    Outcome.SETUP_FAILED,
                    "ownership record failed: " + e.getClass().getSimpleName());
            return;
        }
        if (cancelled) {
            finishNotStarted(Outcome.SETUP_FAILED, "EXEC_ABORTED: cancelled before the child started");
            return;
        }
        // A ProcessBuilder can only name its directory by path: checked once here, a swap after this
        // check is not caught (the Linux helper changes into the descriptor it checked).
        if (spec.workingDirectoryIdentity().isPresent()
                && !spec.workingDirectoryIdentity().equals(DirectoryIdentity.of(spec.workingDirectory()))) {
            finishNotStarted(
                    Outcome.SETUP_FAILED, "WORKSPACE_CHANGED: the working directory is not the approved directory");
            return;
        }
        ProcessBuilder pb = new ProcessBuilder(spec.argv());
        pb.environment().clear();
        pb.environment().putAll(spec.environment());
        pb.directory(spec.workingDirectory().toFile());
        pb.redirectInput(ProcessBuilder.Redirect.PIPE);
        pb.redirectOutput(ProcessBuilder.Redirect.PIPE);
        pb.redirectError(ProcessBuilder.Redirect.PIPE);
        Process process;
        long spawn = System.nanoTime();
        try {
            process = pb.start();
        } catch (IOException | RuntimeException e) {
            finishNotStarted(
                    Outcome.SPAWN_FAILED, "EXEC_SPAWN_FAILED: " + e.getClass().getSimpleName());
            return;
        }
        this.process = process;
        ProcessHandle child = process.toHandle();
        synchronized (tracked) {
            tracked.add(child);
        }
        safely(() -> listener.started(child.pid()));

        Thread stdinWriter = daemon("stdin", () -> writeStdin(process.getOutputStream()));
        BoundedDrain out =
                new BoundedDrain(process.getInputStream(), spec.stdoutLimit(), Outcome.STDOUT_LIMIT, stdoutTotal);
        BoundedDrain err =
                new BoundedDrain(process.getErrorStream(), spec.stderrLimit(), Outcome.STDERR_LIMIT, stderrTotal);
        Thread outThread = daemon("stdout", out);
        Thread errThread = daemon("stderr", err);
        stdinWriter.start();
        outThread.start();
        errThread.start();
        process.onExit().thenRun(() -> events.offer(Outcome.EXITED));

        long deadline = spawn + spec.wallTimeout().toNanos();
        Outcome reason = null;
        while (reason == null) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                reason = Outcome.TIMED_OUT;
                break;
            }
            reason = events.poll(Math.min(remaining, POLL.toNanos()), TimeUnit.NANOSECONDS);
            if (reason == null) {
                track(child);
            }
        }

        boolean detached = false;
        if (reason == Outcome.EXITED) {
            List<ProcessHandle> survivors = aliveTracked(child);
            detached = !survivors.isEmpty();
            if (detached) {
                safely(() -> listener.terminating(Outcome.EXITED));
                terminate(survivors, child);
            }
        } else {
            Outcome why = reason;
            safely(() -> listener.terminating(why));
            track(child);
            List<ProcessHandle> all = aliveTracked(null);
            terminate(all, child);
        }
        boolean exited = process.waitFor(spec.killDeadline().toMillis(), TimeUnit.MILLISECONDS);
        outThread.join(DRAIN.toMillis());
        errThread.join(DRAIN.toMillis());
        if (outThread.isAlive() || errThread.isAlive()) {
            // A process we cannot see still holds the child's output pipe: something escaped.
            detached = true;
        }
        if (reason == Outcome.EXITED) {
            if (out.overflowed()) {
                reason = Outcome.STDOUT_LIMIT;
            } else if (err.overflowed()) {
                reason = Outcome.STDERR_LIMIT;
            }
        }
        ProcessExit exit = exited ? decodeExit(process.exitValue()) : ProcessExit.notObserved();
        if (reason == Outcome.EXITED && exit instanceof ProcessExit.Signal) {
            reason = Outcome.SIGNALED;
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - spawn);
        finish(new SupervisionResult(
                reason,
                exit,
                out.bytes(),
                err.bytes(),
                CleanupEvidence.unproven(snapshotTracked().size(), detached),
                HardeningLayer.NONE,
                elapsed,
                "portable supervisor: cleanup cannot be proven"));
    }

    /**
     * The JDK reports death by signal N as 128+N and cannot tell it from {@code exit(128+N)}; values
     * 129–192 are read as signals.
     */
    static ProcessExit decodeExit(int value) {
        if (value > 128 && value <= 192) {
            return ProcessExit.signal(value - 128);
        }
        return ProcessExit.code(value);
    }

    private void terminate(List<ProcessHandle> handles, ProcessHandle child) throws InterruptedException {
        if (handles.isEmpty()) {
            return;
        }
        for (ProcessHandle h : handles) {
            h.destroy();
        }
        waitAll(handles, spec.terminationGrace());
        track(child);
        List<ProcessHandle> remaining = aliveTracked(null);
        for (ProcessHandle h : remaining) {
            h.destroyForcibly();
        }
        waitAll(remaining, spec.killDeadline());
    }

    private static void waitAll(List<ProcessHandle> handles, Duration budget) throws InterruptedException {
        long end = System.nanoTime() + budget.toNanos();
        while (System.nanoTime() < end) {
            boolean any = false;
            for (ProcessHandle h : handles) {
                if (ProcessLiveness.isRunning(h)) {
                    any = true;
                    break;
                }
            }
            if (!any) {
                return;
            }
            Thread.sleep(10);
        }
    }

    /** Adds every visible descendant of the child and of tracked survivors. */
    private void track(ProcessHandle child) {
        List<ProcessHandle> roots = new ArrayList<>();
        if (ProcessLiveness.isRunning(child)) {
            roots.add(child);
        } else {
            roots.addAll(aliveTracked(child));
        }
        for (ProcessHandle root : roots) {
            root.descendants().limit(MAX_TRACKED).forEach(h -> {
                synchronized (tracked) {
                    if (tracked.size() < MAX_TRACKED) {
                        tracked.add(h);
                    }
                }
            });
        }
    }

    private List<ProcessHandle> aliveTracked(ProcessHandle except) {
        List<ProcessHandle> out = new ArrayList<>();
        for (ProcessHandle h : snapshotTracked()) {
            if (!h.equals(except) && ProcessLiveness.isRunning(h)) {
                out.add(h);
            }
        }
        return out;
    }

    private List<ProcessHandle> snapshotTracked() {
        synchronized (tracked) {
            return new ArrayList<>(tracked);
        }
    }

    private void writeStdin(OutputStream stdin) {
        try (OutputStream o = stdin) {
            o.write(spec.stdin());
        } catch (IOException e) {
            // EPIPE: the child exited or closed stdin without reading. Its own result stands.
        }
    }

    private void finishNotStarted(Outcome outcome, String detail) {
        finish(new SupervisionResult(
                outcome,
                ProcessExit.notObserved(),
                new byte[0],
                new byte[0],
                CleanupEvidence.nothingStarted(),
                HardeningLayer.NONE,
                Duration.ZERO,
                detail));
    }

    private void finish(SupervisionResult r) {
        safely(listener::settled);
        result.complete(r);
    }

    private static void safely(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            // Listener faults are ignored, as the SPI says.
        }
    }

    private Thread daemon(String what, Runnable body) {
        Thread t = new Thread(body, "skillgate-portable-" + what + "-" + spec.runId());
        t.setDaemon(true);
        return t;
    }

    /** Drains one pipe into a buffer of at most {@code limit} bytes; one byte more is an overflow. */
    private final class BoundedDrain implements Runnable {
        private final InputStream in;
        private final byte[] buf;
        private final Outcome overflowOutcome;
        private final AtomicLong total;
        private int size;
        private boolean overflowed;

        BoundedDrain(InputStream in, int limit, Outcome overflowOutcome, AtomicLong total) {
            this.in = in;
            this.buf = new byte[limit];
            this.overflowOutcome = overflowOutcome;
            this.total = total;
        }

        @Override
        public void run() {
            byte[] chunk = new byte[8192];
            try (InputStream i = in) {
                int n;
                while ((n = i.read(chunk)) > 0) {
                    total.addAndGet(n);
                    boolean over;
                    synchronized (this) {
                        int keep = Math.min(n, buf.length - size);
                        System.arraycopy(chunk, 0, buf, size, keep);
                        size += keep;
                        over = keep < n;
                        overflowed |= over;
                    }
                    safely(() -> listener.outputBytes(stdoutTotal.get(), stderrTotal.get()));
                    if (over) {
                        events.offer(overflowOutcome);
                        return;
                    }
                }
            } catch (IOException e) {
                // The stream was closed under us; what was read so far stays.
            }
        }

        synchronized boolean overflowed() {
            return overflowed;
        }

        /**
         * For the {@code SupervisionResult} constructor, which copies (the SPI's defensive copy): the
         * buffer itself when it is full (nothing more can be written into a full buffer, even by a drain
         * that is still running), else a copy of the filled prefix taken under the lock.
         */
        synchronized byte[] bytes() {
            return size == buf.length ? buf : java.util.Arrays.copyOf(buf, size);
        }
    }
}
