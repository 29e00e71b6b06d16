package dev.skillgate.runner.linux.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.skillgate.runner.SupervisionResult.CleanupEvidence;
import dev.skillgate.runner.SupervisionResult.Outcome;
import java.io.File;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each step of {@link HelperImage}, attacked at exactly the moment it guards, with the swap done by
 * a launcher that acts right before the real start (deterministic; {@link HelperSwapAttackTest}
 * races the same swaps from another process). The impostor ({@code attack/impostor.c}) records every
 * run and then becomes a genuine helper copy, so it would be believable if anything believed it.
 */
@EnabledOnOs(OS.LINUX)
@ExtendWith(Tags.class)
class HelperImageTest {
    @TempDir
    static Path shared;

    @TempDir
    Path data;

    @TempDir
    Path runs;

    static Path impostor;
    static Path genuineCopy;
    static Path marker;

    SupervisorCore core;
    Path helper;

    @BeforeAll
    static void compileTheImpostor() throws Exception {
        SupervisorCore c = SupervisorCore.prepare(
                Files.createDirectories(shared.resolve("seed")), Wire.POLICY_PREFER, HelperLauncher.direct());
        assumeTrue(c.capabilities().available(), c.capabilities().detail());
        genuineCopy = shared.resolve("genuine-copy");
        Files.copy(c.installed().orElseThrow().binary(), genuineCopy, StandardCopyOption.COPY_ATTRIBUTES);
        marker = shared.resolve("impostor-ran");
        impostor = AttackFixtures.compile(
                shared,
                "impostor.c",
                "impostor",
                AttackFixtures.define("MARKER", marker),
                AttackFixtures.define("NEXT", genuineCopy));
    }

    @BeforeEach
    void freshInstallation() throws Exception {
        Files.deleteIfExists(marker);
    }

    HelperRun.Report launchWith(HelperLauncher launcher) throws Exception {
        core = SupervisorCore.prepare(data, Wire.POLICY_PREFER, launcher);
        assertThat(core.capabilities().available()).isTrue();
        helper = core.installed().orElseThrow().binary();
        return TestRun.of(runs, "ok.mjs").run(core);
    }

    static void assertRefusedAsTampered(HelperRun.Report r, String detail) {
        assertThat(r.result().outcome()).isEqualTo(Outcome.SETUP_FAILED);
        assertThat(r.result().detail()).isEqualTo("SUPERVISOR_TAMPERED: " + detail);
        assertThat(r.result().cleanup()).isEqualTo(CleanupEvidence.nothingStarted());
        assertThat(r.hello()).as("nothing from the refused process was read").isEmpty();
        assertThat(r.spawned()).isEmpty();
    }

    /** A launcher that does {@code attack} with the helper's path, then starts as production does. */
    HelperLauncher attackingFirst(Attack attack) {
        return (executable, arguments) -> {
            attack.on(helper, executable);
            return HelperLauncher.direct().start(executable, arguments);
        };
    }

    @FunctionalInterface
    interface Attack {
        void on(Path helperPath, Path execPath) throws java.io.IOException;
    }

    static void renameOver(Path source, Path target) throws java.io.IOException {
        Path tmp = target.resolveSibling(".swap");
        Files.copy(source, tmp, StandardCopyOption.COPY_ATTRIBUTES);
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    static void writeInPlace(Path target, byte[] bytes) throws java.io.IOException {
        // Root ignores the 0500 mode; an unprivileged owner would chmod first (which moves ctime too).
        try (FileChannel ch = FileChannel.open(target, StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(bytes), 0);
            ch.truncate(bytes.length);
        }
    }

    @Test
    void theStartedHelperIsExecutedThroughTheJvmsOwnDescriptor() throws Exception {
        AtomicReference<Path> used = new AtomicReference<>();
        HelperRun.Report r = launchWith((executable, arguments) -> {
            used.set(executable);
            return HelperLauncher.direct().start(executable, arguments);
        });
        assertThat(r.result().outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r.result().cleanup().proven()).isTrue();
        String self = Files.readSymbolicLink(Path.of("/proc/self")).toString();
        assertThat(used.get().toString()).matches("/proc/" + self + "/fd/[0-9]+");
    }

    @Test
    void aFileRenamedOverTheHelperRightBeforeTheStartNeverRuns() throws Exception {
        HelperRun.Report r = launchWith(attackingFirst((h, exec) -> renameOver(impostor, h)));
        // The exec went to the inode the JVM holds; the rename unlinked it, which the identity shows.
        assertRefusedAsTampered(r, "the helper file changed between its verification and its start");
        assertThat(AttackFixtures.impostorRuns(marker))
                .as("the impostor never ran")
                .isEmpty();
        assertThat(Files.readAllBytes(helper)).isEqualTo(Files.readAllBytes(impostor));
    }

    @Test
    void aSymbolicLinkInPlaceOfTheHelperIsNotFollowed() throws Exception {
        HelperRun.Report setup = launchWith(HelperLauncher.direct());
        assertThat(setup.result().cleanup().proven()).isTrue();
        Path tmp = helper.resolveSibling(".link");
        Files.createSymbolicLink(tmp, impostor);
        Files.move(tmp, helper, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);

        HelperRun.Report r = TestRun.of(runs, "ok.mjs").run(core);
        assertRefusedAsTampered(r, "the helper is not a private regular file");
        assertThat(AttackFixtures.impostorRuns(marker)).isEmpty();
        assertThat(Files.isSymbolicLink(helper)).isTrue();
    }

    @Test
    void aFifoInPlaceOfTheHelperIsRefusedWithoutBlocking() throws Exception {
        HelperRun.Report setup = launchWith(HelperLauncher.direct());
        assertThat(setup.result().cleanup().proven()).isTrue();
        Files.delete(helper);
        assertThat(new ProcessBuilder("mkfifo", helper.toString()).start().waitFor())
                .isZero();

        HelperRun.Report r = TestRun.of(runs, "ok.mjs").run(core);
        assertRefusedAsTampered(r, "the helper is not a private regular file");
    }

    @Test
    void anotherFileAtRestIsRefusedBeforeAnythingStarts() throws Exception {
        List<Path> started = new ArrayList<>();
        HelperRun.Report setup = launchWith((executable, arguments) -> {
            started.add(executable);
            return HelperLauncher.direct().start(executable, arguments);
        });
        assertThat(setup.result().cleanup().proven()).isTrue();
        assertThat(started).hasSize(1);
        renameOver(impostor, helper);

        HelperRun.Report r = TestRun.of(runs, "ok.mjs").run(core);
        assertRefusedAsTampered(r, "the extracted helper's SHA-256 differs from the shipped one");
        assertThat(started).as("nothing was started").hasSize(1);
        assertThat(AttackFixtures.impostorRuns(marker)).isEmpty();
        // A fresh supervisor on this data directory refuses at preparation (its probe is refused too).
        SupervisorCore again = SupervisorCore.prepare(data, Wire.POLICY_PREFER, HelperLauncher.direct());
        assertThat(again.capabilities().available()).isFalse();
        assertThat(again.capabilities().detail())
                .isEqualTo("SUPERVISOR_TAMPERED: the extracted helper's SHA-256 differs from the shipped one");
        assertThat(AttackFixtures.impostorRuns(marker)).isEmpty();
    }

    @Test
    void anInPlaceRewriteAfterTheHashRunsTheImpostorButNothingItSaysIsBelieved() throws Exception {
        byte[] foreign = Files.readAllBytes(impostor);
        AtomicReference<Process> startedProcess = new AtomicReference<>();
        HelperRun.Report r = launchWith((executable, arguments) -> {
            writeInPlace(helper, foreign);
            Process p = HelperLauncher.direct().start(executable, arguments);
            startedProcess.set(p);
            return p;
        });
        assertThat(r.result().outcome()).isEqualTo(Outcome.SETUP_FAILED);
        assertThat(r.result().detail())
                .isIn(
                        "SUPERVISOR_TAMPERED: the started helper does not run the verified file",
                        "SUPERVISOR_TAMPERED: the started helper's bytes differ from the shipped ones");
        assertThat(r.result().cleanup()).isEqualTo(CleanupEvidence.nothingStarted());
        assertThat(r.hello()).isEmpty();
        // The impostor's bytes were executed - an in-place rewrite before exec cannot be prevented from
        // Java - in the process that was then killed without ever being sent the request (it may be
        // killed before it gets to record that it ran; it never runs anywhere else).
        Process p = startedProcess.get();
        assertThat(p.waitFor(5, TimeUnit.SECONDS)).isTrue();
        assertThat(AttackFixtures.impostorRuns(marker)).isSubsetOf(List.of(p.pid()));
    }

    @Test
    void rewritingTheSameBytesInPlaceIsStillRefused() throws Exception {
        // Content, running inode and a re-hash all match; only the status-change time tells.
        HelperRun.Report r = launchWith(attackingFirst((h, exec) -> writeInPlace(h, Files.readAllBytes(h))));
        assertRefusedAsTampered(r, "the helper file changed between its verification and its start");
    }

    @Test
    void aProcessThatDoesNotRunTheVerifiedInodeIsRefusedEvenWithTheGenuineBytes() throws Exception {
        HelperRun.Report r = launchWith((executable, arguments) -> {
            List<String> cmd = new ArrayList<>();
            cmd.add(genuineCopy.toString()); // the same bytes, another inode
            cmd.addAll(arguments);
            ProcessBuilder pb = new ProcessBuilder(cmd);
            pb.environment().clear();
            pb.directory(new File("/"));
            return pb.start();
        });
        assertRefusedAsTampered(r, "the started helper does not run the verified file");
    }

    @Test
    void aWriterHoldingTheHelperOpenAtTheExecIsRefused() throws Exception {
        AtomicReference<RandomAccessFile> writer = new AtomicReference<>();
        try {
            HelperRun.Report r =
                    launchWith(attackingFirst((h, exec) -> writer.set(new RandomAccessFile(h.toFile(), "rw"))));
            assertRefusedAsTampered(r, "the helper file is held open for writing by another process");
        } finally {
            if (writer.get() != null) {
                writer.get().close();
            }
        }
    }

    @Test
    void theDescriptorFoundIsTheChannelsOwnAmongSeveralOnTheSameFile() throws Exception {
        launchWith(HelperLauncher.direct());
        String self = Files.readSymbolicLink(Path.of("/proc/self")).toString();
        Path real = helper.toRealPath();
        try (FileChannel a = FileChannel.open(helper, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
                FileChannel b = FileChannel.open(helper, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            int fa = HelperImage.descriptorOf(a, self, real);
            int fb = HelperImage.descriptorOf(b, self, real);
            assertThat(fa).isNotEqualTo(fb).isNotNegative();
            a.position(12345);
            b.position(67890);
            assertThat(fdinfo(self, fa)).startsWith("pos:\t12345\n");
            assertThat(fdinfo(self, fb)).startsWith("pos:\t67890\n");
            // Renamed after the open: the link no longer names the helper; the full scan still finds it.
            Path moved = helper.resolveSibling("moved");
            Files.move(helper, moved);
            assertThat(HelperImage.descriptorOf(b, self, real)).isEqualTo(fb);
            Files.move(moved, helper);
        }
    }

    static String fdinfo(String self, int fd) throws Exception {
        return new String(
                Files.readAllBytes(Path.of("/proc", self, "fdinfo", Integer.toString(fd))), StandardCharsets.US_ASCII);
    }

    @Test
    void theHelperIsDumpableUntilTheSealAndNotAfter() throws Exception {
        assumeTrue(ThrowawayUid.possible(), "needs root and setpriv to run the helper as another uid");
        launchWith(HelperLauncher.direct());
        ThrowawayUid user = ThrowawayUid.create(helper);
        try {
            Process p = new ProcessBuilder(
                            ThrowawayUid.SETPRIV.toString(),
                            "--reuid=" + user.uid,
                            "--regid=" + user.uid,
                            "--clear-groups",
                            "--",
                            user.helperCopy.toString())
                    .start();
            try {
                Path proc = Path.of("/proc", Long.toString(p.pid()), "fd");
                // While it waits for the seal, /proc/<pid>/fd belongs to its uid (dumpable): the JVM may check it.
                awaitOwner(proc, user.uid);
                p.getOutputStream().write(Wire.SEAL_VERIFIED);
                p.getOutputStream().flush();
                // Sealed: non-dumpable, so the kernel gives /proc/<pid>/fd to root and refuses other users.
                awaitOwner(proc, 0);
            } finally {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
            }
        } finally {
            new ProcessBuilder("/bin/rm", "-rf", user.root.toString()).start().waitFor();
        }
    }

    static void awaitOwner(Path proc, int uid) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (((Integer) Files.getAttribute(proc, "unix:uid")) != uid) {
            assertThat(System.nanoTime()).as("%s owned by %d", proc, uid).isLessThan(until);
            ProcScan.sleep(5);
        }
    }
}
