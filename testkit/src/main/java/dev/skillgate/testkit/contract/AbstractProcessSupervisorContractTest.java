package dev.skillgate.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.skillgate.fixtures.NodeFixture;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionManifest;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.ProcessExit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Timeout;
import dev.skillgate.runner.ExecutionHandle;
import dev.skillgate.runner.LaunchSpec;
import dev.skillgate.runner.NodeRunRequest;
import dev.skillgate.runner.NodeRunner;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.runner.OutputCheck;
import dev.skillgate.runner.ProcessSupervisor;
import dev.skillgate.runner.ProgressEvent;
import dev.skillgate.runner.ResourceCeilings;
import dev.skillgate.runner.SupervisedRun;
import dev.skillgate.runner.SupervisionListener;
import dev.skillgate.runner.SupervisionResult;
import dev.skillgate.runner.SupervisorCapabilities;
import dev.skillgate.runner.SupervisorIdentity;
import dev.skillgate.testkit.TestNode;
import dev.skillgate.testkit.internal.ObservingSupervisor;
import dev.skillgate.testkit.internal.ProcScan;
import dev.skillgate.testkit.internal.TestTrees;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apiguardian.api.API;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The contract of the {@link ProcessSupervisor} SPI as a reusable test class (a TCK): a platform
 * team that implements a supervisor extends this class, supplies the supervisor and says whether it
 * claims to prove cleanup, and inherits the tests.
 *
 * <pre>{@code
 * class MySupervisorContractTest extends AbstractProcessSupervisorContractTest {
 *     @Override
 *     protected ProcessSupervisor createSupervisor(Path scratchDirectory) {
 *         return new MySupervisor(scratchDirectory);
 *     }
 *
 *     @Override
 *     protected boolean claimsCleanupProof() {
 *         return true;
 *     }
 * }
 * }</pre>
 *
 * <p>Every test runs real {@code node} scripts (the binary {@link TestNode} finds; without one every
 * test is skipped with that reason, as it is when the supervisor reports itself unavailable here)
 * through the public {@link NodeRunner}, so the runner's own checks of a supervisor's answers apply.
 * Between the runner and the supervisor sits an observer that records what crossed the SPI (the
 * {@link LaunchSpec}, the order of the ownership call and the listener events, the
 * {@link SupervisionResult}); it can also hold the ownership call open or make it throw. After every
 * run the invariants below are checked, and on Linux {@code /proc} is scanned for any process that
 * still carries the run's private directory in its environment or command line.
 *
 * <p>What is asserted (the SPI's contract as {@code docs/runner.md} states it):
 * <ul>
 *   <li>capabilities: available here, and {@code provesCleanup()} equals the claim;
 *   <li>ownership: the recorder is called exactly once, before the child starts (held open, the
 *       child must not have run), and the {@code started} event follows it; a throwing recorder
 *       means nothing starts ({@code SETUP_FAILED}/{@code SPAWN_FAILED}, envelope {@code REFUSED},
 *       the script never ran);
 *   <li>bounds: stdout exactly at its limit passes, one byte more ends the run as
 *       {@code STDOUT_LIMIT}; the same for stderr at the runner's 16 KiB; an endless flood is ended;
 *       never more than a limit is handed back;
 *   <li>deadline: the outcome is {@code TIMED_OUT} even for a script that exits 0 on SIGTERM, SIGTERM
 *       comes first, and a script ignoring it is killed no earlier than the grace;
 *   <li>cleanup proof: a supervisor that claims proof reports {@code PROVEN} for a double-fork +
 *       {@code setsid} grandchild and a same-group child that outlive the script, marks them
 *       detached, and no such descendant survives (a {@code /proc} scan on Linux and the file the
 *       grandchild would have written later); one that cannot prove reports {@code UNKNOWN} for every
 *       started run, never {@code PROVEN};
 *   <li>cancellation ends the run as {@code CANCELLED} and the child is gone; a cancel after the
 *       end changes nothing;
 *   <li>called directly (not through the runner): a binary that does not exist is a
 *       {@code SPAWN_FAILED}/{@code SETUP_FAILED} result, not an exception, with no {@code started};
 *   <li>the child sees exactly the spec: environment (nothing added, nothing dropped), flags, entry
 *       point, {@code execPath}, working directory; stdin delivered whole and closed, and a child that
 *       never reads it does not block the run; exit codes and signals reported as such.
 * </ul>
 *
 * <p>Where the supervisor cannot prove cleanup the runner is built with
 * {@code acceptUnprovenCleanup(true)} and every started run must end {@code CLEANUP_UNKNOWN} with the
 * same causes a proving supervisor would produce. Runs are real processes; the whole class took
 * 5–12 s on a shared 2-vCPU machine. Survivors of an unproven run are killed after it (hygiene), so a non-proving
 * supervisor does not leak processes into the build. Not a sandbox test: nothing here checks what a
 * script may read or write.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@org.junit.jupiter.api.Timeout(value = 120, unit = TimeUnit.SECONDS)
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public abstract class AbstractProcessSupervisorContractTest {

    /**
     * The supervisor under test, created once for the class.
     *
     * @param scratchDirectory a private, empty directory the supervisor may use (helper binaries,
     *     state); deleted after the class
     */
    protected abstract ProcessSupervisor createSupervisor(Path scratchDirectory) throws Exception;

    /**
     * Whether the supervisor claims to prove cleanup ({@link SupervisorCapabilities#provesCleanup()}
     * must agree). A supervisor that claims proof is held to {@code PROVEN} for the adversarial trees;
     * one that does not must report {@code UNKNOWN} for every started run.
     */
    protected abstract boolean claimsCleanupProof();

    /** The pinned Node runtime; by default the one {@link TestNode} finds. */
    protected NodeRuntime nodeRuntime() {
        return TestNode.runtime();
    }

    private static final int STDERR_LIMIT = 16 * 1024;

    // First thing: write a flag in the working directory (no stdin read, so it does not wait for the supervisor).
    private static final String STARTED_FLAG_SCRIPT =
            "import { writeFileSync } from 'node:fs';\n" + "writeFileSync('started.flag', 'started');\n"
                    + "process.stdout.write(JSON.stringify({ started: true }));\n";

    private static final String SIGTERM_PROBE_SCRIPT = "import { writeFileSync } from 'node:fs';\n"
            + "process.on('SIGTERM', () => {\n"
            + "  writeFileSync('sigterm.flag', 'SIGTERM');\n"
            + "  process.stdout.write(JSON.stringify({ late: true }));\n"
            + "  process.exit(0);\n"
            + "});\n"
            + "setInterval(() => {}, 1000);\n";

    private static final String SELF_SIGKILL_SCRIPT =
            "process.kill(process.pid, 'SIGKILL');\n" + "setInterval(() => {}, 1000);\n";

    private static final String LAUNCH_PROBE_SCRIPT = "const hex = (s) => Buffer.from(s, 'utf8').toString('hex');\n"
            + "const env = Object.entries(process.env).map(([k, v]) => k + '=' + v).sort().join('\\n');\n"
            + "process.stdout.write(JSON.stringify({\n"
            + "  env: hex(env),\n"
            + "  execArgv: hex(process.execArgv.join('\\n')),\n"
            + "  argv: hex(process.argv.join('\\n')),\n"
            + "  cwd: hex(process.cwd()),\n"
            + "  execPath: hex(process.execPath),\n"
            + "}));\n";

    private Path root;
    private Path scratch;
    private String classTag;
    private ObservingSupervisor supervisor;

    @BeforeAll
    public final void startSupervisor() throws Exception {
        assumeTrue(
                TestNode.available(), "no usable Node binary: set -D" + TestNode.PROPERTY + "=/absolute/path/to/node");
        classTag = "sgtck-" + UUID.randomUUID().toString().substring(0, 12);
        root = Files.createTempDirectory("skillgate-tck-" + classTag + "-");
        // Outside the tagged root: the supervisor's own long-lived processes are not the runs' survivors.
        scratch = Files.createTempDirectory("skillgate-tck-supervisor-");
        ProcessSupervisor underTest = createSupervisor(scratch);
        assertThat(underTest).as("createSupervisor").isNotNull();
        SupervisorCapabilities caps = underTest.capabilities();
        assumeTrue(caps.available(), () -> "the supervisor is not available here: " + caps.detail());
        supervisor = new ObservingSupervisor(underTest);
    }

    @AfterAll
    public final void noSurvivorsAndCleanUp() throws IOException {
        if (root == null) {
            return;
        }
        List<Long> survivors = ProcScan.killAll(classTag);
        TestTrees.delete(root);
        if (scratch != null) {
            TestTrees.delete(scratch);
        }
        assertThat(survivors)
                .as("processes of this contract test still alive at the end (killed now)")
                .isEmpty();
    }

    // ------------------------------------------------------------------------------------------
    // Capabilities

    @Test
    public void itsCapabilitiesMatchTheClaim() {
        SupervisorCapabilities caps = supervisor.capabilities();
        assertThat(supervisor.name()).as("name()").isNotBlank();
        assertThat(caps.available()).isTrue();
        assertThat(caps.provesCleanup())
                .as("capabilities().provesCleanup() must equal claimsCleanupProof()")
                .isEqualTo(claimsCleanupProof());
        assertThat(supervisor.capabilities()).as("capabilities are stable").isEqualTo(caps);
    }

    // ------------------------------------------------------------------------------------------
    // Ownership before start

    @Test
    public void theOwnershipRecorderIsCalledOnceBeforeTheChildStarts() throws Exception {
        Run setup = prepare(script("started-flag.mjs", STARTED_FLAG_SCRIPT), "{}", 10_000, 1024);
        supervisor.recorderMode(new ObservingSupervisor.HoldAndWatch(setup.workspace.resolve("started.flag"), 400));
        Run run;
        try {
            run = execute(setup);
        } finally {
            supervisor.recorderMode(new ObservingSupervisor.PassThrough());
        }
        ObservingSupervisor.Launch launch = run.launch;
        assertThat(launch.ownershipCalls()).as("ownership calls").isEqualTo(1);
        assertThat(launch.childSeenDuringOwnership())
                .as("the child ran while the ownership recorder was still being called")
                .isFalse();
        assertThat(launch.sequence()).containsSubsequence("ownership", "started");
        assertThat(launch.identities().get(0).pid()).isPositive();
        assertEnded(run, ExecutionStatus.SUCCEEDED);
        assertThat(run.check.seen).containsExactly("{\"started\":true}");
        assertThat(setup.workspace.resolve("started.flag")).exists();
    }

    @Test
    public void aThrowingOwnershipRecorderMeansNothingStarts() throws Exception {
        Run setup = prepare(script("started-flag.mjs", STARTED_FLAG_SCRIPT), "{}", 10_000, 1024);
        supervisor.recorderMode(new ObservingSupervisor.Throw());
        Run run;
        try {
            run = execute(setup);
        } finally {
            supervisor.recorderMode(new ObservingSupervisor.PassThrough());
        }
        SupervisionResult result = run.result();
        assertThat(result.outcome())
                .as("a supervisor whose ownership call failed must not start the child")
                .isIn(SupervisionResult.Outcome.SETUP_FAILED, SupervisionResult.Outcome.SPAWN_FAILED);
        assertThat(run.launch.startedPid()).as("started(pid) was reported").isEmpty();
        assertThat(run.envelope.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(run.envelope.cleanup().status()).isEqualTo(CleanupStatus.NOT_STARTED);
        assertThat(run.events).noneMatch(e -> e instanceof ProgressEvent.Started);
        Thread.sleep(500);
        assertThat(setup.workspace.resolve("started.flag"))
                .as("the script ran although ownership was never recorded")
                .doesNotExist();
        assertThat(run.check.seen).isEmpty();
    }

    // ------------------------------------------------------------------------------------------
    // Output bounds

    @Test
    public void stdoutExactlyAtItsLimitPasses() throws Exception {
        Run run = run(fixture(NodeFixture.EXACT_SIZE_OUTPUT), "{\"size\":1024}", 10_000, 1024);
        assertPositive(run, "\"" + "a".repeat(1022) + "\"");
        assertThat(run.result().outcome()).isEqualTo(SupervisionResult.Outcome.EXITED);
        assertThat(run.result().stdoutSize()).isEqualTo(1024);
    }

    @Test
    public void oneStdoutByteOverTheLimitEndsTheRun() throws Exception {
        Run run = run(fixture(NodeFixture.EXACT_SIZE_OUTPUT), "{\"size\":1025}", 10_000, 1024);
        assertEnded(run, ExecutionStatus.OUTPUT_LIMIT, ErrorCode.OUTPUT_LIMIT);
        assertThat(run.result().outcome()).isEqualTo(SupervisionResult.Outcome.STDOUT_LIMIT);
        assertThat(run.envelope.errors().get(0).location()).isEqualTo("stdout");
        assertThat(run.check.seen).isEmpty();
    }

    @Test
    public void anEndlessStdoutFloodIsEndedAndStaysBounded() throws Exception {
        Run run = run(fixture(NodeFixture.FLOOD_STDOUT), "{}", 10_000, 4096);
        assertEnded(run, ExecutionStatus.OUTPUT_LIMIT, ErrorCode.OUTPUT_LIMIT);
        assertThat(run.result().outcome()).isEqualTo(SupervisionResult.Outcome.STDOUT_LIMIT);
    }

    @Test
    public void stderrExactlyAtItsLimitPassesAndOneByteMoreEndsTheRun() throws Exception {
        Run at = run(fixture(NodeFixture.FLOOD_STDERR), "{\"bytes\":" + STDERR_LIMIT + "}", 10_000, 1024);
        assertThat(at.launch.spec().stderrLimit()).isEqualTo(STDERR_LIMIT);
        assertPositive(at, "{\"flooded\":" + STDERR_LIMIT + "}");
        assertThat(at.result().stderrSize()).isEqualTo(STDERR_LIMIT);

        Run over = run(fixture(NodeFixture.FLOOD_STDERR), "{\"bytes\":" + (STDERR_LIMIT + 1) + "}", 10_000, 1024);
        assertEnded(over, ExecutionStatus.OUTPUT_LIMIT, ErrorCode.OUTPUT_LIMIT);
        assertThat(over.result().outcome()).isEqualTo(SupervisionResult.Outcome.STDERR_LIMIT);
        assertThat(over.envelope.errors().get(0).location()).isEqualTo("stderr");
    }

    // ------------------------------------------------------------------------------------------
    // Deadline, SIGTERM, grace, SIGKILL

    @Test
    public void theDeadlineSendsSigtermFirstAndIsReportedAsATimeoutEvenIfTheScriptThenExitsCleanly() throws Exception {
        Run run = run(script("sigterm-probe.mjs", SIGTERM_PROBE_SCRIPT), "{}", 1000, 1024);
        assertEnded(run, ExecutionStatus.TIMED_OUT, ErrorCode.EXEC_TIMEOUT);
        assertThat(run.result().outcome()).isEqualTo(SupervisionResult.Outcome.TIMED_OUT);
        assertThat(run.launch.sequence()).contains("terminating:TIMED_OUT");
        assertThat(run.workspace.resolve("sigterm.flag"))
                .as("the script's SIGTERM handler ran (SIGTERM before SIGKILL)")
                .hasContent("SIGTERM");
        assertThat(run.check.seen)
                .as("a timed-out run's output is never checked")
                .isEmpty();
    }

    @Test
    public void aScriptIgnoringSigtermIsKilledAfterTheGrace() throws Exception {
        Run run = run(fixture(NodeFixture.IGNORE_SIGTERM), "{}", 1000, 1024);
        assertEnded(run, ExecutionStatus.TIMED_OUT, ErrorCode.EXEC_TIMEOUT);
        LaunchSpec spec = run.launch.spec();
        assertThat(run.result().outcome()).isEqualTo(SupervisionResult.Outcome.TIMED_OUT);
        assertThat(run.result().elapsed())
                .as("SIGKILL no earlier than deadline + grace")
                .isGreaterThanOrEqualTo(spec.wallTimeout().plus(spec.terminationGrace()));
        assertChildGone(run);
    }

    // ------------------------------------------------------------------------------------------
    // Cleanup proof

    @Test
    public void aDoubleForkedSetsidGrandchildIsNeverReportedGoneWhileItSurvives() throws Exception {
        Run setup = prepare(fixture(NodeFixture.DETACH_WRITE_LATER), "", 10_000, 1024);
        Path late = setup.workspace.resolve("late.flag");
        Run run = execute(setup.withInput("{\"marker\":" + jsonString(late.toString()) + ",\"delayMs\":1500}"));
        assertOutlivingDescendantHandled(run, late);
    }

    @Test
    public void aSameGroupChildOutlivingTheScriptIsNeverReportedGoneWhileItSurvives() throws Exception {
        Run setup = prepare(fixture(NodeFixture.OUTLIVING_CHILD), "", 10_000, 1024);
        Path late = setup.workspace.resolve("late.flag");
        Run run = execute(setup.withInput("{\"marker\":" + jsonString(late.toString()) + ",\"delayMs\":1500}"));
        assertOutlivingDescendantHandled(run, late);
    }

    private void assertOutlivingDescendantHandled(Run run, Path late) throws Exception {
        CleanupStatus cleanup = run.envelope.cleanup().status();
        if (claimsCleanupProof()) {
            assertThat(cleanup)
                    .as("a supervisor claiming proof must prove the end of a descendant that outlived the script")
                    .isEqualTo(CleanupStatus.PROVEN);
            assertThat(run.result().cleanup().detachedSeen())
                    .as("a descendant outlived the script: detachedSeen")
                    .isTrue();
            assertThat(run.envelope.status()).isNotEqualTo(ExecutionStatus.SUCCEEDED);
            assertThat(run.envelope.errorCodes()).contains(ErrorCode.DETACHED_DESCENDANTS);
        } else {
            assertThat(cleanup).isEqualTo(CleanupStatus.UNKNOWN);
            assertThat(run.envelope.status()).isEqualTo(ExecutionStatus.CLEANUP_UNKNOWN);
        }
        if (cleanup == CleanupStatus.PROVEN) {
            // The survivor scan after the run already found nothing; the flag shows the descendant
            // did not merely hide from /proc (or that there is no /proc here).
            Thread.sleep(2_000);
            assertThat(late)
                    .as("a descendant of a run reported PROVEN wrote its file later")
                    .doesNotExist();
        }
    }

    // ------------------------------------------------------------------------------------------
    // Cancellation

    @Test
    public void cancellationEndsTheRunAndTheChild() throws Exception {
        Run setup = prepare(fixture(NodeFixture.SLEEP_PAST_DEADLINE), "{}", 60_000, 1024);
        Run run = execute(setup, (handle, event) -> {
            if (event instanceof ProgressEvent.Started) {
                handle.cancel();
            }
        });
        assertEnded(run, ExecutionStatus.CANCELLED, ErrorCode.EXEC_CANCELLED);
        assertThat(run.result().outcome()).isEqualTo(SupervisionResult.Outcome.CANCELLED);
        assertThat(run.result().elapsed()).isLessThan(run.launch.spec().wallTimeout());
        assertChildGone(run);
    }

    // ------------------------------------------------------------------------------------------
    // What the child sees

    @Test
    public void theChildSeesExactlyTheEnvironmentArgvAndWorkingDirectoryOfTheSpec() throws Exception {
        Run run = run(script("launch-probe.mjs", LAUNCH_PROBE_SCRIPT), "{}", 10_000, 65_536);
        assertEnded(run, ExecutionStatus.SUCCEEDED);
        LaunchSpec spec = run.launch.spec();
        Map<String, String> seen = hexFields(run.check.seen.get(0));

        List<String> expectedEnv = new ArrayList<>();
        spec.environment().forEach((k, v) -> expectedEnv.add(k + "=" + v));
        expectedEnv.sort(null);
        assertThat(seen.get("env"))
                .as("the child's environment is exactly LaunchSpec.environment()")
                .isEqualTo(String.join("\n", expectedEnv));

        List<String> args = spec.arguments();
        int separator = args.indexOf("--");
        assertThat(separator).as("the runner ends node's options with --").isEqualTo(args.size() - 2);
        assertThat(seen.get("execArgv")).isEqualTo(String.join("\n", args.subList(0, separator)));
        assertThat(seen.get("argv")).isEqualTo(spec.executable() + "\n" + args.get(args.size() - 1));
        assertThat(seen.get("execPath"))
                .isEqualTo(spec.executable().toRealPath().toString());
        assertThat(seen.get("cwd")).isEqualTo(spec.workingDirectory().toString());
    }

    @Test
    public void aWorkingDirectoryReplacedAfterTheRunnerBoundItNeverGetsTheScript() throws Exception {
        // The runner binds the workspace's device and inode before staging; a directory put in its
        // place now must be refused (WORKSPACE_CHANGED), never used as the script's working directory.
        Run prepared = prepare(
                script(
                        "cwd-writer.mjs",
                        "import { writeFileSync } from 'node:fs';\nwriteFileSync('script-was-here', 'x');\n"
                                + "process.stdout.write('{}');\n"),
                "{}",
                10_000,
                65_536);
        Path approved = prepared.workspace.resolveSibling("workspace.approved");
        Run run = execute(prepared, (h, event) -> {
            if (event instanceof ProgressEvent.Staged) {
                try {
                    Files.move(prepared.workspace, approved);
                    Files.createDirectory(prepared.workspace);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        });
        assertThat(run.envelope.status()).as(run.envelope.errors().toString()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(run.envelope.errorCodes()).containsExactly(ErrorCode.WORKSPACE_CHANGED);
        assertThat(run.events).noneMatch(e -> e instanceof ProgressEvent.Started);
        assertThat(prepared.workspace.resolve("script-was-here"))
                .as("the replacement never became the script's directory")
                .doesNotExist();
        assertThat(approved.resolve("script-was-here")).doesNotExist();
    }

    @Test
    public void stdinIsDeliveredWholeAndClosed() throws Exception {
        String input = "{\"s\":\"" + "x".repeat(48_000) + "\",\"u\":\"\u00e9\u4e2d\"}";
        Run run = run(fixture(NodeFixture.ECHO_MJS), input, 10_000, 65_536);
        assertPositive(run, "{\"echo\":" + input + "}");
    }

    @Test
    public void aChildThatNeverReadsStdinDoesNotBlockTheRun() throws Exception {
        String input = "{\"s\":\"" + "y".repeat(60_000) + "\"}";
        Run run = run(fixture(NodeFixture.NEVER_READS_STDIN), input, 10_000, 1024);
        assertPositive(run, "{\"readStdin\":false}");
    }

    @Test
    public void aNonZeroExitIsReportedWithItsCode() throws Exception {
        Run run = run(fixture(NodeFixture.NONZERO_VALID_JSON), "{}", 10_000, 1024);
        assertEnded(run, ExecutionStatus.FAILED, ErrorCode.EXEC_NONZERO_EXIT);
        assertThat(run.result().outcome()).isEqualTo(SupervisionResult.Outcome.EXITED);
        assertThat(run.result().exit()).isEqualTo(ProcessExit.code(3));
        assertThat(run.check.seen).isEmpty();
    }

    @Test
    public void aChildKilledByASignalItDidNotGetFromTheSupervisorIsReportedAsSignaled() throws Exception {
        Run run = run(script("self-sigkill.mjs", SELF_SIGKILL_SCRIPT), "{}", 10_000, 1024);
        assertEnded(run, ExecutionStatus.FAILED, ErrorCode.EXEC_SIGNALLED);
        assertThat(run.result().outcome()).isEqualTo(SupervisionResult.Outcome.SIGNALED);
        assertThat(run.result().exit()).isEqualTo(ProcessExit.signal(9));
    }

    // ------------------------------------------------------------------------------------------
    // The SPI directly

    @Test
    public void anExecutableThatCannotStartIsAResultNotAnException() throws Exception {
        Path workspace = Files.createDirectories(root.resolve("spawn-" + UUID.randomUUID()));
        Path missing = workspace.resolve("no such node");
        List<SupervisorIdentity> recorded = new CopyOnWriteArrayList<>();
        LaunchSpec spec = new LaunchSpec(
                RunId.random(),
                missing,
                Optional.empty(),
                List.of("--version"),
                workspace,
                Map.of("PATH", "/usr/bin:/bin"),
                new byte[0],
                1024,
                STDERR_LIMIT,
                java.time.Duration.ofSeconds(5),
                java.time.Duration.ofSeconds(1),
                LaunchSpec.DEFAULT_KILL_DEADLINE,
                ResourceCeilings.NONE,
                recorded::add);
        List<Long> started = new CopyOnWriteArrayList<>();
        SupervisedRun run = supervisor.launch(spec, new SupervisionListener() {
            @Override
            public void started(long childPid) {
                started.add(childPid);
            }
        });
        SupervisionResult result = run.result().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertThat(result.outcome())
                .as("a binary that does not exist")
                .isIn(SupervisionResult.Outcome.SPAWN_FAILED, SupervisionResult.Outcome.SETUP_FAILED);
        assertThat(result.stdoutSize()).isZero();
        assertThat(started).as("started(pid) for a child that never ran").isEmpty();
        run.cancel();
        run.cancel();
    }

    @Test
    public void cancelAfterTheEndChangesNothing() throws Exception {
        Run run = run(fixture(NodeFixture.ECHO_MJS), "{\"k\":1}", 10_000, 1024);
        assertPositive(run, "{\"echo\":{\"k\":1}}");
        SupervisionResult before = run.result();
        run.launch.run().cancel();
        run.launch.run().cancel();
        assertThat(run.launch.run().result().toCompletableFuture().get(5, TimeUnit.SECONDS))
                .as("the result after a late cancel")
                .isEqualTo(before);
    }

    // ------------------------------------------------------------------------------------------
    // Machinery

    /** One bundle, its input and limits, and (after execution) what happened. */
    private final class Run {
        final Map<PortablePath, byte[]> files;
        final PortablePath entry;
        final String input;
        final int timeoutMs;
        final int maxOut;
        final String tag;
        final Path data;
        final Path workspace;
        final RecordingCheck check = new RecordingCheck();
        final List<ProgressEvent> events = new CopyOnWriteArrayList<>();
        ExecutionEnvelope envelope;
        ObservingSupervisor.Launch launch;

        Run(Map<PortablePath, byte[]> files, PortablePath entry, String input, int timeoutMs, int maxOut)
                throws IOException {
            this(
                    files,
                    entry,
                    input,
                    timeoutMs,
                    maxOut,
                    "run-" + UUID.randomUUID().toString().substring(0, 12));
        }

        private Run(
                Map<PortablePath, byte[]> files,
                PortablePath entry,
                String input,
                int timeoutMs,
                int maxOut,
                String tag)
                throws IOException {
            this.files = files;
            this.entry = entry;
            this.input = input;
            this.timeoutMs = timeoutMs;
            this.maxOut = maxOut;
            this.tag = tag;
            // A hostile-looking name: spaces and shell metacharacters must reach the child as data.
            Path dir = root.resolve(tag + " $(x) 'q'");
            this.data = dir.resolve("data");
            this.workspace = Files.createDirectories(dir.resolve("workspace"));
        }

        Run withInput(String newInput) throws IOException {
            Run copy = new Run(files, entry, newInput, timeoutMs, maxOut, tag);
            return copy;
        }

        SupervisionResult result() {
            return launch.awaitResult(java.time.Duration.ofSeconds(10))
                    .orElseThrow(() -> new AssertionError("the supervisor's result did not complete normally"));
        }
    }

    private record Script(Map<PortablePath, byte[]> files, PortablePath entry) {}

    private static Script fixture(NodeFixture fixture) {
        return new Script(fixture.asBundle(), fixture.portablePath());
    }

    private static Script script(String name, String source) {
        PortablePath entry = PortablePath.of(name);
        return new Script(Map.of(entry, source.getBytes(StandardCharsets.UTF_8)), entry);
    }

    private Run prepare(Script script, String input, int timeoutMs, int maxOut) throws IOException {
        return new Run(script.files(), script.entry(), input, timeoutMs, maxOut);
    }

    private Run run(Script script, String input, int timeoutMs, int maxOut) throws Exception {
        return execute(prepare(script, input, timeoutMs, maxOut));
    }

    private Run execute(Run run) throws Exception {
        return execute(run, (h, e) -> {});
    }

    private Run execute(Run run, java.util.function.BiConsumer<ExecutionHandle, ProgressEvent> onEvent)
            throws Exception {
        NodeRunner runner = NodeRunner.builder()
                .dataDirectory(run.data)
                .runtime(nodeRuntime())
                .supervisor(supervisor)
                .acceptUnprovenCleanup(!claimsCleanupProof())
                .build();
        ExecutionManifest manifest = new ExecutionManifest(
                ExecutionManifest.SCHEMA_VERSION,
                run.entry,
                new ArrayList<>(run.files.keySet()),
                "{\"type\":\"object\"}",
                "{}",
                new Timeout(run.timeoutMs),
                new OutputLimit(run.maxOut));
        NodeRunRequest request = new NodeRunRequest(
                RunId.random(),
                manifest,
                run.files,
                Revision.compute(run.files),
                run.input.getBytes(StandardCharsets.UTF_8),
                run.workspace,
                run.check);
        int before = supervisor.launches().size();
        AtomicReference<ExecutionHandle> handle = new AtomicReference<>();
        CountDownLatch ready = new CountDownLatch(1);
        ExecutionHandle h = runner.start(request, event -> {
            run.events.add(event);
            try {
                ready.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            onEvent.accept(handle.get(), event);
        });
        handle.set(h);
        ready.countDown();
        run.envelope = h.envelope().toCompletableFuture().get(100, TimeUnit.SECONDS);
        List<ObservingSupervisor.Launch> launches = supervisor.launches();
        assertThat(launches.size() - before)
                .as("launches through the supervisor for one run")
                .isEqualTo(1);
        run.launch = launches.get(launches.size() - 1);
        checkInvariants(run);
        return run;
    }

    /** What every run must satisfy, whatever the script did. */
    private void checkInvariants(Run run) {
        ObservingSupervisor.Launch launch = run.launch;
        SupervisionResult result = run.result();
        LaunchSpec spec = launch.spec();
        boolean started = launch.startedPid().isPresent();
        // A survivor scan first, so a failing assertion below never leaves processes behind.
        List<Long> survivors = ProcScan.killAll(run.tag);
        assertThat(result.stdoutSize()).as("stdout handed back").isLessThanOrEqualTo(spec.stdoutLimit());
        assertThat(result.stderrSize()).as("stderr handed back").isLessThanOrEqualTo(spec.stderrLimit());
        if (started) {
            assertThat(launch.ownershipCalls()).as("ownership calls").isEqualTo(1);
            assertThat(launch.sequence())
                    .as("ownership recorded before started(pid)")
                    .containsSubsequence("ownership", "started");
            assertThat(result.outcome())
                    .as("a run that started cannot end as 'nothing started'")
                    .isNotIn(SupervisionResult.Outcome.SETUP_FAILED, SupervisionResult.Outcome.SPAWN_FAILED);
            if (!claimsCleanupProof()) {
                assertThat(result.cleanup().proven())
                        .as("a supervisor that cannot prove cleanup reported it proven")
                        .isFalse();
                assertThat(run.envelope.cleanup().status()).isEqualTo(CleanupStatus.UNKNOWN);
            }
        }
        if (result.cleanup().proven() && started) {
            assertThat(survivors)
                    .as("processes of a run whose cleanup was reported PROVEN were still alive (killed now)")
                    .isEmpty();
        }
    }

    private void assertChildGone(Run run) throws InterruptedException {
        long pid = run.launch.startedPid().orElseThrow(() -> new AssertionError("started(pid) never reported"));
        // Give the JDK a moment to observe a reaped pid; a live child after the result is a violation.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                .as("the child is still alive after the result")
                .isFalse();
    }

    /** The end of a started run, adapted to whether the supervisor proves cleanup. */
    private void assertEnded(Run run, ExecutionStatus ifProven, ErrorCode... causes) {
        ExecutionEnvelope e = run.envelope;
        List<ErrorCode> expected = new ArrayList<>(List.of(causes));
        assertThat(run.launch.startedPid()).as("the child started").isPresent();
        if (claimsCleanupProof()) {
            assertThat(e.status()).as(e.errors().toString()).isEqualTo(ifProven);
            assertThat(e.errorCodes()).containsExactlyElementsOf(expected);
            assertThat(e.cleanup().status()).isEqualTo(CleanupStatus.PROVEN);
            assertThat(e.cleanup().retainedStaging()).isEmpty();
        } else {
            expected.add(ErrorCode.CLEANUP_UNKNOWN);
            expected.add(ErrorCode.STAGING_RETAINED);
            assertThat(e.status()).as(e.errors().toString()).isEqualTo(ExecutionStatus.CLEANUP_UNKNOWN);
            assertThat(e.errorCodes()).containsExactlyElementsOf(expected);
            assertThat(e.cleanup().status()).isEqualTo(CleanupStatus.UNKNOWN);
            assertThat(e.output()).isEmpty();
        }
    }

    /** A positive run: success with exactly this output, or (unproven) only the missing proof in the way. */
    private void assertPositive(Run run, String expectedJson) {
        assertEnded(run, ExecutionStatus.SUCCEEDED);
        assertThat(run.envelope.exit()).isEqualTo(ProcessExit.code(0));
        assertThat(run.check.seen).containsExactly(expectedJson);
        if (claimsCleanupProof()) {
            assertThat(run.envelope.output()).contains(expectedJson);
        }
    }

    /** Accepts any output as its own canonical text and remembers it; the runner's checks run before it. */
    private static final class RecordingCheck implements OutputCheck {
        final List<String> seen = new CopyOnWriteArrayList<>();

        @Override
        public Result check(byte[] stdout) {
            String text = new String(stdout, StandardCharsets.UTF_8);
            seen.add(text);
            return OutputCheck.valid(text);
        }
    }

    private static final Pattern HEX_FIELD = Pattern.compile("\"([A-Za-z]+)\":\"([0-9a-f]*)\"");

    private static Map<String, String> hexFields(String json) {
        Map<String, String> out = new HashMap<>();
        Matcher m = HEX_FIELD.matcher(json);
        while (m.find()) {
            out.put(m.group(1), new String(HexFormat.of().parseHex(m.group(2)), StandardCharsets.UTF_8));
        }
        return out;
    }

    private static String jsonString(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
