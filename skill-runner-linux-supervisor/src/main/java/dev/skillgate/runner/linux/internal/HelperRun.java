package dev.skillgate.runner.linux.internal;

import dev.skillgate.model.Confinement;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.ProcessExit;
import dev.skillgate.runner.LaunchConfinement;
import dev.skillgate.runner.LaunchSpec;
import dev.skillgate.runner.ResourceCeilings;
import dev.skillgate.runner.SupervisedRun;
import dev.skillgate.runner.SupervisionListener;
import dev.skillgate.runner.SupervisionResult;
import dev.skillgate.runner.SupervisionResult.CleanupEvidence;
import dev.skillgate.runner.SupervisionResult.Outcome;
import dev.skillgate.runner.SupervisorIdentity;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One supervised run: starts the helper, writes the request, checks the helper's identity, records
 * ownership, sends GO, keeps the lifeline open, reads frames with hard caps, verifies the CRC and
 * applies the acceptance rule (docs/supervision.md, "Acceptance"). A watchdog of wall + grace + kill
 * deadline + 2 s from the spawned frame (30 s before it) kills the helper and reports cleanup as
 * unknown. The JVM never waits for anything but its own helper process.
 */
public final class HelperRun implements SupervisedRun {

    /** Time the helper gets from start to the spawned (or result) frame: hashing, ownership record, exec. */
    static final Duration SETUP_BUDGET = Duration.ofSeconds(30);

    static final Duration WATCHDOG_MARGIN = Duration.ofSeconds(2);
    private static final int HELPER_STDERR_CAP = 8 * 1024;

    /**
     * Everything observed about a run, for tests and measurements. {@link #result()} is what the SPI
     * returns.
     */
    public record Report(
            SupervisionResult result,
            Optional<Frames.Hello> hello,
            Optional<Frames.Spawned> spawned,
            Optional<Frames.Result> helperResult,
            Optional<SupervisorIdentity> owner,
            int helperExit,
            long launchToResultNanos,
            String helperDiagnostics) {}

    private final LaunchSpec spec;
    private final SupervisionListener listener;
    private final HelperInstaller.Installed installed;
    private final SpareHelper spares;
    private final int policy;
    private final int confinementPolicy;
    private final Optional<Path> delegatedCgroup;
    private final ExecutableIdentityCache identityCache;
    private final ScheduledExecutorService scheduler;
    private final ExecutorService threads;
    private final CompletableFuture<SupervisionResult> result = new CompletableFuture<>();
    private final CompletableFuture<Report> report = new CompletableFuture<>();
    private final Object stdinLock = new Object();
    private final String attemptToken = UUID.randomUUID().toString();
    private final long launchedAt = System.nanoTime();

    private volatile boolean cancelRequested;
    private volatile boolean watchdogFired;
    private volatile Process process;
    private OutputStream lifeline; // guarded by stdinLock
    private boolean goSent; // guarded by stdinLock

    HelperRun(
            LaunchSpec spec,
            SupervisionListener listener,
            HelperInstaller.Installed installed,
            SpareHelper spares,
            int policy,
            int confinementPolicy,
            Optional<Path> delegatedCgroup,
            ExecutableIdentityCache identityCache,
            ScheduledExecutorService scheduler,
            ExecutorService threads) {
        this.spec = spec;
        this.listener = listener;
        this.installed = installed;
        this.spares = spares;
        this.policy = policy;
        this.confinementPolicy = confinementPolicy;
        this.delegatedCgroup = delegatedCgroup;
        this.identityCache = identityCache;
        this.scheduler = scheduler;
        this.threads = threads;
    }

    void start() {
        threads.execute(this::drive);
    }

    @Override
    public void cancel() {
        cancelRequested = true;
        synchronized (stdinLock) {
            if (goSent && lifeline != null) {
                try {
                    lifeline.write(Wire.LIFELINE_CANCEL);
                    lifeline.flush();
                } catch (IOException e) {
                    // The helper is gone or going; its end is observed by the driver thread.
                }
            }
        }
    }

    @Override
    public CompletionStage<SupervisionResult> result() {
        return result;
    }

    /** The detailed report; completes together with {@link #result()}. */
    public CompletionStage<Report> report() {
        return report;
    }

    // ------------------------------------------------------------------------------------------

    /** Mutable state of the driver thread. */
    private static final class State {
        Frames.Hello hello;
        Frames.Spawned spawned;
        Frames.Result helperResult;
        SupervisorIdentity owner;
        boolean terminatingSeen;
        boolean ended;
        boolean ownershipFailed;
        String failure; // "CODE: text" when the helper cannot be trusted
        // Fixed-capacity capture (SPEC §10 step 4): allocated once at the limits, never grown.
        final OutputBuffer stdout;
        final OutputBuffer stderr;
        ScheduledFuture<?> watchdog;
        HelperDiagnostics diagnostics;

        State(int stdoutLimit, int stderrLimit) {
            stdout = new OutputBuffer(stdoutLimit);
            stderr = new OutputBuffer(stderrLimit);
        }
    }

    private void drive() {
        State st = new State(spec.stdoutLimit(), spec.stderrLimit());
        int helperExit = -1;
        HelperImage.Started started = null;
        try {
            byte[] request = RequestEncoder.encode(spec, requestOptions());
            // The helper that runs is the helper that was verified: HelperImage hashes the open file,
            // starts that inode and checks the running process before it is sent anything.
            HelperImage.Start start = spares.take(installed);
            if (start instanceof HelperImage.Refused refused) {
                spares.discard();
                finish(st, nothingStarted(Outcome.SETUP_FAILED, refused.describe()), -1);
                return;
            }
            started = (HelperImage.Started) start;
            Process p = started.process();
            process = p;
            st.watchdog = scheduler.schedule(this::fireWatchdog, SETUP_BUDGET.toNanos(), TimeUnit.NANOSECONDS);
            st.diagnostics = new HelperDiagnostics(p.getErrorStream(), threads);
            synchronized (stdinLock) {
                lifeline = p.getOutputStream();
            }
            try {
                lifeline.write(request);
                lifeline.flush();
            } catch (IOException e) {
                // The helper exited early; its frames (if any) say why.
            }
            // Start the next spare while this helper lives: it is the witness that lets that start
            // compare identities instead of hashing the helper's bytes (decision 0838).
            spares.replenish(installed);
            readFrames(p, st);
            helperExit = awaitExit(p, st);
        } catch (RuntimeException e) {
            st.failure = ErrorCode.SUPERVISOR_PROTOCOL.name() + ": internal driver fault ("
                    + e.getClass().getSimpleName() + ")";
        }
        Process p = process;
        if (p != null && (st.failure != null || !st.ended)) {
            p.destroyForcibly();
            helperExit = awaitExitQuietly(p);
        }
        closeLifeline();
        if (st.watchdog != null) {
            st.watchdog.cancel(false);
        }
        if (started != null) {
            spares.ended(started);
        }
        finish(st, buildResult(st, helperExit), helperExit);
        spares.replenish(installed);
    }

    private RequestEncoder.Options requestOptions() {
        if (spec.executableDigest().isEmpty()) {
            return new RequestEncoder.Options(
                    policy, confinementPolicy, Wire.VERIFY_NONE, new byte[32], FileIdentity.NONE, delegatedCgroup);
        }
        String hex = spec.executableDigest().get().hex();
        FileIdentity known =
                identityCache.lookup(spec.executable().toString(), hex).orElse(FileIdentity.NONE);
        return new RequestEncoder.Options(
                policy,
                confinementPolicy,
                Wire.VERIFY_IDENTITY,
                spec.executableDigest().get().bytes(),
                known,
                delegatedCgroup);
    }

    private void readFrames(Process p, State st) {
        // Output payloads bypass this buffer when they are larger than it and otherwise pass through it;
        // they land in the fixed-capacity capture buffers either way, never in an array of their own.
        FrameReader reader = new FrameReader(new BufferedInputStream(p.getInputStream(), 8192));
        FrameReader.OutputSink sink = (type, length) -> {
            if (st.spawned == null || length == 0) {
                throw new Frames.MalformedFrameException("output frame before spawn or empty");
            }
            OutputBuffer target = type == Wire.FRAME_STDOUT ? st.stdout : st.stderr;
            if (!target.fits(length)) {
                throw new Frames.MalformedFrameException("output beyond the limit");
            }
            return target;
        };
        try {
            while (true) {
                FrameReader.Frame f = reader.next(sink);
                if (f.type() == Wire.FRAME_END) {
                    if (st.helperResult == null) {
                        throw new Frames.MalformedFrameException("end before result");
                    }
                    if (!reader.checkEnd(f.payload())) {
                        throw new Frames.MalformedFrameException("end frame CRC mismatch");
                    }
                    if (!reader.atEof()) {
                        throw new Frames.MalformedFrameException("bytes after the end frame");
                    }
                    st.ended = true;
                    return;
                }
                if (st.helperResult != null) {
                    throw new Frames.MalformedFrameException("frame after result");
                }
                handle(f, st);
            }
        } catch (EOFException e) {
            st.failure = watchdogFired
                    ? ErrorCode.CLEANUP_UNKNOWN.name() + ": the watchdog killed the helper"
                    : ErrorCode.SUPERVISOR_DIED.name() + ": the helper ended without an end frame";
        } catch (Frames.MalformedFrameException e) {
            st.failure = ErrorCode.SUPERVISOR_PROTOCOL.name() + ": " + e.getMessage();
        } catch (IOException e) {
            st.failure = ErrorCode.SUPERVISOR_DIED.name() + ": reading the helper failed";
        }
    }

    private void handle(FrameReader.Frame f, State st) throws Frames.MalformedFrameException {
        int type = f.type();
        if (st.hello == null && type != Wire.FRAME_HELLO) {
            throw new Frames.MalformedFrameException("first frame is not hello");
        }
        switch (type) {
            case Wire.FRAME_HELLO:
                if (st.hello != null) {
                    throw new Frames.MalformedFrameException("second hello");
                }
                st.hello = Frames.Hello.parse(f.payload());
                onHello(st);
                break;
            case Wire.FRAME_SPAWNED:
                if (st.spawned != null || !goSent()) {
                    throw new Frames.MalformedFrameException("unexpected spawned frame");
                }
                st.spawned = Frames.Spawned.parse(f.payload());
                armMainWatchdog(st);
                if (st.spawned.verification() == Wire.VERIFY_FULL
                        && spec.executableDigest().isPresent()) {
                    identityCache.remember(
                            spec.executable().toString(),
                            spec.executableDigest().get().hex(),
                            st.spawned.executable());
                }
                safely(l -> l.started(st.spawned.childPid()));
                break;
            case Wire.FRAME_STDOUT:
            case Wire.FRAME_STDERR:
                // Already checked (spawned, non-empty, fits) and read into its buffer by the sink.
                safely(l -> l.outputBytes(st.stdout.size(), st.stderr.size()));
                break;
            case Wire.FRAME_TERMINATING:
                if (st.terminatingSeen || !goSent()) {
                    throw new Frames.MalformedFrameException("unexpected terminating frame");
                }
                st.terminatingSeen = true;
                Outcome reason = outcomeOf(f.payload()[0] & 0xFF);
                safely(l -> l.terminating(reason));
                break;
            case Wire.FRAME_RESULT:
                st.helperResult = Frames.Result.parse(f.payload());
                break;
            default:
                throw new Frames.MalformedFrameException("unknown frame");
        }
    }

    private void onHello(State st) throws Frames.MalformedFrameException {
        Frames.Hello h = st.hello;
        if (h.protocol() != Wire.PROTOCOL) {
            throw new Frames.MalformedFrameException("protocol version " + h.protocol());
        }
        if (h.layer() == Wire.LAYER_NONE) {
            // The helper refused the request before anything could start (it may already have exited);
            // its result follows, and there is no ownership to record.
            return;
        }
        Process p = process;
        Optional<Long> start = ProcIdentity.startTimeTicks(h.pid());
        Optional<String> boot = ProcIdentity.bootId();
        if (p == null
                || p.pid() != h.pid()
                || start.isEmpty()
                || start.get() != h.startTimeTicks()
                || boot.isEmpty()
                || !boot.get().equals(h.bootId())) {
            throw new Frames.MalformedFrameException("helper identity does not match the started process");
        }
        SupervisorIdentity owner = new SupervisorIdentity(h.pid(), h.startTimeToken(), attemptToken);
        st.owner = owner;
        try {
            spec.ownership().record(owner);
        } catch (IOException | RuntimeException e) {
            st.ownershipFailed = true;
        }
        synchronized (stdinLock) {
            try {
                if (st.ownershipFailed || cancelRequested) {
                    lifeline.write(Wire.LIFELINE_CANCEL);
                } else {
                    lifeline.write(Wire.LIFELINE_GO);
                    goSent = true;
                }
                lifeline.flush();
            } catch (IOException e) {
                // The helper already ended (e.g. a digest mismatch); its frames say so.
            }
        }
    }

    private boolean goSent() {
        synchronized (stdinLock) {
            return goSent;
        }
    }

    private void armMainWatchdog(State st) {
        if (st.watchdog != null) {
            st.watchdog.cancel(false);
        }
        Duration budget = spec.wallTimeout()
                .plus(spec.terminationGrace())
                .plus(spec.killDeadline())
                .plus(WATCHDOG_MARGIN);
        st.watchdog = scheduler.schedule(this::fireWatchdog, budget.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void fireWatchdog() {
        watchdogFired = true;
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
        }
    }

    private int awaitExit(Process p, State st) {
        if (st.failure != null) {
            return -1;
        }
        try {
            // The helper exits right after its end frame; the watchdog bounds a helper that does not.
            return p.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            st.failure = ErrorCode.SUPERVISOR_DIED.name() + ": interrupted while waiting for the helper";
            return -1;
        }
    }

    private static int awaitExitQuietly(Process p) {
        try {
            if (p.waitFor(5, TimeUnit.SECONDS)) {
                return p.exitValue();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return -1;
    }

    private void closeLifeline() {
        synchronized (stdinLock) {
            if (lifeline != null) {
                try {
                    lifeline.close();
                } catch (IOException e) {
                    // nothing to do: the helper is gone
                }
            }
        }
    }

    /** Reads the helper's own diagnostics (fixed texts, never child output), keeping the first 8 KiB. */
    private static final class HelperDiagnostics implements Runnable {
        private final InputStream err;
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private final CompletableFuture<Void> done = new CompletableFuture<>();

        HelperDiagnostics(InputStream err, ExecutorService threads) {
            this.err = err;
            threads.execute(this);
        }

        @Override
        public void run() {
            byte[] buf = new byte[4096];
            try (err) {
                int n;
                while ((n = err.read(buf)) >= 0) {
                    synchronized (kept) {
                        kept.write(buf, 0, Math.max(0, Math.min(n, HELPER_STDERR_CAP - kept.size())));
                    }
                }
            } catch (IOException e) {
                // the helper is gone
            } finally {
                done.complete(null);
            }
        }

        String text() {
            try {
                done.get(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                // report what arrived so far
            }
            synchronized (kept) {
                StringBuilder sb = new StringBuilder();
                for (byte b : kept.toByteArray()) {
                    sb.append(b == '\n' || (b >= 0x20 && b < 0x7F) ? (char) b : '?');
                }
                return sb.toString();
            }
        }
    }

    // ------------------------------------------------------------------------------------------

    private SupervisionResult buildResult(State st, int helperExit) {
        Duration javaElapsed = Duration.ofNanos(System.nanoTime() - launchedAt);
        HardeningLayer layer = st.spawned != null ? layerOf(st.hello) : HardeningLayer.NONE;
        if (st.failure == null && watchdogFired) {
            st.failure = ErrorCode.CLEANUP_UNKNOWN.name() + ": the watchdog killed the helper";
        }
        Frames.Result r = st.helperResult;
        if (st.failure == null && r != null) {
            int expectedExit = r.proof() == Wire.PROOF_NONE ? Wire.HELPER_EXIT_UNPROVEN : Wire.HELPER_EXIT_PROVEN;
            if (helperExit != expectedExit) {
                st.failure = ErrorCode.SUPERVISOR_DIED.name() + ": helper exit status " + helperExit;
            } else if (r.proof() == Wire.PROOF_NOTHING_STARTED && st.spawned != null) {
                st.failure = ErrorCode.SUPERVISOR_PROTOCOL.name() + ": nothing-started proof after a spawn";
            } else if (st.ownershipFailed && r.proof() != Wire.PROOF_NOTHING_STARTED) {
                st.failure = ErrorCode.SUPERVISOR_PROTOCOL.name() + ": the helper spawned without GO";
            }
        }
        if (st.failure != null || r == null) {
            String detail = st.failure != null
                    ? st.failure
                    : ErrorCode.SUPERVISOR_DIED.name() + ": the helper ended without a result";
            return new SupervisionResult(
                    Outcome.SUPERVISOR_FAILED,
                    ProcessExit.notObserved(),
                    st.stdout.forResult(),
                    st.stderr.forResult(),
                    CleanupEvidence.unproven(st.spawned != null ? 1 : 0, false),
                    layer,
                    javaElapsed,
                    detail);
        }
        if (st.ownershipFailed) {
            return nothingStarted(
                    Outcome.SETUP_FAILED,
                    ErrorCode.STAGING_FAILED.name() + ": the ownership record could not be written");
        }
        Outcome outcome = outcomeOf(r.outcome());
        boolean ran = st.spawned != null;
        CleanupEvidence cleanup;
        if (r.proof() == Wire.PROOF_NONE) {
            cleanup = CleanupEvidence.unproven((int) Math.min(Integer.MAX_VALUE, r.descendantsSeen()), r.detached());
        } else if (!ran) {
            cleanup = CleanupEvidence.nothingStarted();
        } else {
            // With a run cgroup the helper also saw "populated 0" after cgroup.kill, or proved nothing.
            cleanup = new CleanupEvidence(
                    true,
                    (int) Math.min(Integer.MAX_VALUE, r.descendantsSeen()),
                    r.detached(),
                    r.cgroupEmpty() ? "ECHILD+CGROUP_EMPTY" : "ECHILD");
        }
        ProcessExit exit = ProcessExit.notObserved();
        if (ran && r.exitKind() == Wire.EXIT_CODE) {
            exit = ProcessExit.code(r.exitValue());
        } else if (ran && r.exitKind() == Wire.EXIT_SIGNAL) {
            exit = ProcessExit.signal(r.exitValue());
        }
        String detail = "";
        if (r.proof() == Wire.PROOF_NONE) {
            detail = ErrorCode.CLEANUP_UNKNOWN.name() + ": descendants remained at the kill deadline";
        } else if (outcome == Outcome.SETUP_FAILED || outcome == Outcome.SPAWN_FAILED) {
            detail = setupDetail(r);
        }
        return new SupervisionResult(
                outcome,
                exit,
                st.stdout.forResult(),
                st.stderr.forResult(),
                cleanup,
                layer,
                ran ? Duration.ofNanos(r.runNanos()) : javaElapsed,
                detail,
                ran ? confinementOf(st.hello, spec.confinement(), spec.ceilings()) : Confinement.NONE);
    }

    static String setupDetail(Frames.Result r) {
        ErrorCode code;
        switch (r.setupCode()) {
            case Wire.SC_DIGEST_MISMATCH:
            case Wire.SC_CHILD_VERIFY:
                code = ErrorCode.RUNTIME_MISMATCH;
                break;
            case Wire.SC_HARDENING_UNAVAILABLE:
            case Wire.SC_CHILD_LANDLOCK:
                code = ErrorCode.HARDENING_UNAVAILABLE;
                break;
            case Wire.SC_SUBREAPER:
                code = ErrorCode.PROCESS_OWNERSHIP_UNSUPPORTED;
                break;
            case Wire.SC_WORKSPACE_CHANGED:
                code = ErrorCode.WORKSPACE_CHANGED;
                break;
            case Wire.SC_CONFINEMENT_UNAVAILABLE:
            case Wire.SC_CONFINEMENT_PATH:
            case Wire.SC_CHILD_NAMESPACE:
            case Wire.SC_CGROUP_UNUSABLE:
            case Wire.SC_CGROUP_NO_MEMORY:
            case Wire.SC_CGROUP_NO_PIDS:
            case Wire.SC_CGROUP_NO_CPU:
            case Wire.SC_CHILD_CGROUP:
            case Wire.SC_CGROUP_UNGUARDED:
                code = ErrorCode.CONFINEMENT_UNAVAILABLE;
                break;
            case Wire.SC_REQUEST_MALFORMED:
            case Wire.SC_REQUEST_BOUNDS:
            case Wire.SC_PATH_NOT_ABSOLUTE:
            case Wire.SC_ENV_DENIED:
            case Wire.SC_ENV_MALFORMED:
            case Wire.SC_LIFELINE_PROTOCOL:
                code = ErrorCode.SUPERVISOR_REQUEST_REJECTED;
                break;
            default:
                code = ErrorCode.EXEC_SPAWN_FAILED;
                break;
        }
        String errno = Errno.name(r.errno());
        return code.name() + ": " + (r.detail().isEmpty() ? "setup step " + r.setupCode() : r.detail())
                + (errno.isEmpty() ? "" : " (" + errno + ")");
    }

    private SupervisionResult nothingStarted(Outcome outcome, String detail) {
        return new SupervisionResult(
                outcome,
                ProcessExit.notObserved(),
                new byte[0],
                new byte[0],
                CleanupEvidence.nothingStarted(),
                HardeningLayer.NONE,
                Duration.ofNanos(System.nanoTime() - launchedAt),
                detail);
    }

    static Outcome outcomeOf(int code) {
        switch (code) {
            case Wire.OUT_EXITED:
                return Outcome.EXITED;
            case Wire.OUT_SIGNALED:
                return Outcome.SIGNALED;
            case Wire.OUT_TIMED_OUT:
                return Outcome.TIMED_OUT;
            case Wire.OUT_CANCELLED:
                return Outcome.CANCELLED;
            case Wire.OUT_STDOUT_LIMIT:
                return Outcome.STDOUT_LIMIT;
            case Wire.OUT_STDERR_LIMIT:
                return Outcome.STDERR_LIMIT;
            case Wire.OUT_SPAWN_FAILED:
                return Outcome.SPAWN_FAILED;
            case Wire.OUT_SETUP_FAILED:
                return Outcome.SETUP_FAILED;
            default:
                return Outcome.SUPERVISOR_FAILED;
        }
    }

    /** What the hello announced (and the child then applied, or the run failed) for each part. */
    static Confinement confinementOf(Frames.Hello hello, LaunchConfinement asked) {
        return confinementOf(hello, asked, ResourceCeilings.NONE);
    }

    /**
     * As above, with the cgroup limits {@code ceilings} asks for: each enforced when the hello
     * announced it (a delegated cgroup with the controller), otherwise not enforced.
     */
    static Confinement confinementOf(Frames.Hello hello, LaunchConfinement asked, ResourceCeilings ceilings) {
        int parts = hello == null || hello.layer() == Wire.LAYER_NONE ? 0 : hello.parts();
        return new Confinement(
                part(parts, Wire.CONF_PROCESS, true),
                part(parts, Wire.CONF_FS_WRITES, asked.writableDirectories().isPresent()),
                part(parts, Wire.CONF_NET_TCP, asked.tcpConnectPorts().isPresent()),
                part(parts, Wire.CONF_MEMORY, ceilings.memoryBytes().isPresent()),
                part(parts, Wire.CONF_PIDS, ceilings.processes().isPresent()),
                part(parts, Wire.CONF_CPU, ceilings.cpuPercent().isPresent()));
    }

    private static Confinement.Part part(int parts, int bit, boolean asked) {
        if (!asked) {
            return Confinement.Part.NOT_REQUESTED;
        }
        return (parts & bit) != 0 ? Confinement.Part.ENFORCED : Confinement.Part.NOT_ENFORCED;
    }

    static HardeningLayer layerOf(Frames.Hello hello) {
        if (hello == null) {
            return HardeningLayer.NONE;
        }
        switch (hello.layer()) {
            case Wire.LAYER_L2:
                return HardeningLayer.L2;
            case Wire.LAYER_L1:
                return HardeningLayer.L1;
            case Wire.LAYER_L0:
                return HardeningLayer.L0;
            default:
                return HardeningLayer.NONE;
        }
    }

    private void finish(State st, SupervisionResult r, int helperExit) {
        safely(SupervisionListener::settled);
        report.complete(new Report(
                r,
                Optional.ofNullable(st.hello),
                Optional.ofNullable(st.spawned),
                Optional.ofNullable(st.helperResult),
                Optional.ofNullable(st.owner),
                helperExit,
                System.nanoTime() - launchedAt,
                st.diagnostics == null ? "" : st.diagnostics.text()));
        result.complete(r);
    }

    private void safely(Consumer<SupervisionListener> event) {
        try {
            event.accept(listener);
        } catch (RuntimeException e) {
            // Listener faults are ignored by contract.
        }
    }
}
