package dev.skillgate.runner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.PortablePath;
import dev.skillgate.model.RunId;
import dev.skillgate.runner.StagingJanitor.Reason;
import dev.skillgate.runner.internal.OwnerRecord;
import dev.skillgate.runner.internal.ProcessLiveness;
import dev.skillgate.runner.internal.Staging;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StagingJanitorTest {

    @TempDir
    Path base;

    final String marker = TestSupport.newMarker();

    @AfterEach
    void noSurvivors() {
        assertThat(SurvivorScan.killAll(marker)).isEmpty();
    }

    static final Map<PortablePath, byte[]> FILES =
            Map.of(PortablePath.of("main.mjs"), "1".getBytes(StandardCharsets.UTF_8));

    Path data() {
        return base.resolve("data " + marker);
    }

    Staging.StagedRun stage(OwnerRecord.Owner owner) throws Exception {
        return Staging.stage(data(), RunId.random(), FILES, owner, Staging.newAttempt());
    }

    /** The identity of a process that has really run and exited. */
    static OwnerRecord.Owner deadOwner() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(TestSupport.node().toString(), "-e", "setTimeout(() => {}, 200)");
        // The test JVM's environment carries planted NODE_OPTIONS; a helper node must not inherit it.
        pb.environment().clear();
        Process p = pb.start();
        String token = ProcessLiveness.tokenOf(p.toHandle());
        long pid = p.pid();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new OwnerRecord.Owner(pid, token);
    }

    static OwnerRecord.Owner me() {
        return new OwnerRecord.Owner(ProcessHandle.current().pid(), ProcessLiveness.currentJvmToken());
    }

    StagingJanitor.Report sweep() {
        return StagingJanitor.forDataDirectory(data()).sweep();
    }

    @Test
    void removesDirectoriesWhoseOwnerIsProvablyDeadAndKeepsLiveOnes() throws Exception {
        Staging.StagedRun dead = stage(deadOwner());
        Staging.StagedRun reused =
                stage(new OwnerRecord.Owner(ProcessHandle.current().pid(), "jdk:1"));
        String myTicks =
                ProcessLiveness.procStartTicks(ProcessHandle.current().pid()).orElseThrow();
        Staging.StagedRun reusedTicks =
                stage(new OwnerRecord.Owner(ProcessHandle.current().pid(), myTicks + "1"));
        Staging.StagedRun liveTicks =
                stage(new OwnerRecord.Owner(ProcessHandle.current().pid(), myTicks));
        Staging.StagedRun live = stage(me());
        Staging.StagedRun unknown =
                stage(new OwnerRecord.Owner(ProcessHandle.current().pid(), "custom-token"));
        Staging.StagedRun liveSupervisor = stage(deadOwner());
        liveSupervisor.recordSupervisor(
                new SupervisorIdentity(ProcessHandle.current().pid(), ProcessLiveness.currentJvmToken(), "a"));
        Staging.StagedRun deadSupervisor = stage(deadOwner());
        OwnerRecord.Owner deadSv = deadOwner();
        deadSupervisor.recordSupervisor(new SupervisorIdentity(deadSv.pid(), deadSv.startToken(), "b"));

        StagingJanitor.Report report = sweep();

        assertThat(report.removed())
                .containsExactlyInAnyOrder(
                        dead.runDir(), reused.runDir(), reusedTicks.runDir(), deadSupervisor.runDir());
        assertThat(report.retained())
                .extracting(StagingJanitor.Retained::directory, StagingJanitor.Retained::reason)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(live.runDir(), Reason.OWNER_ALIVE),
                        org.assertj.core.groups.Tuple.tuple(liveTicks.runDir(), Reason.OWNER_ALIVE),
                        org.assertj.core.groups.Tuple.tuple(liveSupervisor.runDir(), Reason.OWNER_ALIVE),
                        org.assertj.core.groups.Tuple.tuple(unknown.runDir(), Reason.OWNER_UNKNOWN));
        assertThat(dead.runDir()).doesNotExist();
        assertThat(live.runDir()).isDirectory();
    }

    @Test
    void unknownLayoutsAndLinksAreRetainedAndReportedNeverSwept() throws Exception {
        Path root = Staging.stagingRoot(data());
        Path victim = Files.createDirectories(base.resolve("victim"));
        Files.writeString(victim.resolve("keep"), "keep");
        Files.createSymbolicLink(root.resolve("0123456789abcdef0123456789abcdef-linked"), victim);
        Files.createDirectories(root.resolve("not-ours"));
        Files.writeString(root.resolve("stray-file"), "x");
        Staging.StagedRun extra = stage(deadOwner());
        Files.writeString(extra.runDir().resolve("extra"), "x");
        Staging.StagedRun noOwner = stage(deadOwner());
        Files.delete(noOwner.runDir().resolve("owner"));
        Staging.StagedRun malformed = stage(deadOwner());
        Files.writeString(malformed.runDir().resolve("owner"), "skillgate-staging-owner 1\nrun x\n");
        Staging.StagedRun homeLink = stage(deadOwner());
        Files.delete(homeLink.home());
        Files.createSymbolicLink(homeLink.home(), victim);
        Staging.StagedRun renamed = stage(deadOwner());
        Path renamedTo = root.resolve(
                "ffffffffffffffffffffffffffffffff-" + renamed.record().runId().value());
        Files.move(renamed.runDir(), renamedTo);
        Staging.StagedRun swapped = stage(deadOwner());
        byte[] owner = Files.readAllBytes(swapped.runDir().resolve("owner"));
        Files.move(swapped.runDir(), base.resolve("swapped-away"));
        Files.createDirectories(swapped.runDir());
        for (String d : new String[] {"bundle", "home", "tmp"}) {
            Files.createDirectory(swapped.runDir().resolve(d));
        }
        Files.write(swapped.runDir().resolve("owner"), owner);

        StagingJanitor.Report report = sweep();

        assertThat(report.removed()).isEmpty();
        assertThat(report.retained())
                .extracting(StagingJanitor.Retained::directory, StagingJanitor.Retained::reason)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(
                                root.resolve("0123456789abcdef0123456789abcdef-linked"), Reason.UNRECOGNISED),
                        org.assertj.core.groups.Tuple.tuple(root.resolve("not-ours"), Reason.UNRECOGNISED),
                        org.assertj.core.groups.Tuple.tuple(root.resolve("stray-file"), Reason.UNRECOGNISED),
                        org.assertj.core.groups.Tuple.tuple(extra.runDir(), Reason.UNRECOGNISED),
                        org.assertj.core.groups.Tuple.tuple(noOwner.runDir(), Reason.UNRECOGNISED),
                        org.assertj.core.groups.Tuple.tuple(malformed.runDir(), Reason.UNRECOGNISED),
                        org.assertj.core.groups.Tuple.tuple(homeLink.runDir(), Reason.UNRECOGNISED),
                        org.assertj.core.groups.Tuple.tuple(renamedTo, Reason.IDENTITY_CHANGED),
                        org.assertj.core.groups.Tuple.tuple(swapped.runDir(), Reason.IDENTITY_CHANGED));
        assertThat(victim.resolve("keep")).exists();
        assertThat(extra.runDir().resolve("extra")).exists();
    }

    @Test
    void aDirectoryARunningProcessStillMentionsIsRetainedUntilThatProcessIsGone() throws Exception {
        Staging.StagedRun run = stage(deadOwner());
        ProcessBuilder pb = new ProcessBuilder(
                TestSupport.node().toString(),
                "-e",
                "setTimeout(() => {}, 60000)",
                run.runDir().toString());
        pb.environment().clear();
        Process holder = pb.start();
        // Wait until the holder really runs (its command line is readable), so the sweep cannot race its start.
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (holder.info().commandLine().isEmpty() && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        try {
            StagingJanitor.Report first = sweep();
            assertThat(first.retained())
                    .extracting(StagingJanitor.Retained::reason)
                    .containsExactly(Reason.PROCESS_REFERENCES);
        } finally {
            holder.destroyForcibly();
            holder.waitFor(30, TimeUnit.SECONDS);
        }
        StagingJanitor.Report second = sweep();
        assertThat(second.removed()).containsExactly(run.runDir());
    }

    @Test
    void anApprovalSeesTheProofBeforeRemovalAndCanDeclineIt() throws Exception {
        OwnerRecord.Owner stager = deadOwner();
        OwnerRecord.Owner supervisor = deadOwner();
        Staging.StagedRun approved = stage(stager);
        approved.recordSupervisor(new SupervisorIdentity(supervisor.pid(), supervisor.startToken(), "c"));
        Staging.StagedRun declined = stage(deadOwner());
        Staging.StagedRun throwing = stage(deadOwner());
        Staging.StagedRun live = stage(me());
        java.util.List<StagingJanitor.OwnersDead> asked = new java.util.ArrayList<>();

        StagingJanitor.Report report = StagingJanitor.forDataDirectory(data()).sweep(proof -> {
            asked.add(proof);
            // The directory is still there while the caller decides (e.g. records the proof durably).
            assertThat(proof.directory()).isDirectory();
            if (proof.run().equals(throwing.record().runId())) {
                throw new IllegalStateException("an approval that fails counts as a refusal");
            }
            return proof.run().equals(approved.record().runId());
        });

        assertThat(report.removed()).containsExactly(approved.runDir());
        assertThat(report.retained())
                .extracting(StagingJanitor.Retained::directory, StagingJanitor.Retained::reason)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(declined.runDir(), Reason.DECLINED),
                        org.assertj.core.groups.Tuple.tuple(throwing.runDir(), Reason.DECLINED),
                        org.assertj.core.groups.Tuple.tuple(live.runDir(), Reason.OWNER_ALIVE));
        // Only directories with every owner proven dead are offered; the live one never is.
        assertThat(asked)
                .extracting(StagingJanitor.OwnersDead::run)
                .containsExactlyInAnyOrder(
                        approved.record().runId(),
                        declined.record().runId(),
                        throwing.record().runId());
        StagingJanitor.OwnersDead proof = asked.stream()
                .filter(p -> p.run().equals(approved.record().runId()))
                .findFirst()
                .orElseThrow();
        assertThat(proof.directory()).isEqualTo(approved.runDir());
        assertThat(proof.attempt()).isEqualTo(approved.record().attempt());
        assertThat(proof.stagerPid()).isEqualTo(stager.pid());
        assertThat(proof.stagerStartToken()).isEqualTo(stager.startToken());
        assertThat(proof.supervisor()).hasValueSatisfying(s -> {
            assertThat(s.pid()).isEqualTo(supervisor.pid());
            assertThat(s.startTimeToken()).isEqualTo(supervisor.startToken());
        });
        assertThat(declined.runDir()).isDirectory();
    }

    @Test
    void aMissingStagingRootIsAnEmptyReport() {
        assertThat(sweep().removed()).isEmpty();
        assertThat(sweep().retained()).isEmpty();
    }
}
