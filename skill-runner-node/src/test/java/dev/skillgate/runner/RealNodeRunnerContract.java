package dev.skillgate.runner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.fixtures.NodeFixture;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.ProcessExit;
import dev.skillgate.model.RunId;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The runner's acceptance tests with a real {@code node}, written against any supervisor: where
 * the supervisor proves cleanup the exact status is asserted (and successes carry their output);
 * where it cannot (the portable one) every started run must end {@code CLEANUP_UNKNOWN} with the
 * same causes, the staging directory retained, and the output check must have accepted exactly the
 * expected value — the only thing between such a run and success is the missing proof.
 *
 * <p>Subclasses name the supervisor; the Linux supervisor module can subclass this through the
 * runner's test-jar.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(180)
public abstract class RealNodeRunnerContract {

    /** The supervisor under test. */
    protected abstract ProcessSupervisor supervisor();

    protected final String marker = TestSupport.newMarker();

    protected Path base;

    protected Path root;

    @BeforeAll
    void createRoot() throws IOException {
        base = Files.createTempDirectory("skillgate-runner-test");
        root = TestSupport.hostileRoot(base, marker);
    }

    @AfterAll
    void noSurvivors() throws IOException {
        List<Long> survivors = SurvivorScan.killAll(marker);
        TestSupport.deleteTree(base);
        assertThat(survivors).as("processes left behind").isEmpty();
    }

    protected boolean proves() {
        return supervisor().capabilities().provesCleanup();
    }

    /** A runner on a fresh data directory. */
    protected NodeRunner runner() throws IOException {
        return NodeRunner.builder()
                .dataDirectory(Files.createTempDirectory(root, "data "))
                .runtime(TestSupport.runtime())
                .supervisor(supervisor())
                .acceptUnprovenCleanup(!proves())
                .build();
    }

    protected Path workspace() throws IOException {
        return Files.createTempDirectory(root, "workspace $HOME ");
    }

    protected final class Outcome {
        final ExecutionEnvelope envelope;
        final TestSupport.StrictJsonCheck check;
        final List<ProgressEvent> events;
        final NodeRunner runner;

        Outcome(
                ExecutionEnvelope envelope,
                TestSupport.StrictJsonCheck check,
                List<ProgressEvent> events,
                NodeRunner runner) {
            this.envelope = envelope;
            this.check = check;
            this.events = events;
            this.runner = runner;
        }
    }

    protected Outcome run(Map<PortablePath, byte[]> files, PortablePath entry, String input, int timeoutMs, int maxOut)
            throws Exception {
        return run(files, entry, input, timeoutMs, maxOut, (h, e) -> {});
    }

    protected Outcome run(
            Map<PortablePath, byte[]> files,
            PortablePath entry,
            String input,
            int timeoutMs,
            int maxOut,
            java.util.function.BiConsumer<ExecutionHandle, ProgressEvent> onEvent)
            throws Exception {
        TestSupport.StrictJsonCheck check = new TestSupport.StrictJsonCheck();
        NodeRunRequest request = TestSupport.request(files, entry, input, workspace(), check, timeoutMs, maxOut);
        NodeRunner runner = runner();
        List<ProgressEvent> events = new CopyOnWriteArrayList<>();
        AtomicReference<ExecutionHandle> handle = new AtomicReference<>();
        java.util.concurrent.CountDownLatch ready = new java.util.concurrent.CountDownLatch(1);
        ExecutionHandle h = runner.start(request, e -> {
            events.add(e);
            try {
                ready.await();
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            onEvent.accept(handle.get(), e);
        });
        handle.set(h);
        ready.countDown();
        ExecutionEnvelope envelope = h.envelope().toCompletableFuture().get(150, TimeUnit.SECONDS);
        return new Outcome(envelope, check, events, runner);
    }

    protected Outcome run(NodeFixture fixture, String input, int timeoutMs, int maxOut) throws Exception {
        return run(fixture.asBundle(), fixture.portablePath(), input, timeoutMs, maxOut);
    }

    /** Asserts the end of a started run, adapted to whether the supervisor proves cleanup. */
    protected void assertEnded(Outcome o, ExecutionStatus ifProven, ErrorCode... causes) throws IOException {
        ExecutionEnvelope e = o.envelope;
        List<ErrorCode> expected = new ArrayList<>(List.of(causes));
        if (proves()) {
            assertThat(e.status()).as(e.errors().toString()).isEqualTo(ifProven);
            assertThat(e.errorCodes()).containsExactlyElementsOf(expected);
            assertThat(e.cleanup().status()).isEqualTo(CleanupStatus.PROVEN);
            assertThat(e.cleanup().retainedStaging()).isEmpty();
            assertThat(stagingEntries(o.runner)).isEmpty();
        } else {
            expected.add(ErrorCode.CLEANUP_UNKNOWN);
            expected.add(ErrorCode.STAGING_RETAINED);
            assertThat(e.status()).as(e.errors().toString()).isEqualTo(ExecutionStatus.CLEANUP_UNKNOWN);
            assertThat(e.errorCodes()).containsExactlyElementsOf(expected);
            assertThat(e.cleanup().status()).isEqualTo(CleanupStatus.UNKNOWN);
            assertThat(e.cleanup().retainedStaging())
                    .get()
                    .satisfies(p -> assertThat(p).isDirectory());
            assertThat(e.output()).isEmpty();
        }
        assertThat(e.runtimeVersion()).contains(TestSupport.nodeVersion());
        assertThat(e.revision()).isPresent();
    }

    /** Asserts a positive run: success with the output, or (unproven) only the missing proof in the way. */
    protected void assertPositive(Outcome o, String expectedJson) throws IOException {
        assertEnded(o, ExecutionStatus.SUCCEEDED);
        assertThat(o.envelope.exit()).isEqualTo(ProcessExit.code(0));
        assertThat(o.check.accepted).containsExactly(expectedJson);
        if (proves()) {
            assertThat(o.envelope.output()).contains(expectedJson);
        }
    }

    protected void assertRefused(Outcome o, ErrorCode code) throws IOException {
        assertThat(o.envelope.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(o.envelope.errorCodes()).containsExactly(code);
        assertThat(o.envelope.cleanup().status()).isEqualTo(CleanupStatus.NOT_STARTED);
        assertThat(o.events).noneMatch(ev -> ev instanceof ProgressEvent.Started);
        assertThat(stagingEntries(o.runner)).isEmpty();
        assertThat(o.check.seen).isEmpty();
    }

    protected static List<Path> stagingEntries(NodeRunner runner) throws IOException {
        Path staging = runner.dataDirectory().resolve("staging");
        if (!Files.exists(staging)) {
            return List.of();
        }
        try (var s = Files.list(staging)) {
            return s.toList();
        }
    }

    static final String METACHAR_DATA =
            "{\"s\":\"$(touch /tmp/pwned) `id` ; rm -rf / | & > < ' \\\" \\\\ \\n %s ${HOME} \\u0000 \u00e9\u4e2d\"}";

    @Test
    void anEsModuleRunsWithShellMetacharactersAsPlainJsonData() throws Exception {
        Outcome o = run(NodeFixture.ECHO_MJS, METACHAR_DATA, 30_000, 65_536);
        assertPositive(o, "{\"echo\":" + METACHAR_DATA + "}");
        assertThat(o.events.get(0)).isInstanceOf(ProgressEvent.Staged.class);
        assertThat(o.events.get(1)).isInstanceOf(ProgressEvent.Started.class);
        assertThat(o.events.get(o.events.size() - 1)).isInstanceOf(ProgressEvent.Settled.class);
    }

    @Test
    void aCommonJsModuleRuns() throws Exception {
        Outcome o = run(NodeFixture.ECHO_CJS, "{\"n\":1}", 30_000, 65_536);
        assertPositive(o, "{\"echo\":{\"n\":1},\"kind\":\"object\"}");
    }

    @Test
    void anEntrypointPathWithSpacesAndShellMetacharactersRunsAsOneArgument() throws Exception {
        Map<PortablePath, byte[]> files = new TreeMap<>();
        PortablePath entry = PortablePath.of("dir with space/$(touch x) 'q';&|`id` \"d\".mjs");
        files.put(entry, NodeFixture.ECHO_MJS.bytes());
        files.put(PortablePath.of("SKILL.md"), "---\nname: x\n---\n".getBytes(StandardCharsets.UTF_8));
        Outcome o = run(files, entry, "{\"a\":[1,2]}", 30_000, 65_536);
        assertPositive(o, "{\"echo\":{\"a\":[1,2]}}");
    }

    @RepeatedTest(10)
    void deterministicPositiveOnAFreshDataDirectory() throws Exception {
        Outcome o = run(NodeFixture.ECHO_MJS, "{\"k\":\"v\"}", 30_000, 65_536);
        assertPositive(o, "{\"echo\":{\"k\":\"v\"}}");
    }

    @Test
    void theScriptSeesOnlyTheFixedEnvironmentAndFlagsAndTheRealNode() throws Exception {
        Outcome o = run(NodeFixture.PRINT_ENV, "{}", 30_000, 65_536);
        assertEnded(o, ExecutionStatus.SUCCEEDED);
        String out = o.check.accepted.get(0);
        // The canaries and injection variables are planted in this JVM's environment by the POM.
        assertThat(System.getenv("SKILLGATE_CANARY_SECRET"))
                .as("surefire planted the canary")
                .isNotNull();
        for (String leaked : new String[] {
            "canary", "NODE_OPTIONS", "NODE_PATH", "OPENSSL_CONF", "LD_LIBRARY_PATH", "UV_THREADPOOL", "GITHUB", "AWS"
        }) {
            assertThat(out).doesNotContain(leaked);
        }
        assertThat(out).contains("\"PATH\":\"/usr/bin:/bin\"", "\"LANG\":\"C.UTF-8\"");
        assertThat(out).doesNotContain("\"TZ\"");
        // The fixed flags, then the module guard (decision 0510): --expose-internals where Node has no
        // module.registerHooks, and --import with the guard's data: URL.
        assertThat(out)
                .containsPattern(
                        "\"execArgv\":\\[\"--no-addons\",\"--no-global-search-paths\",\"--disable-proto=delete\","
                                + "\"--unhandled-rejections=strict\",(\"--expose-internals\",)?\"--import\","
                                + "\"data:text/javascript;base64,[A-Za-z0-9+/=]+\"\\]");
        assertThat(out).contains("\"execPath\":\"" + TestSupport.node().toRealPath() + "\"");
        // Exactly SPEC §10's four variables: PATH, HOME, TMPDIR, LANG.
        String env = out.substring(out.indexOf("\"env\":{") + 7, out.indexOf('}', out.indexOf("\"env\":{")));
        assertThat(env.split("\",\"")).hasSize(4);
        assertThat(env).contains("/home\"", "/tmp\"");
    }

    @Test
    void theScriptMayChangeItsCwdAndWriteTheWorkspaceBecauseThisIsNotASandbox() throws Exception {
        TestSupport.StrictJsonCheck check = new TestSupport.StrictJsonCheck();
        Path ws = workspace();
        NodeRunRequest request = TestSupport.request(
                NodeFixture.CHDIR_WRITE_WORKSPACE.asBundle(),
                NodeFixture.CHDIR_WRITE_WORKSPACE.portablePath(),
                "{\"fileName\":\"out $(x).txt\"}",
                ws,
                check,
                30_000,
                65_536);
        NodeRunner r = runner();
        Outcome o = new Outcome(r.run(request), check, List.of(), r);
        assertEnded(o, ExecutionStatus.SUCCEEDED);
        assertThat(ws.resolve("out $(x).txt")).hasContent("written by the script");
        assertThat(check.accepted.get(0))
                .contains("\"nowIn\":\"/\"")
                .contains("\"startedIn\":" + quote(ws.toRealPath()));
    }

    @Test
    void aNonZeroExitWithValidJsonIsAFailureAndTheOutputIsNeverChecked() throws Exception {
        Outcome o = run(NodeFixture.NONZERO_VALID_JSON, "{}", 30_000, 65_536);
        assertEnded(o, ExecutionStatus.FAILED, ErrorCode.EXEC_NONZERO_EXIT);
        assertThat(o.envelope.exit()).isEqualTo(ProcessExit.code(3));
        assertThat(o.check.seen).isEmpty();
    }

    @Test
    void exitZeroWithNoOutputIsAFailure() throws Exception {
        Outcome o = run(NodeFixture.EXIT0_NO_OUTPUT, "{}", 30_000, 65_536);
        assertEnded(o, ExecutionStatus.FAILED, ErrorCode.OUTPUT_EMPTY);
    }

    @Test
    void exitZeroWithTwoJsonValuesIsAFailure() throws Exception {
        Outcome o = run(NodeFixture.TWO_JSON_VALUES, "{}", 30_000, 65_536);
        assertEnded(o, ExecutionStatus.FAILED, ErrorCode.OUTPUT_NOT_JSON);
    }

    @Test
    void exitZeroWithInvalidJsonIsAFailure() throws Exception {
        PortablePath entry = PortablePath.of("bad.mjs");
        Outcome o = run(
                Map.of(entry, "process.stdout.write('{\"a\": nope}')".getBytes(StandardCharsets.UTF_8)),
                entry,
                "{}",
                30_000,
                65_536);
        assertEnded(o, ExecutionStatus.FAILED, ErrorCode.OUTPUT_NOT_JSON);
    }

    @Test
    void invalidUtf8IsAFailureBeforeAnyJsonCheck() throws Exception {
        Outcome o = run(NodeFixture.INVALID_UTF8, "{}", 30_000, 65_536);
        assertEnded(o, ExecutionStatus.FAILED, ErrorCode.OUTPUT_INVALID_UTF8);
        assertThat(o.check.seen).isEmpty();
    }

    @Test
    void outputAtTheLimitPassesAndOneByteMoreFails() throws Exception {
        Outcome at = run(NodeFixture.EXACT_SIZE_OUTPUT, "{\"size\":1024}", 30_000, 1024);
        assertPositive(at, "\"" + "a".repeat(1022) + "\"");
        Outcome over = run(NodeFixture.EXACT_SIZE_OUTPUT, "{\"size\":1025}", 30_000, 1024);
        assertEnded(over, ExecutionStatus.OUTPUT_LIMIT, ErrorCode.OUTPUT_LIMIT);
        assertThat(over.check.seen).isEmpty();
    }

    @Test
    void stderrAtItsFixed16KiBPassesAndOneByteMoreFails() throws Exception {
        // SPEC §15: stderr 16 KiB fixed; excess terminates as an output-limit failure.
        Outcome at = run(NodeFixture.FLOOD_STDERR, "{\"bytes\": 16384}", 30_000, 65_536);
        assertPositive(at, "{\"flooded\":16384}");
        Outcome over = run(NodeFixture.FLOOD_STDERR, "{\"bytes\": 16385}", 30_000, 65_536);
        assertEnded(over, ExecutionStatus.OUTPUT_LIMIT, ErrorCode.OUTPUT_LIMIT);
        assertThat(over.envelope.errors().get(0).location()).isEqualTo("stderr");
    }

    @Test
    void aStderrFloodEndsTheRunAsAnOutputLimit() throws Exception {
        Outcome o = run(NodeFixture.FLOOD_STDERR, "{\"bytes\": 10485760}", 30_000, 65_536);
        assertEnded(o, ExecutionStatus.OUTPUT_LIMIT, ErrorCode.OUTPUT_LIMIT);
        assertThat(o.envelope.errors().get(0).location()).isEqualTo("stderr");
    }

    @Test
    void aScriptSleepingPastTheDeadlineTimesOut() throws Exception {
        Outcome o = run(NodeFixture.SLEEP_PAST_DEADLINE, "{}", 1000, 65_536);
        assertEnded(o, ExecutionStatus.TIMED_OUT, ErrorCode.EXEC_TIMEOUT);
        assertThat(o.events)
                .anyMatch(e ->
                        e instanceof ProgressEvent.Terminating t && t.reason() == SupervisionResult.Outcome.TIMED_OUT);
    }

    @Test
    void partialJsonThenHangTimesOutAndIsNeverParsed() throws Exception {
        Outcome o = run(NodeFixture.PARTIAL_JSON_HANG, "{}", 1000, 65_536);
        assertEnded(o, ExecutionStatus.TIMED_OUT, ErrorCode.EXEC_TIMEOUT);
        assertThat(o.check.seen).isEmpty();
    }

    @Test
    void cancelDuringTheRunTerminatesIt() throws Exception {
        Outcome o = run(
                NodeFixture.SLEEP_PAST_DEADLINE.asBundle(),
                NodeFixture.SLEEP_PAST_DEADLINE.portablePath(),
                "{}",
                60_000,
                65_536,
                (h, e) -> {
                    if (e instanceof ProgressEvent.Started) {
                        h.cancel();
                    }
                });
        assertEnded(o, ExecutionStatus.CANCELLED, ErrorCode.EXEC_CANCELLED);
        assertThat(o.envelope.elapsed()).isLessThan(java.time.Duration.ofSeconds(60));
    }

    @Test
    void cancelBeforeSpawnRefusesAndRemovesTheStaging() throws Exception {
        Outcome o = run(
                NodeFixture.ECHO_MJS.asBundle(), NodeFixture.ECHO_MJS.portablePath(), "{}", 30_000, 65_536, (h, e) -> {
                    if (e instanceof ProgressEvent.Staged) {
                        h.cancel();
                    }
                });
        assertRefused(o, ErrorCode.EXEC_ABORTED);
    }

    @Test
    void aStagedFileTamperedBetweenStagingAndSpawnIsRefused() throws Exception {
        Path ran = root.resolve("tampered-ran-" + System.nanoTime());
        PortablePath entry = PortablePath.of("main.mjs");
        Outcome o = run(
                Map.of(
                        entry,
                        ("import {writeFileSync} from 'node:fs'; writeFileSync(" + quote(ran) + ", 'orig');")
                                .getBytes(StandardCharsets.UTF_8)),
                entry,
                "{}",
                30_000,
                65_536,
                (h, e) -> {
                    if (e instanceof ProgressEvent.Staged s) {
                        Path staged = s.stagingDirectory().resolve("bundle/main.mjs");
                        try {
                            Files.setPosixFilePermissions(staged, PosixFilePermissions.fromString("rw-------"));
                            Files.writeString(
                                    staged,
                                    "import {writeFileSync} from 'node:fs'; writeFileSync(" + quote(ran)
                                            + ", 'tampered');");
                        } catch (IOException ex) {
                            throw new java.io.UncheckedIOException(ex);
                        }
                    }
                });
        assertRefused(o, ErrorCode.STAGING_TAMPERED);
        assertThat(ran).doesNotExist();
    }

    @Test
    void aRuntimeVersionMismatchIsRefusedBeforeStaging() throws Exception {
        TestSupport.StrictJsonCheck check = new TestSupport.StrictJsonCheck();
        NodeRunner r = NodeRunner.builder()
                .dataDirectory(Files.createTempDirectory(root, "data "))
                .runtime(NodeRuntime.pinned(TestSupport.node(), "v18.0.0"))
                .supervisor(supervisor())
                .acceptUnprovenCleanup(!proves())
                .build();
        NodeRunRequest request = TestSupport.request(
                NodeFixture.ECHO_MJS.asBundle(),
                NodeFixture.ECHO_MJS.portablePath(),
                "{}",
                workspace(),
                check,
                30_000,
                100);
        assertRefused(new Outcome(r.run(request), check, List.of(), r), ErrorCode.RUNTIME_MISMATCH);
    }

    @Test
    void inconsistentInputsAreRefusedBeforeAnythingIsStaged() throws Exception {
        TestSupport.StrictJsonCheck check = new TestSupport.StrictJsonCheck();
        NodeRunner r = runner();
        Map<PortablePath, byte[]> files = NodeFixture.ECHO_MJS.asBundle();
        NodeRunRequest good =
                TestSupport.request(files, NodeFixture.ECHO_MJS.portablePath(), "{}", workspace(), check, 30_000, 100);
        NodeRunRequest wrongRevision = new NodeRunRequest(
                good.runId(),
                good.manifest(),
                files,
                new dev.skillgate.model.Revision(dev.skillgate.model.Sha256Digest.hash(new byte[] {9})),
                good.invocation(),
                good.workspace(),
                check);
        assertRefused(new Outcome(r.run(wrongRevision), check, List.of(), r), ErrorCode.CAPTURE_REVISION_MISMATCH);
        NodeRunRequest noWorkspace = new NodeRunRequest(
                RunId.random(),
                good.manifest(),
                files,
                good.revision(),
                good.invocation(),
                root.resolve("absent"),
                check);
        assertRefused(new Outcome(r.run(noWorkspace), check, List.of(), r), ErrorCode.WORKSPACE_UNAVAILABLE);
        NodeRunRequest hugeInput = new NodeRunRequest(
                RunId.random(), good.manifest(), files, good.revision(), new byte[65_537], good.workspace(), check);
        assertRefused(new Outcome(r.run(hugeInput), check, List.of(), r), ErrorCode.JSON_TOO_LARGE);
    }

    static String quote(Path p) {
        return "\"" + p.toString().replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
