package dev.skillgate.runner.linux.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.runner.SupervisionResult.Outcome;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Decision 0838: a live, verified helper that still runs the helper file stands in for hashing it,
 * because the kernel keeps an executing inode write-denied. Real helpers, real files; the hash count
 * is {@link HelperImage#hashesOnThisThread()} for starts made on the test's thread, and
 * {@link HelperImage#hashes()} where spares start on the supervisor's threads.
 */
@EnabledOnOs(OS.LINUX)
class HelperWitnessTest {
    @TempDir
    Path data;

    @TempDir
    Path runs;

    HelperInstaller.Installed installed;
    final List<Process> processes = new ArrayList<>();

    /** The production registry's behaviour in miniature: everything added, first alive one offered. */
    static final class Recorded implements HelperImage.Witnesses {
        final List<HelperImage.Started> all = new CopyOnWriteArrayList<>();

        @Override
        public Optional<HelperImage.Started> any() {
            return all.stream().filter(s -> s.process().isAlive()).findFirst();
        }

        @Override
        public void add(HelperImage.Started started) {
            all.add(started);
        }
    }

    @BeforeEach
    void install() throws Exception {
        SupervisorCore c = SupervisorCore.prepare(data, Wire.POLICY_PREFER, HelperLauncher.direct());
        assumeTrue(c.capabilities().available(), c.capabilities().detail());
        installed = c.installed().orElseThrow();
        // Past the settle window of HelperImage, so that no start below waits for it.
        Thread.sleep(HelperImage.SETTLE.toMillis() + 5);
    }

    @AfterEach
    void retireAll() throws Exception {
        for (Process p : processes) {
            retire(p);
        }
    }

    HelperImage.Started started(HelperImage.Start s) {
        assertThat(s).isInstanceOf(HelperImage.Started.class);
        HelperImage.Started st = (HelperImage.Started) s;
        processes.add(st.process());
        return st;
    }

    static void retire(Process p) throws Exception {
        p.getOutputStream().close(); // EOF before a request: the helper exits, nothing started
        if (!p.waitFor(5, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
    }

    static HelperImage.Identity identityAtRest(Path file) throws Exception {
        Map<String, Object> a = Files.readAttributes(file, "unix:dev,ino,size,lastModifiedTime,ctime");
        return new HelperImage.Identity(
                (Long) a.get("dev"),
                (Long) a.get("ino"),
                (Long) a.get("size"),
                (FileTime) a.get("lastModifiedTime"),
                (FileTime) a.get("ctime"));
    }

    @Test
    void aLiveWitnessReplacesBothHashesAndAGoneOneDoesNot() throws Exception {
        Recorded w = new Recorded();
        long h0 = HelperImage.hashesOnThisThread();
        HelperImage.Started first = started(HelperImage.start(installed, HelperLauncher.direct(), List.of(), w));
        assertThat(HelperImage.hashesOnThisThread() - h0)
                .as("the chain starts at a full check")
                .isEqualTo(2);

        long h1 = HelperImage.hashesOnThisThread();
        HelperImage.Started second = started(HelperImage.start(installed, HelperLauncher.direct(), List.of(), w));
        assertThat(HelperImage.hashesOnThisThread() - h1)
                .as("vouched for by the first, nothing hashed")
                .isZero();
        assertThat(second.identity()).isEqualTo(first.identity());
        assertThat(HelperImage.checkAtRest(installed, Optional.of(second))).isEmpty();
        assertThat(HelperImage.hashesOnThisThread() - h1)
                .as("the check at rest is vouched for too")
                .isZero();

        retire(first.process());
        retire(second.process());
        long h2 = HelperImage.hashesOnThisThread();
        started(HelperImage.start(installed, HelperLauncher.direct(), List.of(), w));
        assertThat(HelperImage.hashesOnThisThread() - h2)
                .as("no live witness: both hashes again")
                .isEqualTo(2);
    }

    @Test
    void whileAWitnessRunsTheFileTheKernelRefusesEveryWriter() throws Exception {
        // The property the decision rests on, asked of this kernel: the suite runs as root, for whom
        // the 0500 mode is no obstacle, so only the write-deny of a running executable refuses this.
        started(HelperImage.start(installed, HelperLauncher.direct(), List.of(), new Recorded()));
        assertThatThrownBy(() -> FileChannel.open(installed.binary(), StandardOpenOption.WRITE)
                        .close())
                .isInstanceOf(FileSystemException.class)
                .hasMessageContaining("Text file busy");
    }

    @Test
    void anotherFileRenamedOverTheHelperIsHashedAndRefusedDespiteALiveWitness() throws Exception {
        Recorded w = new Recorded();
        HelperImage.Started witness = started(HelperImage.start(installed, HelperLauncher.direct(), List.of(), w));
        Path bin = installed.binary();
        byte[] bytes = Files.readAllBytes(bin);
        bytes[100] ^= 0x01;
        Path swapped = bin.resolveSibling("swapped");
        Files.write(swapped, bytes);
        Files.setPosixFilePermissions(swapped, PosixFilePermissions.fromString("r-x------"));
        Files.move(swapped, bin, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Thread.sleep(HelperImage.SETTLE.toMillis() + 5);

        assertHashedAndRefused(witness, w, "another inode: hashed, not vouched for");
    }

    @Test
    void aWitnessThatDoesNotRunTheFileVouchesForNothing() throws Exception {
        // The attack: nothing runs the helper, so it can be rewritten in place; a "witness" with the
        // rewritten file's exact identity but a process that executes something else must not be believed.
        Path bin = installed.binary();
        byte[] bytes = Files.readAllBytes(bin);
        bytes[100] ^= 0x01;
        try (FileChannel ch = FileChannel.open(bin, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(bytes), 0);
        }
        Thread.sleep(HelperImage.SETTLE.toMillis() + 5);
        Process other = new ProcessBuilder("sleep", "30").start();
        processes.add(other);
        HelperImage.Started forged = new HelperImage.Started(other, identityAtRest(bin));
        Recorded w = new Recorded();
        w.add(forged);

        assertHashedAndRefused(forged, w, "a forged witness: hashed, not vouched for");
        other.destroyForcibly();
    }

    @Test
    void withASpareEachSequentialLaunchHashesNothingOnceTheChainStarted() throws Exception {
        Path spareData = Files.createDirectory(runs.resolve("spare-data"));
        SupervisorCore c = SupervisorCore.prepare(spareData, Wire.POLICY_PREFER, HelperLauncher.direct(), true);
        assumeTrue(c.capabilities().available(), c.capabilities().detail());
        Thread.sleep(HelperImage.SETTLE.toMillis() + 5);
        HelperRun.Report r0 = TestRun.of(runs, "ok.mjs").run(c);
        assertThat(r0.result().outcome()).isEqualTo(Outcome.EXITED);
        // The launches below are sequential; each takes the spare (checked at rest with the spare as
        // witness) and starts the next spare while its own helper runs node (vouched for by it).
        // A hash is allowed only where the witness ended first (a fast run on a loaded machine).
        long h0 = HelperImage.hashes();
        int launches = 5;
        for (int i = 0; i < launches; i++) {
            HelperRun.Report r = TestRun.of(runs, "ok.mjs").run(c);
            assertThat(r.result().outcome()).isEqualTo(Outcome.EXITED);
            assertThat(r.result().cleanup().proven()).isTrue();
        }
        assertThat(HelperImage.hashes() - h0).isLessThan(2L * launches);
    }

    /**
     * With {@code witness} offered, the check at rest and a start both refuse the helper as tampered,
     * and both hashed it (one hash each): the witness vouched for nothing.
     */
    private void assertHashedAndRefused(HelperImage.Started witness, Recorded w, String why) {
        long h0 = HelperImage.hashesOnThisThread();
        assertThat(HelperImage.checkAtRest(installed, Optional.of(witness)))
                .map(HelperInstaller.Unavailable::code)
                .contains(ErrorCode.SUPERVISOR_TAMPERED);
        HelperImage.Start s = HelperImage.start(installed, HelperLauncher.direct(), List.of(), w);
        assertThat(s).isInstanceOf(HelperImage.Refused.class);
        assertThat(((HelperImage.Refused) s).describe())
                .isEqualTo("SUPERVISOR_TAMPERED: the extracted helper's SHA-256 differs from the shipped one");
        assertThat(HelperImage.hashesOnThisThread() - h0).as(why).isEqualTo(2);
    }
}
