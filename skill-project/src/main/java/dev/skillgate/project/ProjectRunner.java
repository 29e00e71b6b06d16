package dev.skillgate.project;

import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ErrorGroup;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.ProcessExit;
import dev.skillgate.model.RunId;
import dev.skillgate.model.shared.Text;
import dev.skillgate.project.internal.ProjectStaging;
import dev.skillgate.runner.DirectoryIdentity;
import dev.skillgate.runner.LaunchSpec;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.runner.ProcessSupervisor;
import dev.skillgate.runner.ResourceCeilings;
import dev.skillgate.runner.SupervisedRun;
import dev.skillgate.runner.SupervisionListener;
import dev.skillgate.runner.SupervisionResult;
import dev.skillgate.runner.SupervisorCapabilities;
import java.io.IOException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.apiguardian.api.API;

/**
 * Runs an approved {@link ProjectPlan}: re-inspects the project and refuses any drift of its inputs or
 * the runtime ({@code PROJECT_INPUT_CHANGED}), stages the snapshot privately, and runs the fixed, finite
 * step sequence, one supervised launch per step through the {@link ProcessSupervisor}, each started
 * only after the previous step's tree was proven gone, inside one 180-second wall deadline that keeps
 * the cleanup reserve. Before each step the staged inputs are re-verified against the plan's revision
 * in the supervisor's ownership callback (right before the child starts); after a build the output
 * directory is validated before a test runs.
 *
 * <p>Not a sandbox: the project's code and its dependencies run as the host user. The runner does not
 * check consent; the engine's {@code ProjectGate} does, and hands it only approved plans.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class ProjectRunner {
    private static final Duration WATCHDOG_SLACK = Duration.ofSeconds(10);

    private final Path dataDirectory;
    private final NodeRuntime runtime;
    private final ProcessSupervisor supervisor;

    private ProjectRunner(Path dataDirectory, NodeRuntime runtime, ProcessSupervisor supervisor) {
        this.dataDirectory = dataDirectory;
        this.runtime = runtime;
        this.supervisor = supervisor;
    }

    /** A runner staging under {@code dataDirectory/projects}, running {@code runtime} through {@code supervisor}. */
    public static ProjectRunner of(Path dataDirectory, NodeRuntime runtime, ProcessSupervisor supervisor) {
        Objects.requireNonNull(dataDirectory, "dataDirectory");
        if (!dataDirectory.isAbsolute()) {
            throw new IllegalArgumentException("the data directory must be absolute");
        }
        return new ProjectRunner(
                dataDirectory,
                Objects.requireNonNull(runtime, "runtime"),
                Objects.requireNonNull(supervisor, "supervisor"));
    }

    /** Runs {@code plan} as run {@code run} and waits for its envelope. */
    public ProjectEnvelope run(RunId run, ProjectPlan plan) {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(plan, "plan");
        long start = System.nanoTime();
        Optional<dev.skillgate.model.Sha256Digest> planDigest = Optional.of(plan.digest());
        SupervisorCapabilities caps = supervisor.capabilities();
        if (!caps.available()) {
            ErrorCode code = caps.detail().startsWith(ErrorCode.SUPERVISOR_TAMPERED.name() + ":")
                    ? ErrorCode.SUPERVISOR_TAMPERED
                    : ErrorCode.SUPERVISOR_UNAVAILABLE;
            return refused(run, plan, start, code, "the supervisor cannot run here: " + Text.excerpt(caps.detail()));
        }
        if (!caps.provesCleanup()) {
            return refused(
                    run,
                    plan,
                    start,
                    ErrorCode.PROCESS_OWNERSHIP_UNSUPPORTED,
                    "project runs need a supervisor that proves cleanup");
        }
        NodeRuntime.Verification verification = runtime.verify();
        if (verification instanceof NodeRuntime.Refused r) {
            return ProjectEnvelope.refused(
                    run, planDigest, Optional.of(plan.revision()), List.of(r.reason()), since(start));
        }
        NodeRuntime.Verified verified = (NodeRuntime.Verified) verification;
        boolean sameRuntime = verified.identity()
                        .executable()
                        .equals(plan.runtime().executable())
                && verified.identity().version().equals(plan.runtime().version())
                && verified.identity().binaryDigest().equals(plan.runtime().binaryDigest());
        if (!sameRuntime) {
            return refused(run, plan, start, ErrorCode.PROJECT_INPUT_CHANGED, "the toolchain is not the approved one");
        }
        // Drift: the project is inspected again and must be exactly the approved inputs.
        ProjectInspection now = ProjectInspector.inspect(plan.project(), plan.outputDirectory());
        if (!now.usable()) {
            List<Diagnostic> errors = new ArrayList<>();
            errors.add(Diagnostic.error(ErrorCode.PROJECT_INPUT_CHANGED, "", "the project no longer inspects cleanly"));
            errors.addAll(now.problems());
            return ProjectEnvelope.refused(run, planDigest, Optional.of(plan.revision()), errors, since(start));
        }
        ProjectSnapshot snapshot = now.snapshot().orElseThrow();
        if (!snapshot.digests().equals(plan.inputs()) || !snapshot.revision().equals(plan.revision())) {
            return refused(
                    run,
                    plan,
                    start,
                    ErrorCode.PROJECT_INPUT_CHANGED,
                    "a source, the lockfile, a config or the dependency tree changed since approval");
        }
        ProjectPlan.Selection again = ProjectPlan.select(
                now,
                plan.steps().stream().map(ProjectStep::script).toList(),
                verified.identity(),
                verified.major(),
                verified.minor());
        if (!(again instanceof ProjectPlan.Planned p) || !p.plan().equals(plan)) {
            return refused(
                    run, plan, start, ErrorCode.PROJECT_INPUT_CHANGED, "the steps are no longer the approved ones");
        }

        ProjectStaging staging;
        try {
            staging = ProjectStaging.stage(dataDirectory, run.value(), snapshot.allFiles(), plan.outputDirectory());
        } catch (IOException e) {
            String m = e.getMessage() == null ? "" : e.getMessage();
            ErrorCode code =
                    m.startsWith("DATA_DIRECTORY_UNSAFE:") ? ErrorCode.DATA_DIRECTORY_UNSAFE : ErrorCode.STAGING_FAILED;
            return refused(
                    run,
                    plan,
                    start,
                    code,
                    "the project could not be staged: " + e.getClass().getSimpleName());
        }
        Optional<DirectoryIdentity> cwdIdentity = DirectoryIdentity.of(staging.project());

        List<StepResult> results = new ArrayList<>();
        List<Diagnostic> errors = new ArrayList<>();
        boolean anyStarted = false;
        boolean allProven = true;
        HardeningLayer layer = caps.hardening();
        ExecutionStatus status = ExecutionStatus.SUCCEEDED;
        for (int i = 0; i < plan.steps().size(); i++) {
            ProjectStep step = plan.steps().get(i);
            List<String> argv = plan.argv().get(i);
            if (!step.generatedTests().isEmpty() || i > 0) {
                Optional<String> bad = staging.validateOutput(
                        step.generatedTests(), ProjectLimits.OUTPUT_FILES, ProjectLimits.SNAPSHOT_BYTES);
                if (bad.isPresent()) {
                    errors.add(Diagnostic.error(
                            ErrorCode.PROJECT_OUTPUT_INVALID,
                            plan.outputDirectory().value(),
                            Text.excerpt(bad.get())));
                    status = ExecutionStatus.FAILED;
                    break;
                }
            }
            Duration left = ProjectLimits.TOTAL_WALL.minus(since(start));
            Duration wall = left.minus(ProjectLimits.CLEANUP_RESERVE);
            if (wall.compareTo(Duration.ofSeconds(1)) < 0) {
                errors.add(Diagnostic.error(
                        ErrorCode.EXEC_TIMEOUT,
                        "scripts." + step.script(),
                        "no time is left for this step inside the 180 s deadline"));
                status = ExecutionStatus.TIMED_OUT;
                break;
            }
            AtomicReference<ErrorCode> recorderRefusal = new AtomicReference<>();
            LaunchSpec spec = new LaunchSpec(
                    run,
                    plan.runtime().executable(),
                    plan.runtime().binaryDigest(),
                    argv.subList(1, argv.size()),
                    staging.project(),
                    cwdIdentity,
                    ProjectEnvironment.forJob(staging.home(), staging.tmp()),
                    new byte[0],
                    ProjectLimits.STDOUT_BYTES,
                    ProjectLimits.STDERR_BYTES,
                    wall,
                    ProjectLimits.TERMINATION_GRACE,
                    ProjectLimits.KILL_DEADLINE,
                    ResourceCeilings.NONE,
                    identity -> {
                        // Right before the child starts: the staged inputs are still exactly the approved ones.
                        if (staging.verifyInputs(plan.revision(), ProjectLimits.SNAPSHOT_BYTES)
                                .isPresent()) {
                            recorderRefusal.set(ErrorCode.STAGING_TAMPERED);
                            throw new IOException("launch refused before spawn: STAGING_TAMPERED");
                        }
                    });
            SupervisionResult result = supervise(spec);
            boolean started = result.outcome() != SupervisionResult.Outcome.SETUP_FAILED
                    && result.outcome() != SupervisionResult.Outcome.SPAWN_FAILED;
            anyStarted |= started;
            List<Diagnostic> stepErrors = stepErrors(step, result, Optional.ofNullable(recorderRefusal.get()));
            String stdout = lenient(result.stdout());
            results.add(new StepResult(
                    step.script(),
                    argv,
                    result.outcome(),
                    result.exit(),
                    stdout,
                    lenient(result.stderr()),
                    step.kind() == StepKind.TEST ? TestSummary.parse(stdout) : Optional.empty(),
                    result.cleanup().proven(),
                    result.cleanup().detachedSeen(),
                    result.cleanup().proof(),
                    result.elapsed(),
                    stepErrors));
            if (!result.cleanup().proven()) {
                allProven = false;
            }
            if (!stepErrors.isEmpty()) {
                errors.addAll(stepErrors);
                status = statusOf(result, stepErrors);
                break;
            }
        }
        CleanupStatus cleanup =
                !anyStarted ? CleanupStatus.NOT_STARTED : allProven ? CleanupStatus.PROVEN : CleanupStatus.UNKNOWN;
        Optional<Path> retained = Optional.of(staging.runDir());
        if (allProven && staging.remove().isEmpty()) {
            retained = Optional.empty();
        }
        if (retained.isPresent()) {
            errors.add(Diagnostic.warning(ErrorCode.STAGING_RETAINED, "", "the project staging directory was kept"));
            if (status == ExecutionStatus.SUCCEEDED) {
                status = ExecutionStatus.FAILED;
                errors.add(
                        0,
                        Diagnostic.error(ErrorCode.STAGING_FAILED, "", "the staging directory could not be removed"));
            }
        }
        if (cleanup == CleanupStatus.UNKNOWN) {
            // The same rule as skills: a started tree whose end was not proven is never anything else.
            status = ExecutionStatus.CLEANUP_UNKNOWN;
        } else if (status != ExecutionStatus.SUCCEEDED && !anyStarted && results.isEmpty()) {
            status = ExecutionStatus.REFUSED;
        }
        return new ProjectEnvelope(
                run,
                status,
                planDigest,
                Optional.of(plan.revision()),
                results,
                errors,
                cleanup,
                layer,
                retained,
                since(start));
    }

    private static List<Diagnostic> stepErrors(
            ProjectStep step, SupervisionResult r, Optional<ErrorCode> recorderRefusal) {
        String where = "scripts." + step.script();
        List<Diagnostic> out = new ArrayList<>();
        switch (r.outcome()) {
            case EXITED -> {
                if (!(r.exit() instanceof ProcessExit.Code c) || c.code() != 0) {
                    out.add(Diagnostic.error(
                            ErrorCode.EXEC_NONZERO_EXIT, where, "the step exited with a non-zero code"));
                }
            }
            case SIGNALED ->
                out.add(Diagnostic.error(ErrorCode.EXEC_SIGNALLED, where, "the step was ended by a signal"));
            case TIMED_OUT ->
                out.add(Diagnostic.error(ErrorCode.EXEC_TIMEOUT, where, "the step ran past the job's deadline"));
            case CANCELLED -> out.add(Diagnostic.error(ErrorCode.EXEC_CANCELLED, where, "the step was cancelled"));
            case STDOUT_LIMIT, STDERR_LIMIT ->
                out.add(Diagnostic.error(ErrorCode.OUTPUT_LIMIT, where, "the step's output exceeded its bound"));
            case SPAWN_FAILED ->
                out.add(Diagnostic.error(ErrorCode.EXEC_SPAWN_FAILED, where, "the step could not be started"));
            case SETUP_FAILED ->
                out.add(Diagnostic.error(
                        recorderRefusal.orElse(detailCode(r.detail()).orElse(ErrorCode.SUPERVISOR_REQUEST_REJECTED)),
                        where,
                        "the step was refused before it started: " + Text.excerpt(r.detail())));
            case SUPERVISOR_FAILED ->
                out.add(Diagnostic.error(
                        detailCode(r.detail()).orElse(ErrorCode.SUPERVISOR_DIED),
                        where,
                        "the supervisor failed: " + Text.excerpt(r.detail())));
        }
        if (r.cleanup().detachedSeen()) {
            out.add(Diagnostic.error(
                    ErrorCode.DETACHED_DESCENDANTS, where, "a descendant detached from the step's process group"));
        }
        if (!r.cleanup().proven()) {
            out.add(
                    0,
                    Diagnostic.error(
                            ErrorCode.CLEANUP_UNKNOWN, where, "the end of the step's process tree was not proven"));
        }
        return out;
    }

    private static Optional<ErrorCode> detailCode(String detail) {
        int colon = detail.indexOf(':');
        if (colon < 3) {
            return Optional.empty();
        }
        return ErrorCode.find(detail.substring(0, colon))
                .filter(c -> c.group() == ErrorGroup.RUNTIME
                        || c.group() == ErrorGroup.STAGING
                        || c.group() == ErrorGroup.EXECUTION
                        || c.group() == ErrorGroup.SUPERVISION);
    }

    private static ExecutionStatus statusOf(SupervisionResult r, List<Diagnostic> errors) {
        return switch (r.outcome()) {
            case TIMED_OUT -> ExecutionStatus.TIMED_OUT;
            case CANCELLED -> ExecutionStatus.CANCELLED;
            case STDOUT_LIMIT, STDERR_LIMIT -> ExecutionStatus.OUTPUT_LIMIT;
            default -> ExecutionStatus.FAILED;
        };
    }

    private SupervisionResult supervise(LaunchSpec spec) {
        SupervisedRun r;
        try {
            r = supervisor.launch(spec, SupervisionListener.NONE);
        } catch (RuntimeException e) {
            return failed(
                    SupervisionResult.Outcome.SUPERVISOR_FAILED,
                    "SUPERVISOR_UNAVAILABLE: launch threw " + e.getClass().getSimpleName());
        }
        Duration watchdog = spec.wallTimeout()
                .plus(spec.terminationGrace())
                .plus(spec.killDeadline())
                .plus(WATCHDOG_SLACK);
        try {
            return r.result().toCompletableFuture().get(watchdog.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            r.cancel();
            return failed(
                    SupervisionResult.Outcome.SUPERVISOR_FAILED, "SUPERVISOR_DIED: no result before the watchdog");
        } catch (ExecutionException e) {
            return failed(
                    SupervisionResult.Outcome.SUPERVISOR_FAILED, "SUPERVISOR_DIED: the supervisor's result failed");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            r.cancel();
            return failed(SupervisionResult.Outcome.SUPERVISOR_FAILED, "SUPERVISOR_DIED: interrupted while waiting");
        }
    }

    private static SupervisionResult failed(SupervisionResult.Outcome outcome, String detail) {
        return new SupervisionResult(
                outcome,
                ProcessExit.notObserved(),
                new byte[0],
                new byte[0],
                SupervisionResult.CleanupEvidence.unproven(0, false),
                HardeningLayer.NONE,
                Duration.ZERO,
                detail);
    }

    private static String lenient(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE)
                    .decode(java.nio.ByteBuffer.wrap(bytes))
                    .toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            return "";
        }
    }

    private static ProjectEnvelope refused(RunId run, ProjectPlan plan, long start, ErrorCode code, String message) {
        return ProjectEnvelope.refused(
                run,
                Optional.of(plan.digest()),
                Optional.of(plan.revision()),
                List.of(Diagnostic.error(code, "", message)),
                since(start));
    }

    private static Duration since(long start) {
        return Duration.ofNanos(System.nanoTime() - start);
    }

    @Override
    public String toString() {
        return "ProjectRunner[" + dataDirectory + ", " + supervisor.name() + "]";
    }
}
