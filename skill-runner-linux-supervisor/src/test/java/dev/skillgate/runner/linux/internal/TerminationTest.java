package dev.skillgate.runner.linux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.ProcessExit;
import dev.skillgate.runner.ResourceCeilings;
import dev.skillgate.runner.SupervisionListener;
import dev.skillgate.runner.SupervisionResult;
import dev.skillgate.runner.SupervisionResult.Outcome;
import java.io.FileOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reference §10 rows about how a run ends: deadlines, signals, output limits, stdin, exit codes,
 * cancellation and resource ceilings. The supervisor reports bytes and outcomes; deciding that
 * empty or doubled JSON is a protocol error is the runner's job, so those rows assert that the exact
 * bytes come back unparsed.
 */
@EnabledOnOs(OS.LINUX)
@ExtendWith(Tags.class)
class TerminationTest {
    @TempDir
    static Path data;

    @TempDir
    static Path runs;

    static SupervisorCore core;

    @BeforeAll
    static void prepare() {
        core = SupervisorCore.prepare(data, Wire.POLICY_PREFER, HelperLauncher.direct());
        assertThat(core.capabilities().available())
                .as(core.capabilities().detail())
                .isTrue();
    }

    @Test
    void row3_ignoresSigtermIsKilledAfterTheGrace() throws Exception {
        TestRun t = TestRun.of(runs, "ignore-term.mjs");
        t.wall = Duration.ofSeconds(1);
        t.grace = Duration.ofSeconds(1);
        List<Outcome> terminating = new ArrayList<>();
        HelperRun run = t.launch(core, new SupervisionListener() {
            @Override
            public void terminating(Outcome reason) {
                terminating.add(reason);
            }
        });
        HelperRun.Report r = TestRun.await(run);

        assertThat(r.result().outcome()).isEqualTo(Outcome.TIMED_OUT);
        assertThat(terminating).containsExactly(Outcome.TIMED_OUT);
        assertThat(r.result().exit()).isEqualTo(ProcessExit.signal(9));
        assertThat(r.result().cleanup().proven()).isTrue();
        // Not a timing assertion: the run cannot have ended before wall + grace.
        assertThat(r.result().elapsed()).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void row4_closedStdoutAndStderrAreNotCompletion() throws Exception {
        TestRun t = TestRun.of(runs, "close-stdio.mjs");
        t.wall = Duration.ofSeconds(1);
        HelperRun.Report r = t.run(core);

        assertThat(r.result().outcome()).isEqualTo(Outcome.TIMED_OUT);
        assertThat(r.result().exit()).isEqualTo(ProcessExit.signal(15));
        assertThat(r.result().cleanup().proven()).isTrue();
    }

    @Test
    void row5_partialJsonThenHangTimesOutWithThePartialBytes() throws Exception {
        TestRun t = TestRun.of(runs, "partial.mjs");
        t.wall = Duration.ofSeconds(1);
        HelperRun.Report r = t.run(core);

        assertThat(r.result().outcome()).isEqualTo(Outcome.TIMED_OUT);
        assertThat(new String(r.result().stdout(), StandardCharsets.UTF_8)).isEqualTo("{\"partial\": ");
        assertThat(r.result().cleanup().proven()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"empty", "two", "garbage", "utf8"})
    void rows6to8_outputIsReturnedExactlyAndUnparsed(String mode) throws Exception {
        TestRun t = TestRun.of(runs, "bytes.mjs", mode);
        HelperRun.Report r = t.run(core);

        byte[] expected;
        switch (mode) {
            case "empty":
                expected = new byte[0];
                break;
            case "two":
                expected = "{\"a\":1}{\"b\":2}".getBytes(StandardCharsets.UTF_8);
                break;
            case "garbage":
                expected = "{\"a\":1} trailing".getBytes(StandardCharsets.UTF_8);
                break;
            default:
                expected = new byte[] {0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, (byte) 0xff, (byte) 0xfe, 0x22, 0x7d};
        }
        assertThat(r.result().outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r.result().exit()).isEqualTo(ProcessExit.code(0));
        assertThat(r.result().stdout()).isEqualTo(expected);
        assertThat(r.result().cleanup().proven()).isTrue();
    }

    @Test
    void row9_stdoutOverLimitEndsTheRunWithExactlyTheLimitKept() throws Exception {
        TestRun t = TestRun.of(runs, "flood.mjs", "stdout");
        t.stdoutLimit = 262_144;
        HelperRun.Report r = t.run(core);

        assertThat(r.result().outcome()).isEqualTo(Outcome.STDOUT_LIMIT);
        assertThat(r.result().stdoutSize()).isEqualTo(262_144);
        assertThat(r.helperResult().orElseThrow().stdoutTotal()).isGreaterThan(262_144);
        assertThat(r.result().cleanup().proven()).isTrue();
    }

    @Test
    void row9_oneByteOverASmallLimitIsAnOverflow() throws Exception {
        TestRun t = TestRun.of(runs, "bytes.mjs", "two");
        t.stdoutLimit = 13; // the fixture writes 14 bytes
        HelperRun.Report r = t.run(core);

        assertThat(r.result().outcome()).isEqualTo(Outcome.STDOUT_LIMIT);
        assertThat(r.result().stdoutSize()).isEqualTo(13);
        assertThat(r.result().cleanup().proven()).isTrue();

        TestRun exact = TestRun.of(runs, "bytes.mjs", "two");
        exact.stdoutLimit = 14;
        assertThat(exact.run(core).result().outcome()).isEqualTo(Outcome.EXITED);
    }

    @Test
    void row10_stderrFloodEndsAsAnOutputLimitPerSpec() throws Exception {
        // SPEC §15 (stderr 16 KiB fixed; excess terminates as output-limit failure) overrides the
        // reference's "truncate and keep draining".
        TestRun t = TestRun.of(runs, "flood.mjs", "stderr");
        HelperRun.Report r = t.run(core);

        assertThat(r.result().outcome()).isEqualTo(Outcome.STDERR_LIMIT);
        assertThat(r.result().stderr()).hasSize(16 * 1024);
        assertThat(r.result().stdoutSize()).isZero();
        assertThat(r.result().cleanup().proven()).isTrue();
    }

    @Test
    void row11_scriptThatNeverReadsALargePayloadDoesNotDeadlock() throws Exception {
        TestRun t = TestRun.of(runs, "no-stdin.mjs");
        t.stdin = new byte[1024 * 1024];
        Arrays.fill(t.stdin, (byte) 'x');
        HelperRun.Report r = t.run(core);

        assertThat(r.result().outcome()).isEqualTo(Outcome.EXITED);
        assertThat(new String(r.result().stdout(), StandardCharsets.UTF_8)).isEqualTo("{\"ok\":true}");
        assertThat(r.result().cleanup().proven()).isTrue();
    }

    @Test
    void stdinPayloadArrivesWhole() throws Exception {
        TestRun t = TestRun.of(runs, "ok.mjs");
        t.stdin = new byte[1024 * 1024];
        HelperRun.Report r = t.run(core);

        assertThat(new String(r.result().stdout(), StandardCharsets.UTF_8))
                .isEqualTo("{\"ok\":true,\"stdinBytes\":1048576}");
    }

    @Test
    void row12_nonZeroExitWithJson() throws Exception {
        HelperRun.Report r = TestRun.of(runs, "exit.mjs", "code3").run(core);
        assertThat(r.result().outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r.result().exit()).isEqualTo(ProcessExit.code(3));
        assertThat(new String(r.result().stdout(), StandardCharsets.UTF_8)).isEqualTo("{\"ok\":false}");
    }

    @Test
    void row12_uncaughtExceptionExitsOneWithAStackOnStderr() throws Exception {
        HelperRun.Report r = TestRun.of(runs, "exit.mjs", "throw").run(core);
        assertThat(r.result().outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r.result().exit()).isEqualTo(ProcessExit.code(1));
        assertThat(new String(r.result().stderr(), StandardCharsets.UTF_8)).contains("fixture failure");
    }

    @Test
    void row12_abortIsSignalSixWithoutACoreFile() throws Exception {
        TestRun t = TestRun.of(runs, "exit.mjs", "abort");
        HelperRun.Report r = t.run(core);
        assertThat(r.result().outcome()).isEqualTo(Outcome.SIGNALED);
        assertThat(r.result().exit()).isEqualTo(ProcessExit.signal(6));
        try (var files = Files.list(t.dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("core"));
        }
    }

    @Test
    void row13_killingItsOwnProcessGroupLeavesTheSupervisorUnaffected() throws Exception {
        HelperRun.Report r = TestRun.of(runs, "kill-group.mjs").run(core);
        assertThat(r.result().outcome()).isEqualTo(Outcome.SIGNALED);
        assertThat(r.result().exit()).isEqualTo(ProcessExit.signal(9));
        assertThat(r.result().cleanup().proven()).isTrue();
        assertThat(r.helperExit()).isZero();
    }

    @Test
    void row26_cancelFromJavaEndsTheTreeWithProof() throws Exception {
        TestRun t = TestRun.of(runs, "hang.mjs", "main", "detach");
        HelperRun run = t.launch(core, SupervisionListener.NONE);
        t.awaitFile("hang.ready");
        run.cancel();
        run.cancel(); // idempotent
        HelperRun.Report r = TestRun.await(run);

        assertThat(r.result().outcome()).isEqualTo(Outcome.CANCELLED);
        assertThat(r.result().cleanup().proven()).isTrue();
        assertThat(r.result().cleanup().detachedSeen()).isTrue();
        run.cancel(); // a no-op after the end
    }

    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT", "HUP"})
    void row26_signalsToTheSupervisorMeanCancel(String signal) throws Exception {
        TestRun t = TestRun.of(runs, "hang.mjs", "main", "detach");
        HelperRun run = t.launch(core, SupervisionListener.NONE);
        t.awaitFile("hang.ready");
        long helper = t.fsyncRecorder.recorded.get().pid();
        Process kill = new ProcessBuilder("/bin/kill", "-" + signal, Long.toString(helper)).start();
        assertThat(kill.waitFor()).isZero();
        HelperRun.Report r = TestRun.await(run);

        assertThat(r.result().outcome()).isEqualTo(Outcome.CANCELLED);
        assertThat(r.result().cleanup().proven()).isTrue();
        assertThat(r.helperExit()).isZero();
    }

    @Test
    void row33_anOutsideHolderOfTheStdoutPipeDelaysTheDrainOnlyBoundedly() throws Exception {
        TestRun t = TestRun.of(runs, "hang.mjs");
        long[] child = new long[1];
        HelperRun run = t.launch(core, new SupervisionListener() {
            @Override
            public void started(long childPid) {
                child[0] = childPid;
            }
        });
        t.awaitFile("hang.ready");
        // This JVM (outside the tree) takes a second write end of the script's stdout pipe. In L2 the
        // helper's child is the PID namespace's init, whose stdout is /dev/null; the script is its child.
        long script = child[0];
        if (!Files.readSymbolicLink(Path.of("/proc/" + script + "/fd/1"))
                .toString()
                .startsWith("pipe:")) {
            String kids = Files.readString(Path.of("/proc/" + script + "/task/" + script + "/children"))
                    .trim();
            script = Long.parseLong(kids.split(" ")[0]);
        }
        try (FileOutputStream holder = new FileOutputStream("/proc/" + script + "/fd/1")) {
            run.cancel();
            HelperRun.Report r = TestRun.await(run);
            assertThat(r.result().outcome()).isEqualTo(Outcome.CANCELLED);
            assertThat(r.result().cleanup().proven()).isTrue();
            assertThat(r.helperResult().orElseThrow().pipesLeftOpen()).isEqualTo(1);
            assertThat(holder.getFD().valid()).isTrue();
        }
    }

    @Test
    void row30_cpuCeilingEndsASpinWithSigxcpu() throws Exception {
        TestRun t = TestRun.of(runs, "limits.mjs", "cpu");
        t.ceilings = new ResourceCeilings(
                OptionalLong.of(1), OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty());
        HelperRun.Report r = t.run(core);
        assertThat(r.result().outcome()).isEqualTo(Outcome.SIGNALED);
        assertThat(r.result().exit()).isEqualTo(ProcessExit.signal(24));
        assertThat(r.result().cleanup().proven()).isTrue();
    }

    @Test
    void row30_fileSizeCeilingFailsWritesWithEfbig() throws Exception {
        TestRun t = TestRun.of(runs, "limits.mjs", "fsize");
        t.ceilings = new ResourceCeilings(
                OptionalLong.empty(), OptionalLong.empty(), OptionalLong.of(1024 * 1024), OptionalLong.empty());
        HelperRun.Report r = t.run(core);
        assertThat(r.result().outcome()).isEqualTo(Outcome.EXITED);
        assertThat(new String(r.result().stdout(), StandardCharsets.UTF_8))
                .isEqualTo("{\"result\":\"EFBIG\",\"written\":1048576}");
    }

    @Test
    void row30_openFilesCeilingGivesEmfile() throws Exception {
        TestRun t = TestRun.of(runs, "limits.mjs", "nofile");
        t.ceilings = new ResourceCeilings(
                OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), OptionalLong.of(64));
        HelperRun.Report r = t.run(core);
        assertThat(r.result().outcome()).isEqualTo(Outcome.EXITED);
        assertThat(new String(r.result().stdout(), StandardCharsets.UTF_8)).startsWith("{\"result\":\"EMFILE\"");
    }

    @Test
    void row30_dataCeilingFailsAHugeAllocationWithoutHarmingTheJvm() throws Exception {
        TestRun t = TestRun.of(runs, "limits.mjs", "data");
        t.ceilings = new ResourceCeilings(
                OptionalLong.empty(), OptionalLong.of(512L * 1024 * 1024), OptionalLong.empty(), OptionalLong.empty());
        HelperRun.Report r = t.run(core);
        SupervisionResult res = r.result();
        assertThat(res.cleanup().proven()).isTrue();
        // Node either reports the failed allocation or dies of it; it never gets the memory.
        String out = new String(res.stdout(), StandardCharsets.UTF_8);
        assertThat(out).doesNotContain("\"OK\"");
        assertThat(res.outcome()).isIn(Outcome.EXITED, Outcome.SIGNALED);
    }
}
