package dev.skillgate.runner.internal;

import dev.skillgate.model.Confinement;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.Limits;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.ProcessExit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.shared.ReusedDaemonThreads;
import dev.skillgate.model.shared.Text;
import dev.skillgate.runner.DirectoryIdentity;
import dev.skillgate.runner.ExecutionHandle;
import dev.skillgate.runner.LaunchConfinement;
import dev.skillgate.runner.LaunchSpec;
import dev.skillgate.runner.NodeRunRequest;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.runner.OwnershipRecorder;
import dev.skillgate.runner.ProcessSupervisor;
import dev.skillgate.runner.ProgressEvent;
import dev.skillgate.runner.ProgressListener;
import dev.skillgate.runner.ResourceCeilings;
import dev.skillgate.runner.SupervisedRun;
import dev.skillgate.runner.SupervisionListener;
import dev.skillgate.runner.SupervisionResult;
import dev.skillgate.runner.SupervisorCapabilities;
import dev.skillgate.runner.SupervisorIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/** One execution: the launch sequence of {@code NodeRunner} on its own daemon thread. */
public final class RunExecution implements ExecutionHandle {

    /** Slack beyond deadline + grace + kill deadline before the runner gives up on a supervisor. */
    static final Duration WATCHDOG_SLACK = Duration.ofSeconds(10);

    private final NodeRunRequest request;
    private final NodeRuntime runtime;
    private final ProcessSupervisor supervisor;
    private final Path dataDirectory;
    private final boolean acceptUnproven;
    private final boolean reportStderr;
    private final ResourceCeilings ceilings;
    private final ProgressListener listener;
    private final long startNanos = System.nanoTime();
    private final CompletableFuture<ExecutionEnvelope> envelope = new CompletableFuture<>();
    private final AtomicReference<SupervisedRun> run = new AtomicReference<>();
    private final AtomicReference<ErrorCode> recorderRefusal = new AtomicReference<>();
    private volatile boolean cancelled;
    private volatile boolean recorded;

    private RunExecution(
            NodeRunRequest request,
            NodeRuntime runtime,
            ProcessSupervisor supervisor,
            Path dataDirectory,
            boolean acceptUnproven,
            boolean reportStderr,
            ResourceCeilings ceilings,
            ProgressListener listener) {
        this.request = request;
        this.runtime = runtime;
        this.supervisor = supervisor;
        this.dataDirectory = dataDirectory;
        this.acceptUnproven = acceptUnproven;
        this.reportStderr = reportStderr;
        this.ceilings = ceilings;
        this.listener = listener;
    }

    /**
     * Starts the launch sequence on a daemon thread of its own for the whole sequence, an idle one of
     * {@link #RUN_THREADS} when there is one (decision 0871).
     */
    public static RunExecution start(
            NodeRunRequest request,
            NodeRuntime runtime,
            ProcessSupervisor supervisor,
            Path dataDirectory,
            boolean acceptUnproven,
            boolean reportStderr,
            ResourceCeilings ceilings,
            ProgressListener listener) {
        RunExecution ex = new RunExecution(
                request, runtime, supervisor, dataDirectory, acceptUnproven, reportStderr, ceilings, listener);
        try {
            RUN_THREADS.start("skillgate-run-" + request.runId(), ex::execute);
        } catch (java.util.concurrent.RejectedExecutionException | OutOfMemoryError noThread) {
            // Nothing was staged or started: the run is refused, as a failed thread start was before.
            ex.envelope.complete(ex.refused(ErrorCode.EXEC_ABORTED, "no thread could be started for the run"));
        }
        return ex;
    }

    /** The name of a run thread between runs. */
    static final String IDLE_NAME = "skillgate-run-idle";

    /**
     * The process-wide run threads (decision 0871, as the engine's execution threads of decision
     * 0816): each run still has a daemon thread to itself for its whole launch sequence, named after
     * the run while it lasts; an idle thread is reused instead of a new one started.
     */
    private static final ReusedDaemonThreads RUN_THREADS = new ReusedDaemonThreads(IDLE_NAME);

    @Override
    public RunId runId() {
        return request.runId();
    }

    @Override
    public void cancel() {
        cancelled = true;
        SupervisedRun r = run.get();
        if (r != null) {
            r.cancel();
        }
    }

    @Override
    public CompletionStage<ExecutionEnvelope> envelope() {
        return envelope.minimalCompletionStage();
    }

    private void execute() {
        try {
            ExecutionEnvelope e = executeChecked();
            emit(new ProgressEvent.Settled(e.status()));
            envelope.complete(e);
        } catch (Throwable t) {
            envelope.completeExceptionally(t);
        }
    }

    private ExecutionEnvelope executeChecked() throws InterruptedException {
        Optional<Revision> revision = Optional.of(request.revision());
        if (cancelled) {
            return refused(ErrorCode.EXEC_ABORTED, "the run was aborted before staging");
        }
        SupervisorCapabilities caps = supervisor.capabilities();
        if (!caps.available()) {
            // A tampered helper is named as such, never as a supervisor that is merely missing.
            ErrorCode code = caps.detail().startsWith(ErrorCode.SUPERVISOR_TAMPERED.name() + ":")
                    ? ErrorCode.SUPERVISOR_TAMPERED
                    : ErrorCode.SUPERVISOR_UNAVAILABLE;
            return refused(code, "the supervisor cannot run here: " + Text.excerpt(caps.detail()));
        }
        if (!caps.provesCleanup() && !acceptUnproven) {
            return refused(
                    ErrorCode.PROCESS_OWNERSHIP_UNSUPPORTED,
                    "the supervisor cannot prove cleanup and the host did not opt in to unproven cleanup");
        }
        Map<PortablePath, byte[]> files = request.files();
        if (!Revision.compute(files).equals(request.revision())) {
            return refused(ErrorCode.CAPTURE_REVISION_MISMATCH, "the files do not hash to the expected revision");
        }
        for (PortablePath p : request.manifest().files()) {
            if (!files.containsKey(p)) {
                return refused(
                        ErrorCode.CAPTURE_FILE_MISSING, p.value(), "a manifest file is not among the captured files");
            }
        }
        if (request.invocation().length > Limits.INVOCATION_BYTES) {
            return refused(ErrorCode.JSON_TOO_LARGE, "the invocation exceeds " + Limits.INVOCATION_BYTES + " bytes");
        }
        Path cwd;
        try {
            if (!Files.isDirectory(request.workspace())) {
                return refused(ErrorCode.WORKSPACE_UNAVAILABLE, "the workspace is not a directory");
            }
            cwd = request.workspace().toRealPath();
        } catch (IOException e) {
            return refused(ErrorCode.WORKSPACE_UNAVAILABLE, "the workspace cannot be resolved");
        }
        // The launch is bound to the workspace's identity, not its path: consent's when the caller passed
        // it, else the directory resolved here. The supervisor checks it where it changes into it.
        Optional<DirectoryIdentity> resolved = DirectoryIdentity.of(cwd);
        if (request.workspaceIdentity().isPresent()
                && !request.workspaceIdentity().equals(resolved)) {
            return refused(ErrorCode.WORKSPACE_CHANGED, "the workspace is no longer the directory that was approved");
        }
        Optional<DirectoryIdentity> workspaceIdentity =
                request.workspaceIdentity().or(() -> resolved);
        // L2 (decision 0541): under workspace-write the workspace becomes writable, so it must not hold the
        // data directory (receipts, audit, other runs' staging) nor lie inside it.
        if (request.contract()
                        .map(c -> c.permissionMode() == PermissionMode.WORKSPACE_WRITE)
                        .orElse(false)
                && overlapsDataDirectory(cwd)) {
            return refused(
                    ErrorCode.CONFINEMENT_UNAVAILABLE,
                    "the workspace contains or lies inside the data directory, which workspace-write would make"
                            + " writable");
        }

        NodeRuntime.Verification verification = runtime.verify();
        if (verification instanceof NodeRuntime.Refused r) {
            return refusedWith(List.of(r.reason()), Optional.empty());
        }
        NodeRuntime.Verified verified = (NodeRuntime.Verified) verification;
        if (!ModuleGuard.supports(verified.major(), verified.minor())) {
            return refused(
                    ErrorCode.RUNTIME_UNAVAILABLE,
                    "Node " + verified.version() + " cannot confine module loading; Node 20.6 or newer is required");
        }
        if (cancelled) {
            return refused(ErrorCode.EXEC_ABORTED, "the run was aborted before staging");
        }

        Staging.StagedRun staged;
        try {
            staged = Staging.stage(
                    dataDirectory,
                    request.runId(),
                    files,
                    new OwnerRecord.Owner(ProcessHandle.current().pid(), ProcessLiveness.currentJvmToken()),
                    Staging.newAttempt());
        } catch (StagingException e) {
            return refused(e.code(), e.getMessage());
        }
        emit(new ProgressEvent.Staged(staged.runDir()));
        if (cancelled) {
            return refusedAfterStaging(staged, ErrorCode.EXEC_ABORTED, "the run was aborted before spawn");
        }
        // The staged files are re-hashed once, in the ownership recorder right before the child starts
        // (decision 0333): a check here as well would only repeat it a few milliseconds earlier.

        // The module guard (decision 0510): its table is the approved capture's digests, taken from the
        // request's bytes, and its root the staged bundle's real path, so that Node's own real paths match it.
        String entryArgument = staged.staged(request.manifest().entrypoint()).toString();
        String guardUrl;
        try {
            guardUrl = ModuleGuard.url(
                    staged.bundle().toRealPath().toString(),
                    entryArgument,
                    request.manifest().entrypoint(),
                    files);
        } catch (IOException | IllegalArgumentException e) {
            return refusedAfterStaging(
                    staged,
                    ErrorCode.STAGING_FAILED,
                    "the module guard could not be prepared: " + e.getClass().getSimpleName());
        }
        List<String> args =
                new ArrayList<>(NodeFlags.forVersion(verified.major(), verified.minor(), Optional.of(guardUrl)));
        args.add(entryArgument);
        LaunchConfinement confinement;
        try {
            // What the approval showed as enforced (the supervisor's stable capabilities) is required:
            // the helper refuses the launch rather than run with less (decision 0540).
            Set<Confinement.Kind> offered = Confinements.offered(supervisor.capabilities());
            confinement = Confinements.requiringLimits(
                    Confinements.forContract(
                                    request.contract(),
                                    staged.home().toRealPath(),
                                    staged.tmp().toRealPath(),
                                    cwd)
                            .requiring(offered),
                    offered,
                    ceilings);
        } catch (IOException e) {
            return refusedAfterStaging(staged, ErrorCode.STAGING_FAILED, "the run's HOME or TMPDIR cannot be resolved");
        }
        OwnershipRecorder recorder = identity -> recordOwnership(staged, identity, files.size());
        LaunchSpec spec = new LaunchSpec(
                request.runId(),
                runtime.executable(),
                runtime.identity().binaryDigest(),
                args,
                cwd,
                workspaceIdentity,
                ChildEnvironment.forRun(staged.home(), staged.tmp()),
                request.invocation(),
                request.manifest().maxOutputBytes().bytes(),
                Limits.STDERR_BYTES,
                request.manifest().timeout().toDuration(),
                Duration.ofMillis(Limits.TERMINATION_GRACE_MILLIS),
                LaunchSpec.DEFAULT_KILL_DEADLINE,
                ceilings,
                recorder,
                confinement);

        SupervisionResult result = supervise(spec);
        if (reportStderr) {
            stderrEvent(result, spec.stderrLimit()).ifPresent(this::emit);
        }
        EnvelopeMapper.Decision decision = EnvelopeMapper.decide(
                result,
                new EnvelopeMapper.Expectations(
                        recorded, Optional.ofNullable(recorderRefusal.get()), spec.stdoutLimit(), spec.stderrLimit()),
                request.outputCheck());
        Optional<Path> retained = Optional.of(staged.runDir());
        if (decision.mayRemoveStaging() && staged.remove().isEmpty()) {
            retained = Optional.empty();
        }
        return decision.toEnvelope(
                request.runId(),
                revision,
                Optional.of(verified.version()),
                verified.identity().binaryDigest(),
                elapsed(),
                retained);
    }

    /**
     * The script's stderr for a host that asked for it (decision 0632): only when the script was
     * started. Truncated when it overflowed (which ended the run), or when the capture is full and the
     * run ended otherwise than by the script's own exit, so that later bytes may have been dropped.
     */
    static Optional<ProgressEvent> stderrEvent(SupervisionResult result, int limit) {
        boolean started = switch (result.outcome()) {
            case EXITED, SIGNALED, TIMED_OUT, CANCELLED, STDOUT_LIMIT, STDERR_LIMIT, SUPERVISOR_FAILED -> true;
            case SPAWN_FAILED, SETUP_FAILED -> false;
        };
        if (!started) {
            return Optional.empty();
        }
        boolean exited = result.outcome() == SupervisionResult.Outcome.EXITED
                || result.outcome() == SupervisionResult.Outcome.SIGNALED;
        boolean truncated =
                result.outcome() == SupervisionResult.Outcome.STDERR_LIMIT || (result.stderrSize() >= limit && !exited);
        return Optional.of(new ProgressEvent.Stderr(result.stderr(), truncated));
    }

    private boolean overlapsDataDirectory(Path workspace) {
        Path data;
        try {
            data = dataDirectory.toRealPath();
        } catch (IOException e) {
            data = dataDirectory.toAbsolutePath().normalize();
        }
        return data.startsWith(workspace) || workspace.startsWith(data);
    }

    private SupervisionResult supervise(LaunchSpec spec) throws InterruptedException {
        SupervisedRun r;
        try {
            r = supervisor.launch(spec, bridge());
        } catch (RuntimeException e) {
            // A supervisor must not throw; whether it started anything is unknown unless it never asked to record
            // ownership.
            return failedSupervisor(
                    "SUPERVISOR_UNAVAILABLE: launch threw " + e.getClass().getSimpleName());
        }
        run.set(r);
        if (cancelled) {
            r.cancel();
        }
        Duration watchdog = spec.wallTimeout()
                .plus(spec.terminationGrace())
                .plus(spec.killDeadline())
                .plus(WATCHDOG_SLACK);
        try {
            return r.result().toCompletableFuture().get(watchdog.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            r.cancel();
            return failedSupervisor("SUPERVISOR_DIED: no result before the runner's watchdog");
        } catch (ExecutionException e) {
            return failedSupervisor("SUPERVISOR_DIED: the supervisor's result failed");
        }
    }

    private SupervisionResult failedSupervisor(String detail) {
        if (!recorded) {
            return new SupervisionResult(
                    SupervisionResult.Outcome.SETUP_FAILED,
                    ProcessExit.notObserved(),
                    new byte[0],
                    new byte[0],
                    SupervisionResult.CleanupEvidence.nothingStarted(),
                    HardeningLayer.NONE,
                    Duration.ZERO,
                    detail);
        }
        return new SupervisionResult(
                SupervisionResult.Outcome.SUPERVISOR_FAILED,
                ProcessExit.notObserved(),
                new byte[0],
                new byte[0],
                SupervisionResult.CleanupEvidence.unproven(0, false),
                HardeningLayer.NONE,
                Duration.ZERO,
                detail);
    }

    private void recordOwnership(Staging.StagedRun staged, SupervisorIdentity identity, int fileCount)
            throws IOException {
        if (cancelled) {
            throw refuse(ErrorCode.EXEC_ABORTED);
        }
        try {
            staged.recordSupervisor(identity);
        } catch (IOException e) {
            throw refuse(ErrorCode.STAGING_FAILED);
        }
        if (staged.verify(request.revision(), fileCount).isPresent()) {
            throw refuse(ErrorCode.STAGING_TAMPERED);
        }
        if (cancelled) {
            throw refuse(ErrorCode.EXEC_ABORTED);
        }
        recorded = true;
    }

    private IOException refuse(ErrorCode code) {
        recorderRefusal.compareAndSet(null, code);
        return new IOException("launch refused before spawn: " + code);
    }

    private SupervisionListener bridge() {
        return new SupervisionListener() {
            @Override
            public void started(long childPid) {
                emit(new ProgressEvent.Started(childPid));
            }

            @Override
            public void outputBytes(long stdoutBytes, long stderrBytes) {
                emit(new ProgressEvent.OutputBytes(stdoutBytes, stderrBytes));
            }

            @Override
            public void terminating(SupervisionResult.Outcome reason) {
                emit(new ProgressEvent.Terminating(reason));
            }
        };
    }

    private void emit(ProgressEvent event) {
        try {
            listener.onEvent(event);
        } catch (RuntimeException e) {
            // A faulty listener never changes the outcome.
        }
    }

    private ExecutionEnvelope refusedAfterStaging(Staging.StagedRun staged, ErrorCode code, String message) {
        return refusedAfterStaging(staged, Diagnostic.error(code, "", message));
    }

    private ExecutionEnvelope refusedAfterStaging(Staging.StagedRun staged, Diagnostic reason) {
        Optional<Path> retained = staged.remove().isPresent() ? Optional.of(staged.runDir()) : Optional.empty();
        return refusedWith(List.of(reason), retained);
    }

    private ExecutionEnvelope refused(ErrorCode code, String message) {
        return refused(code, "", message);
    }

    private ExecutionEnvelope refused(ErrorCode code, String location, String message) {
        return refusedWith(List.of(Diagnostic.error(code, location, message)), Optional.empty());
    }

    private ExecutionEnvelope refusedWith(List<Diagnostic> errors, Optional<Path> retained) {
        return new EnvelopeMapper.Decision(
                        ExecutionStatus.REFUSED,
                        errors,
                        Optional.empty(),
                        dev.skillgate.model.CleanupStatus.NOT_STARTED,
                        0,
                        false,
                        ProcessExit.notObserved(),
                        HardeningLayer.NONE)
                .toEnvelope(
                        request.runId(),
                        Optional.of(request.revision()),
                        Optional.empty(),
                        Optional.empty(),
                        elapsed(),
                        retained);
    }

    private Duration elapsed() {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }
}
