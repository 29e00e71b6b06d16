package dev.skillgate.runner.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.runner.SupervisorIdentity;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StagingTest {

    @TempDir
    Path base;

    static Map<PortablePath, byte[]> bundle() {
        Map<PortablePath, byte[]> files = new TreeMap<>();
        files.put(PortablePath.of("main.mjs"), "console.log(1)".getBytes(StandardCharsets.UTF_8));
        files.put(PortablePath.of("lib/a b $(x).mjs"), "export const a = 1;".getBytes(StandardCharsets.UTF_8));
        files.put(PortablePath.of("lib/deep/data.json"), "{}".getBytes(StandardCharsets.UTF_8));
        return files;
    }

    Staging.StagedRun stage(Map<PortablePath, byte[]> files) throws Exception {
        return Staging.stage(
                base.resolve("data dir ;&"),
                RunId.of("run-1"),
                files,
                new OwnerRecord.Owner(ProcessHandle.current().pid(), ProcessLiveness.currentJvmToken()),
                Staging.newAttempt());
    }

    static String perms(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void stagesThePrivateLayoutReadOnlyWithTheOwnerRecordOutsideTheBundle() throws Exception {
        Map<PortablePath, byte[]> files = bundle();
        Staging.StagedRun run = stage(files);
        Path root = run.runDir().getParent();
        assertThat(perms(root)).isEqualTo("rwx------");
        assertThat(perms(run.runDir())).isEqualTo("rwx------");
        assertThat(perms(run.home())).isEqualTo("rwx------");
        assertThat(perms(run.tmp())).isEqualTo("rwx------");
        assertThat(perms(run.bundle())).isEqualTo("r-x------");
        assertThat(perms(run.bundle().resolve("lib"))).isEqualTo("r-x------");
        assertThat(perms(run.bundle().resolve("lib/deep/data.json"))).isEqualTo("r--------");
        assertThat(Files.readString(run.staged(PortablePath.of("lib/a b $(x).mjs"))))
                .isEqualTo("export const a = 1;");
        try (var s = Files.list(run.runDir())) {
            assertThat(s.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("owner", "bundle", "home", "tmp");
        }
        assertThat(run.runDir().getFileName().toString()).matches("[0-9a-f]{32}-run-1");
        OwnerRecord record = OwnerRecord.parse(Files.readAllBytes(run.runDir().resolve("owner")))
                .orElseThrow();
        assertThat(record.stager().pid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(record.directoryKey()).isEqualTo(SecureTree.fileKey(run.runDir()));
        assertThat(run.verify(Revision.compute(files), files.size())).isEmpty();

        run.recordSupervisor(new SupervisorIdentity(77, "12345", "a1"));
        OwnerRecord withSv = OwnerRecord.parse(Files.readAllBytes(run.runDir().resolve("owner")))
                .orElseThrow();
        assertThat(withSv.supervisor()).contains(new SupervisorIdentity(77, "12345", "a1"));
        assertThat(run.runDir().resolve("owner.tmp")).doesNotExist();
        assertThat(run.remove()).isEmpty();
        assertThat(run.runDir()).doesNotExist();
        assertThat(root).isDirectory();
    }

    /**
     * Decision 0331: the first record is written without fsync; adding the supervisor is the one
     * durable write (the temp file, then the run directory after the rename). Counted from the JDK's
     * own {@code jdk.FileForce} events, which every {@code FileChannel.force} emits.
     */
    @Test
    void theOwnershipRecordIsMadeDurableOnceWhenTheSupervisorIsRecorded() throws Exception {
        Staging.StagedRun[] run = new Staging.StagedRun[1];
        List<Path> atStaging = forcedFiles(() -> run[0] = stage(bundle()));
        assertThat(atStaging).noneMatch(p -> p.startsWith(run[0].runDir()));
        assertThat(OwnerRecord.parse(Files.readAllBytes(run[0].runDir().resolve("owner"))))
                .isPresent();

        List<Path> atRecord = forcedFiles(() -> run[0].recordSupervisor(new SupervisorIdentity(77, "12345", "a1")));
        assertThat(atRecord).containsExactly(run[0].runDir().resolve("owner.tmp"), run[0].runDir());
        assertThat(OwnerRecord.parse(Files.readAllBytes(run[0].runDir().resolve("owner")))
                        .orElseThrow()
                        .supervisor())
                .isPresent();
        assertThat(run[0].remove()).isEmpty();
    }

    interface Step {
        void run() throws Exception;
    }

    /** The files {@code step} forced, in order, from the JDK's {@code jdk.FileForce} events. */
    List<Path> forcedFiles(Step step) throws Exception {
        Path recording = Files.createTempFile(base, "forces", ".jfr");
        try (Recording r = new Recording()) {
            r.enable("jdk.FileForce").withThreshold(java.time.Duration.ZERO);
            r.start();
            step.run();
            r.stop();
            r.dump(recording);
        }
        return RecordingFile.readAllEvents(recording).stream()
                .filter(e -> e.getEventType().getName().equals("jdk.FileForce"))
                .sorted(java.util.Comparator.comparing(RecordedEvent::getStartTime))
                .map(e -> Path.of(e.getString("path")))
                .toList();
    }

    @Test
    void everyKindOfTamperingIsDetected() throws Exception {
        Map<PortablePath, byte[]> files = bundle();
        Revision rev = Revision.compute(files);
        // Changed content.
        Staging.StagedRun a = stage(files);
        Path f = a.staged(PortablePath.of("main.mjs"));
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        Files.writeString(f, "console.log(2)");
        assertThat(a.verify(rev, files.size())).get().extracting(d -> d.code()).isEqualTo(ErrorCode.STAGING_TAMPERED);
        // An added file.
        Staging.StagedRun b = stage(files);
        Files.setPosixFilePermissions(b.bundle(), PosixFilePermissions.fromString("rwx------"));
        Files.writeString(b.bundle().resolve("extra.mjs"), "x");
        assertThat(b.verify(rev, files.size())).isPresent();
        // A removed file.
        Staging.StagedRun c = stage(files);
        Files.setPosixFilePermissions(c.bundle(), PosixFilePermissions.fromString("rwx------"));
        Files.delete(c.bundle().resolve("main.mjs"));
        assertThat(c.verify(rev, files.size())).isPresent();
        // A file replaced by a link to identical content elsewhere.
        Staging.StagedRun d = stage(files);
        Path outside = Files.writeString(base.resolve("outside.mjs"), "console.log(1)");
        Files.setPosixFilePermissions(d.bundle(), PosixFilePermissions.fromString("rwx------"));
        Files.delete(d.bundle().resolve("main.mjs"));
        Files.createSymbolicLink(d.bundle().resolve("main.mjs"), outside);
        assertThat(d.verify(rev, files.size())).isPresent();
        // A directory replaced by a link to an identical copy elsewhere.
        Map<PortablePath, byte[]> nested = Map.of(PortablePath.of("lib/x.mjs"), "1".getBytes(StandardCharsets.UTF_8));
        Staging.StagedRun e = stage(nested);
        assertThat(e.verify(Revision.compute(nested), 1)).isEmpty();
        Path copy = Files.createDirectories(base.resolve("copy/lib"));
        Files.writeString(copy.resolve("x.mjs"), "1");
        Files.setPosixFilePermissions(e.bundle(), PosixFilePermissions.fromString("rwx------"));
        Files.setPosixFilePermissions(e.bundle().resolve("lib"), PosixFilePermissions.fromString("rwx------"));
        Files.delete(e.bundle().resolve("lib/x.mjs"));
        Files.delete(e.bundle().resolve("lib"));
        Files.createSymbolicLink(e.bundle().resolve("lib"), copy);
        assertThat(e.verify(Revision.compute(nested), 1)).isPresent();
    }

    @Test
    void removalNeverFollowsLinksTheScriptLeftInItsHome() throws Exception {
        Staging.StagedRun run = stage(bundle());
        Path victimDir = Files.createDirectories(base.resolve("victim"));
        Path victim = Files.writeString(victimDir.resolve("keep.txt"), "keep");
        Files.createSymbolicLink(run.home().resolve("link-to-dir"), victimDir);
        Files.createSymbolicLink(run.tmp().resolve("link-to-file"), victim);
        Path locked = Files.createDirectories(run.tmp().resolve("locked/inner"));
        Files.writeString(locked.resolve("f"), "x");
        Files.setPosixFilePermissions(locked.getParent(), PosixFilePermissions.fromString("---------"));
        assertThat(run.remove()).isEmpty();
        assertThat(run.runDir()).doesNotExist();
        assertThat(Files.readString(victim)).isEqualTo("keep");
        assertThat(victimDir).isDirectory();
    }

    @Test
    void aRunDirectoryThatWasSwappedIsNotRemoved() throws Exception {
        Staging.StagedRun run = stage(bundle());
        Path moved = base.resolve("moved-away");
        Files.move(run.runDir(), moved);
        Files.createDirectory(run.runDir());
        Files.writeString(run.runDir().resolve("precious"), "p");
        assertThat(run.remove()).contains("directory identity changed");
        assertThat(run.runDir().resolve("precious")).exists();
    }

    @Test
    void aStagingRootThatIsALinkOrSharedIsRefused() throws Exception {
        Path data = Files.createDirectories(base.resolve("d1"));
        Path elsewhere = Files.createDirectories(base.resolve("elsewhere"));
        Files.createSymbolicLink(data.resolve("staging"), elsewhere);
        assertThatThrownBy(() -> Staging.stagingRoot(data))
                .isInstanceOf(StagingException.class)
                .extracting(e -> ((StagingException) e).code())
                .isEqualTo(ErrorCode.STAGING_FAILED);
        Path data2 = Files.createDirectories(base.resolve("d2/staging")).getParent();
        Files.setPosixFilePermissions(data2.resolve("staging"), PosixFilePermissions.fromString("rwxr-xr-x"));
        assertThatThrownBy(() -> Staging.stagingRoot(data2)).isInstanceOf(StagingException.class);
    }

    @Test
    void aDataDirectoryBelowADirectoryOthersCanWriteIsRefusedBeforeAnythingIsCreated() throws Exception {
        Path shared = Files.createDirectory(base.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path data = shared.resolve("data");
        assertThatThrownBy(() -> Staging.stage(
                        data,
                        RunId.of("run-1"),
                        bundle(),
                        new OwnerRecord.Owner(ProcessHandle.current().pid(), ProcessLiveness.currentJvmToken()),
                        Staging.newAttempt()))
                .isInstanceOf(StagingException.class)
                .hasMessageContaining("data directory " + data)
                .hasMessageContaining(shared + " is writable by group or others")
                .extracting(e -> ((StagingException) e).code())
                .isEqualTo(ErrorCode.DATA_DIRECTORY_UNSAFE);
        assertThat(data).doesNotExist();
        // An existing data directory that others may write is refused too, and nothing is added to it.
        Path loose = Files.createDirectory(base.resolve("loose"));
        Files.setPosixFilePermissions(loose, PosixFilePermissions.fromString("rwxrwx---"));
        assertThatThrownBy(() -> Staging.stagingRoot(loose))
                .extracting(e -> ((StagingException) e).code())
                .isEqualTo(ErrorCode.DATA_DIRECTORY_UNSAFE);
        try (var s = Files.list(loose)) {
            assertThat(s).isEmpty();
        }
    }

    @Test
    void collidingPathsFailStagingAndLeaveNothingBehind() throws Exception {
        Map<PortablePath, byte[]> files = new TreeMap<>();
        files.put(PortablePath.of("a"), new byte[] {1});
        files.put(PortablePath.of("a/b.mjs"), new byte[] {2});
        assertThatThrownBy(() -> stage(files)).isInstanceOf(StagingException.class);
        try (var s = Files.list(base.resolve("data dir ;&").resolve("staging"))) {
            assertThat(s).isEmpty();
        }
    }

    @Test
    void runDirectoryNamesParseStrictly() {
        assertThat(Staging.parseRunDirName("0123456789abcdef0123456789abcdef-run-1"))
                .isPresent();
        assertThat(Staging.parseRunDirName("0123456789abcdef0123456789abcdef-")).isEmpty();
        assertThat(Staging.parseRunDirName("0123456789abcdef0123456789abcde-run"))
                .isEmpty();
        assertThat(Staging.parseRunDirName("0123456789abcdef0123456789abcdef-r/n"))
                .isEmpty();
        assertThat(Staging.parseRunDirName(".sweep")).isEmpty();
        assertThat(Optional.of(1)).isPresent();
    }
}
