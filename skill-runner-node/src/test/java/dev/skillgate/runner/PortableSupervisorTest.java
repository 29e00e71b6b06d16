package dev.skillgate.runner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.fixtures.NodeFixture;
import dev.skillgate.model.ProcessExit;
import dev.skillgate.model.RunId;
import dev.skillgate.runner.SupervisionResult.Outcome;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The portable supervisor against real node processes, through the SPI directly. */
@Timeout(120)
class PortableSupervisorTest {

    static final String MARKER = TestSupport.newMarker();

    @TempDir
    static Path base;

    static Path root;

    @BeforeAll
    static void setUp() throws IOException {
        root = TestSupport.hostileRoot(base, MARKER);
    }

    @AfterAll
    static void noSurvivors() {
        assertThat(SurvivorScan.killAll(MARKER)).as("processes left behind").isEmpty();
    }

    record Run(SupervisionResult result, List<String> events, SupervisorIdentity owner) {}

    static Run run(NodeFixture fixture, String input, int timeoutMs, int stdoutLimit) throws Exception {
        return run(fixture, input.getBytes(StandardCharsets.UTF_8), timeoutMs, stdoutLimit, null);
    }

    static Run run(NodeFixture fixture, byte[] input, int timeoutMs, int stdoutLimit, Runnable afterStart)
            throws Exception {
        Path dir = Files.createTempDirectory(root, "run ");
        Path script = fixture.writeTo(dir);
        List<String> events = new CopyOnWriteArrayList<>();
        AtomicReference<SupervisorIdentity> owner = new AtomicReference<>();
        LaunchSpec spec = new LaunchSpec(
                RunId.random(),
                TestSupport.node(),
                java.util.Optional.empty(),
                List.of("--", script.toString()),
                dir,
                Map.of("HOME", dir.toString(), "TMPDIR", dir.toString()),
                input,
                stdoutLimit,
                16384,
                Duration.ofMillis(timeoutMs),
                Duration.ofMillis(1000),
                Duration.ofSeconds(5),
                ResourceCeilings.NONE,
                id -> {
                    events.add("recorded");
                    owner.set(id);
                });
        SupervisedRun run = PortableSupervisor.create().launch(spec, new SupervisionListener() {
            @Override
            public void started(long childPid) {
                events.add("started");
            }

            @Override
            public void terminating(Outcome reason) {
                events.add("terminating " + reason);
            }

            @Override
            public void settled() {
                events.add("settled");
            }
        });
        if (afterStart != null) {
            afterStart.run();
        }
        SupervisionResult r = run.result().toCompletableFuture().get(60, TimeUnit.SECONDS);
        if (afterStart instanceof Cancel c) {
            c.run.set(run);
        }
        return new Run(r, events, owner.get());
    }

    static final class Cancel implements Runnable {
        final AtomicReference<SupervisedRun> run = new AtomicReference<>();

        @Override
        public void run() {}
    }

    @Test
    void aCleanExitIsObservedButCleanupIsNeverProven() throws Exception {
        Run r = run(NodeFixture.ECHO_MJS, "{\"x\":1}", 30_000, 1000);
        assertThat(r.result.outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r.result.exit()).isEqualTo(ProcessExit.code(0));
        assertThat(new String(r.result.stdout(), StandardCharsets.UTF_8)).isEqualTo("{\"echo\":{\"x\":1}}");
        assertThat(r.result.cleanup().proven()).isFalse();
        assertThat(r.result.cleanup().proof()).isEqualTo("NONE");
        assertThat(r.result.cleanup().descendantsSeen()).isGreaterThanOrEqualTo(1);
        assertThat(r.events).startsWith("recorded", "started").endsWith("settled");
        assertThat(r.owner.pid()).isEqualTo(ProcessHandle.current().pid());
    }

    @Test
    void stdoutAtTheLimitPassesAndOneByteMoreIsAnOverflow() throws Exception {
        Run at = run(NodeFixture.EXACT_SIZE_OUTPUT, "{\"size\":4096}", 30_000, 4096);
        assertThat(at.result.outcome()).isEqualTo(Outcome.EXITED);
        assertThat(at.result.stdoutSize()).isEqualTo(4096);
        Run over = run(NodeFixture.EXACT_SIZE_OUTPUT, "{\"size\":4097}", 30_000, 4096);
        assertThat(over.result.outcome()).isEqualTo(Outcome.STDOUT_LIMIT);
        assertThat(over.result.stdoutSize()).isEqualTo(4096);
    }

    @Test
    void anEndlessStdoutFloodIsStoppedAtTheBound() throws Exception {
        Run r = run(NodeFixture.FLOOD_STDOUT, "{}", 30_000, 65_536);
        assertThat(r.result.outcome()).isEqualTo(Outcome.STDOUT_LIMIT);
        assertThat(r.result.stdoutSize()).isEqualTo(65_536);
        assertThat(r.events).contains("terminating STDOUT_LIMIT");
    }

    @Test
    void aStderrFloodIsAnOverflowAndNeverBlocksTheChild() throws Exception {
        Run r = run(NodeFixture.FLOOD_STDERR, "{\"bytes\": 1048576}", 30_000, 1000);
        assertThat(r.result.outcome()).isEqualTo(Outcome.STDERR_LIMIT);
        assertThat(r.result.stderr()).hasSize(16384);
        Run small = run(NodeFixture.FLOOD_STDERR, "{\"bytes\": 16384}", 30_000, 1000);
        assertThat(small.result.outcome()).isEqualTo(Outcome.EXITED);
    }

    @Test
    void aChildThatNeverReadsStdinCannotDeadlockTheSupervisor() throws Exception {
        byte[] big = new byte[LaunchSpec.MAX_STDIN_BYTES];
        java.util.Arrays.fill(big, (byte) ' ');
        Run r = run(NodeFixture.NEVER_READS_STDIN, big, 30_000, 1000, null);
        assertThat(r.result.outcome()).isEqualTo(Outcome.EXITED);
        assertThat(new String(r.result.stdout(), StandardCharsets.UTF_8)).isEqualTo("{\"readStdin\":false}");
    }

    @Test
    void aChildIgnoringSigtermIsKilledAfterTheGrace() throws Exception {
        Run r = run(NodeFixture.IGNORE_SIGTERM, "{}", 1000, 1000);
        assertThat(r.result.outcome()).isEqualTo(Outcome.TIMED_OUT);
        assertThat(r.result.exit()).isEqualTo(ProcessExit.signal(9));
        // Deadline plus the 1,000 ms grace had to pass before SIGKILL (a lower bound, not a timing target).
        assertThat(r.result.elapsed()).isGreaterThanOrEqualTo(Duration.ofMillis(2000));
        assertThat(r.events).contains("terminating TIMED_OUT");
    }

    @Test
    void closingStdoutIsNotCompletionAndPartialJsonIsReturnedUnparsed() throws Exception {
        Run closed = run(NodeFixture.CLOSE_STDOUT_KEEP_RUNNING, "{}", 1000, 1000);
        assertThat(closed.result.outcome()).isEqualTo(Outcome.TIMED_OUT);
        Run partial = run(NodeFixture.PARTIAL_JSON_HANG, "{}", 1000, 1000);
        assertThat(partial.result.outcome()).isEqualTo(Outcome.TIMED_OUT);
        assertThat(new String(partial.result.stdout(), StandardCharsets.UTF_8)).isEqualTo("{\"partial\": [1, 2, ");
        assertThat(partial.result.exit()).isEqualTo(ProcessExit.signal(15));
    }

    @Test
    void aNonZeroExitIsReportedAsItsCode() throws Exception {
        Run r = run(NodeFixture.NONZERO_VALID_JSON, "{}", 30_000, 1000);
        assertThat(r.result.outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r.result.exit()).isEqualTo(ProcessExit.code(3));
    }

    @Test
    void aVisibleChildThatOutlivesTheScriptIsKilledAndMarksTheRunDetached() throws Exception {
        Path marker = root.resolve("outliving-" + System.nanoTime());
        Run r = run(
                NodeFixture.OUTLIVING_CHILD,
                "{\"marker\": " + json(marker) + ", \"delayMs\": 3000, \"startMs\": 500}",
                30_000,
                1000);
        assertThat(r.result.outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r.result.cleanup().detachedSeen()).isTrue();
        assertThat(r.result.cleanup().descendantsSeen()).isGreaterThanOrEqualTo(2);
        assertThat(r.result.cleanup().proven()).isFalse();
        Thread.sleep(3500);
        assertThat(marker).as("the outliving child was killed before it wrote").doesNotExist();
    }

    @Test
    void aBoundedForkFanOutLeftBehindIsSeenKilledAndMarksTheRunDetached() throws Exception {
        Run r = run(NodeFixture.FORK_FANOUT, "{\"count\": 4, \"holdMs\": 1000}", 30_000, 1000);
        assertThat(r.result.outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r.result.cleanup().descendantsSeen()).isEqualTo(5);
        assertThat(r.result.cleanup().detachedSeen()).isTrue();
        assertThat(r.result.cleanup().proven()).isFalse();
        assertThat(SurvivorScan.find(MARKER)).isEmpty();
    }

    @Test
    void aDoubleForkedDetachedGrandchildEscapesThePortableSupervisorWhichSaysUnknown() throws Exception {
        Path marker = root.resolve("detached-" + System.nanoTime());
        Run r = run(
                NodeFixture.DETACH_WRITE_LATER, "{\"marker\": " + json(marker) + ", \"delayMs\": 1500}", 30_000, 1000);
        assertThat(r.result.outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r.result.cleanup().proven()).isFalse();
        // The known gap, shown honestly: the grandchild is usually re-parented before the 100 ms descendant poll
        // sees it, and then survives and writes. When the poll does catch it, it is killed and the run is marked
        // detached. Either way cleanup is not proven.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!Files.exists(marker) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(Files.exists(marker) || r.result.cleanup().detachedSeen())
                .as("escaped (marker written) or seen and killed (detached)")
                .isTrue();
        SurvivorScan.killAll(MARKER);
    }

    @Test
    void cancelTerminatesTheRun() throws Exception {
        Path dir = Files.createTempDirectory(root, "cancel ");
        Path script = NodeFixture.SLEEP_PAST_DEADLINE.writeTo(dir);
        LaunchSpec spec = new LaunchSpec(
                RunId.random(),
                TestSupport.node(),
                java.util.Optional.empty(),
                List.of(script.toString()),
                dir,
                Map.of("HOME", dir.toString()),
                "{}".getBytes(StandardCharsets.UTF_8),
                100,
                100,
                Duration.ofSeconds(60),
                Duration.ofMillis(1000),
                Duration.ofSeconds(5),
                ResourceCeilings.NONE,
                OwnershipRecorder.none());
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        SupervisedRun run = PortableSupervisor.create().launch(spec, new SupervisionListener() {
            @Override
            public void started(long childPid) {
                started.countDown();
            }
        });
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        run.cancel();
        run.cancel();
        SupervisionResult r = run.result().toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertThat(r.outcome()).isEqualTo(Outcome.CANCELLED);
        assertThat(r.exit()).isEqualTo(ProcessExit.signal(15));
    }

    @Test
    void aFailedOwnershipRecordOrAMissingBinaryStartsNothing() throws Exception {
        Path dir = Files.createTempDirectory(root, "setup ");
        Path script = NodeFixture.ECHO_MJS.writeTo(dir);
        Path proof = dir.resolve("ran");
        LaunchSpec failing = new LaunchSpec(
                RunId.random(),
                TestSupport.node(),
                java.util.Optional.empty(),
                List.of("-e", "require('fs').writeFileSync(" + json(proof) + ", 'x')"),
                dir,
                Map.of(),
                new byte[0],
                100,
                100,
                Duration.ofSeconds(10),
                Duration.ofMillis(1000),
                Duration.ofSeconds(5),
                ResourceCeilings.NONE,
                id -> {
                    throw new IOException("disk full");
                });
        SupervisionResult r = PortableSupervisor.create()
                .launch(failing, SupervisionListener.NONE)
                .result()
                .toCompletableFuture()
                .get(30, TimeUnit.SECONDS);
        assertThat(r.outcome()).isEqualTo(Outcome.SETUP_FAILED);
        assertThat(r.cleanup()).isEqualTo(SupervisionResult.CleanupEvidence.nothingStarted());
        assertThat(proof).doesNotExist();

        LaunchSpec missing = new LaunchSpec(
                RunId.random(),
                dir.resolve("no such node"),
                java.util.Optional.empty(),
                List.of(script.toString()),
                dir,
                Map.of(),
                new byte[0],
                100,
                100,
                Duration.ofSeconds(10),
                Duration.ofMillis(1000),
                Duration.ofSeconds(5),
                ResourceCeilings.NONE,
                OwnershipRecorder.none());
        SupervisionResult m = PortableSupervisor.create()
                .launch(missing, SupervisionListener.NONE)
                .result()
                .toCompletableFuture()
                .get(30, TimeUnit.SECONDS);
        assertThat(m.outcome()).isEqualTo(Outcome.SPAWN_FAILED);
        assertThat(m.detail()).startsWith("EXEC_SPAWN_FAILED:");
    }

    @Test
    void capabilitiesSayItCannotProve() {
        SupervisorCapabilities caps = PortableSupervisor.create().capabilities();
        assertThat(caps.available()).isTrue();
        assertThat(caps.provesCleanup()).isFalse();
        assertThat(PortableSupervisor.create().name()).isEqualTo("portable");
    }

    static String json(Path p) {
        return "\"" + p.toString().replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
