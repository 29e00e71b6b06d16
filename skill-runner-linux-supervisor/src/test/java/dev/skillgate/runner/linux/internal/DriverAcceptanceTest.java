package dev.skillgate.runner.linux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.ProcessExit;
import dev.skillgate.runner.SupervisedRun;
import dev.skillgate.runner.SupervisionListener;
import dev.skillgate.runner.SupervisionResult;
import dev.skillgate.runner.SupervisionResult.CleanupEvidence;
import dev.skillgate.runner.SupervisionResult.Outcome;
import dev.skillgate.runner.SupervisorIdentity;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Java side's acceptance rule (docs/supervision.md): a result is trusted only if the frames parse
 * in order within their caps, the end frame's CRC-32C matches, nothing follows it, the helper's
 * identity is the process that was started, and its exit status matches the proof. A fake helper (a
 * real Node process speaking the protocol) misbehaves in one way per case. Also: the start barrier,
 * a failing ownership record, the watchdog, helper tampering and listener events.
 */
@EnabledOnOs(OS.LINUX)
@ExtendWith(Tags.class)
class DriverAcceptanceTest {
    @TempDir
    static Path data;

    @TempDir
    static Path runs;

    static SupervisorCore core;

    @BeforeAll
    static void prepare() {
        core = SupervisorCore.prepare(data, Wire.POLICY_PREFER, HelperLauncher.direct());
        assertThat(core.capabilities().available()).isTrue();
    }

    static HelperLauncher fake(String scenario) {
        return HelperLauncher.substitute((ignored, args) -> {
            ProcessBuilder pb = new ProcessBuilder(
                    TestRun.NODE.toString(), TestRun.fixture("fake-helper.mjs").toString(), scenario);
            pb.environment().clear();
            pb.directory(new File("/"));
            return pb.start();
        });
    }

    @Test
    void theFakeHelperIsAcceptedWhenItFollowsTheProtocol() throws Exception {
        SupervisorCore faked = SupervisorCore.prepare(data, Wire.POLICY_PREFER, fake("good"));
        TestRun t = TestRun.of(runs, "ok.mjs");
        HelperRun.Report r = t.run(faked);

        assertThat(r.result().outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r.result().cleanup().proven()).isTrue();
        assertThat(new String(r.result().stdout(), StandardCharsets.UTF_8)).isEqualTo("{\"fake\":true}");
        assertThat(r.result().hardening()).isEqualTo(HardeningLayer.L0);
    }

    @ParameterizedTest
    @CsvSource({
        "bad-crc, SUPERVISOR_PROTOCOL: end frame CRC mismatch",
        "no-end, SUPERVISOR_DIED: the helper ended without an end frame",
        "trailing, SUPERVISOR_PROTOCOL: bytes after the end frame",
        "wrong-pid, SUPERVISOR_PROTOCOL: helper identity does not match the started process",
        "output-before-spawn, SUPERVISOR_PROTOCOL: output frame before spawn or empty",
        "oversize, SUPERVISOR_PROTOCOL: frame length over cap for type 79",
        "over-limit, SUPERVISOR_PROTOCOL: output beyond the limit",
        "unknown-type, SUPERVISOR_PROTOCOL: unknown frame type 81",
        "exit-mismatch, SUPERVISOR_DIED: helper exit status 3"
    })
    void everyProtocolViolationIsASupervisorFailureWithoutProof(String scenario, String detail) throws Exception {
        SupervisorCore faked = SupervisorCore.prepare(data, Wire.POLICY_PREFER, fake(scenario));
        TestRun t = TestRun.of(runs, "ok.mjs");
        t.stdoutLimit = 100_000;
        HelperRun.Report r = t.run(faked);

        SupervisionResult res = r.result();
        assertThat(res.outcome()).isEqualTo(Outcome.SUPERVISOR_FAILED);
        assertThat(res.detail()).isEqualTo(detail);
        assertThat(res.cleanup().proven()).isFalse();
        assertThat(res.cleanup().proof()).isEqualTo("NONE");
        assertThat(res.exit()).isEqualTo(ProcessExit.notObserved());
        if (scenario.equals("wrong-pid")) {
            assertThat(t.fsyncRecorder.recorded.get())
                    .as("no ownership for an impostor")
                    .isNull();
        }
    }

    @Test
    void theOwnershipRecordIsDurableAndWrittenBeforeTheChildExists() throws Exception {
        TestRun t = TestRun.of(runs, "ok.mjs");
        HelperRun.Report r = t.run(core);

        SupervisorIdentity owner = t.fsyncRecorder.recorded.get();
        assertThat(owner).isNotNull();
        assertThat(r.owner()).contains(owner);
        assertThat(owner.pid()).isEqualTo(r.hello().orElseThrow().pid());
        assertThat(owner.startTimeToken())
                .isEqualTo(Long.toString(r.hello().orElseThrow().startTimeTicks()));
        assertThat(owner.startTimeToken()).matches("[0-9]+");
        assertThat(owner.attemptToken()).matches("[A-Za-z0-9._:+-]{1,128}");
        assertThat(r.hello().orElseThrow().bootId())
                .isEqualTo(ProcIdentity.bootId().orElseThrow());
        assertThat(t.fsyncRecorder.helperChildrenAtRecord.get())
                .as("the helper had no child yet")
                .isEmpty();
        Path file = runs.resolve("owner-" + t.tag + ".record");
        assertThat(Files.readString(file))
                .isEqualTo(owner.pid() + " " + owner.startTimeToken() + " " + owner.attemptToken() + "\n");
        assertThat(ProcIdentity.alive(owner.pid(), owner.startTimeToken()))
                .as("the helper has exited")
                .isFalse();
    }

    @Test
    void aFailedOwnershipRecordStartsNothing() throws Exception {
        TestRun t = TestRun.of(runs, "hang.mjs");
        t.fsyncRecorder = new FsyncRecorder(runs.resolve("unused-" + t.tag), true);
        t.recorder = t.fsyncRecorder;
        HelperRun.Report r = t.run(core);

        assertThat(r.result().outcome()).isEqualTo(Outcome.SETUP_FAILED);
        assertThat(r.result().detail()).startsWith("STAGING_FAILED:");
        assertThat(r.result().cleanup()).isEqualTo(CleanupEvidence.nothingStarted());
        assertThat(r.spawned()).isEmpty();
        assertThat(r.helperExit()).isZero();
        assertThat(t.file("hang.ready")).doesNotExist();
    }

    @Test
    void cancelBeforeGoStartsNothing() throws Exception {
        TestRun t = TestRun.of(runs, "hang.mjs");
        SupervisedRun[] run = new SupervisedRun[1];
        FsyncRecorder inner = t.fsyncRecorder;
        t.recorder = owner -> {
            run[0].cancel(); // the caller cancels while the ownership record is being written
            inner.record(owner);
        };
        synchronized (run) {
            run[0] = core.launch(t.spec(), SupervisionListener.NONE);
        }
        HelperRun.Report r = TestRun.await((HelperRun) run[0]);

        assertThat(r.result().outcome()).isEqualTo(Outcome.CANCELLED);
        assertThat(r.result().cleanup()).isEqualTo(CleanupEvidence.nothingStarted());
        assertThat(r.spawned()).isEmpty();
        assertThat(t.file("hang.ready")).doesNotExist();
    }

    @Test
    void theWatchdogKillsAStuckHelperAndReportsCleanupUnknown() throws Exception {
        TestRun t = TestRun.of(runs, "hang.mjs");
        t.wall = Duration.ofSeconds(1);
        t.grace = Duration.ZERO;
        t.killDeadline = Duration.ofSeconds(1);
        HelperRun run = t.launch(core, SupervisionListener.NONE);
        t.awaitFile("hang.ready");
        long helper = t.fsyncRecorder.recorded.get().pid();
        assertThat(new ProcessBuilder("/bin/kill", "-STOP", Long.toString(helper))
                        .start()
                        .waitFor())
                .isZero();
        HelperRun.Report r = TestRun.await(run);

        assertThat(r.result().outcome()).isEqualTo(Outcome.SUPERVISOR_FAILED);
        assertThat(r.result().detail()).startsWith("CLEANUP_UNKNOWN:");
        assertThat(r.result().cleanup().proven()).isFalse();
        // wall + grace + kill deadline + 2 s
        assertThat(r.launchToResultNanos()).isGreaterThanOrEqualTo(TimeUnit.SECONDS.toNanos(4));
        // The helper was SIGKILLed; its direct child followed by PDEATHSIG (the Tags check confirms).
        assertThat(ProcScan.awaitNone(t.tag, 2000)).isEmpty();
    }

    @Test
    void listenerSeesStartOutputTerminationAndSettlementInOrder() throws Exception {
        TestRun t = TestRun.of(runs, "partial.mjs");
        t.wall = Duration.ofMillis(800);
        List<String> events = new CopyOnWriteArrayList<>();
        HelperRun run = t.launch(core, new SupervisionListener() {
            @Override
            public void started(long childPid) {
                events.add("started");
            }

            @Override
            public void outputBytes(long stdoutBytes, long stderrBytes) {
                events.add("output " + stdoutBytes + "/" + stderrBytes);
            }

            @Override
            public void terminating(Outcome reason) {
                events.add("terminating " + reason);
            }

            @Override
            public void settled() {
                events.add("settled");
                throw new IllegalStateException("listener faults are ignored");
            }
        });
        HelperRun.Report r = TestRun.await(run);

        assertThat(r.result().outcome()).isEqualTo(Outcome.TIMED_OUT);
        assertThat(events).containsExactly("started", "output 12/0", "terminating TIMED_OUT", "settled");
        assertThat(r.spawned().orElseThrow().childPid()).isPositive();
    }

    @Test
    void aTamperedHelperIsRefusedBeforeLaunchAndNeverStarted() throws Exception {
        Path tamperedData = Files.createDirectory(runs.resolve("tampered-data"));
        AtomicInteger starts = new AtomicInteger();
        HelperLauncher counting = (helper, args) -> {
            starts.incrementAndGet();
            return HelperLauncher.direct().start(helper, args);
        };
        SupervisorCore c = SupervisorCore.prepare(tamperedData, Wire.POLICY_PREFER, counting);
        assertThat(c.capabilities().available()).isTrue();
        Path bin = c.installed().orElseThrow().binary();
        byte[] bytes = Files.readAllBytes(bin);
        bytes[bytes.length / 3] ^= 0x01; // one flipped bit
        Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwx------"));
        Files.write(bin, bytes);
        Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("r-x------"));

        TestRun t = TestRun.of(runs, "hang.mjs");
        HelperRun.Report r = t.run(c);
        assertThat(r.result().outcome()).isEqualTo(Outcome.SETUP_FAILED);
        assertThat(r.result().detail()).startsWith("SUPERVISOR_TAMPERED:");
        assertThat(r.result().cleanup()).isEqualTo(CleanupEvidence.nothingStarted());
        assertThat(starts).hasValue(0);
        assertThat(t.file("hang.ready")).doesNotExist();

        // A fresh supervisor on the same data directory refuses too: the file is not silently replaced.
        SupervisorCore again = SupervisorCore.prepare(tamperedData, Wire.POLICY_PREFER, counting);
        assertThat(again.capabilities().available()).isFalse();
        assertThat(again.capabilities().detail()).startsWith("SUPERVISOR_TAMPERED:");
        assertThat(Files.readAllBytes(bin)).isEqualTo(bytes);
    }

    @Test
    void aHelperDirectoryOpenedToOthersIsRefused() throws Exception {
        Path loose = Files.createDirectory(runs.resolve("loose-data"));
        SupervisorCore c = SupervisorCore.prepare(loose, Wire.POLICY_PREFER, HelperLauncher.direct());
        Path bin = c.installed().orElseThrow().binary();
        Files.setPosixFilePermissions(bin.getParent(), PosixFilePermissions.fromString("rwxrwxrwx"));
        HelperRun.Report r = TestRun.of(runs, "ok.mjs").run(c);
        assertThat(r.result().outcome()).isEqualTo(Outcome.SETUP_FAILED);
        assertThat(r.result().detail()).startsWith("SUPERVISOR_TAMPERED:");
    }

    @Test
    void aSpareHelperIsStartedAheadAndUsedByTheNextLaunch() throws Exception {
        Path spareData = Files.createDirectory(runs.resolve("spare-data"));
        List<Long> started = new CopyOnWriteArrayList<>();
        HelperLauncher counting = (helper, args) -> {
            Process p = HelperLauncher.direct().start(helper, args);
            started.add(p.pid());
            return p;
        };
        SupervisorCore c = SupervisorCore.prepare(spareData, Wire.POLICY_PREFER, counting, true);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (started.isEmpty() && System.nanoTime() < until) {
            ProcScan.sleep(10);
        }
        assertThat(started).as("a spare was started after preparation").hasSize(1);
        HelperRun.Report r = TestRun.of(runs, "ok.mjs").run(c);
        assertThat(r.result().outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r.result().cleanup().proven()).isTrue();
        assertThat(r.hello().orElseThrow().pid())
                .as("the launch used the spare")
                .isEqualTo(started.get(0));

        // Tampering is still caught before a launch, and the verified spare is dropped with it.
        while (started.size() < 2 && System.nanoTime() < until) {
            ProcScan.sleep(10);
        }
        assertThat(started).hasSize(2);
        long spare = started.get(1);
        Path bin = c.installed().orElseThrow().binary();
        byte[] bytes = Files.readAllBytes(bin);
        bytes[100] ^= 0x01;
        // A running spare makes in-place writes fail (ETXTBSY); an attacker replaces the file instead.
        Path swapped = bin.resolveSibling("swapped");
        Files.write(swapped, bytes);
        Files.setPosixFilePermissions(swapped, PosixFilePermissions.fromString("r-x------"));
        Files.move(
                swapped,
                bin,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        HelperRun.Report refused = TestRun.of(runs, "ok.mjs").run(c);
        assertThat(refused.result().detail()).startsWith("SUPERVISOR_TAMPERED:");
        long gone = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (ProcScan.alive(spare) && System.nanoTime() < gone) {
            ProcScan.sleep(10);
        }
        assertThat(ProcScan.alive(spare)).as("the discarded spare exited").isFalse();
        assertThat(started).as("no spare from a tampered file").hasSize(2);
    }
}
