package dev.skillgate.runner.linux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.runner.DirectoryIdentity;
import dev.skillgate.runner.SupervisionResult.CleanupEvidence;
import dev.skillgate.runner.SupervisionResult.Outcome;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Attack 4 of issue 15 at the helper: the working directory is bound by device and inode, opened
 * once, checked, and entered with {@code fchdir} on that descriptor. A directory renamed away and
 * replaced before the check is refused ({@code WORKSPACE_CHANGED}, nothing started); replaced after
 * the check, it changes nothing: the script runs in the directory that was checked.
 */
@EnabledOnOs(OS.LINUX)
@ExtendWith(Tags.class)
class WorkspaceIdentityTest {
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

    static void swap(Path dir) throws IOException {
        Files.move(dir, dir.resolveSibling(dir.getFileName() + ".approved"));
        Files.createDirectory(dir);
    }

    static String stdout(HelperRun.Report r) {
        return new String(r.result().stdout(), StandardCharsets.UTF_8);
    }

    @Test
    void aDirectoryRenamedAwayAndReplacedBeforeTheLaunchIsRefused() throws Exception {
        TestRun t = TestRun.of(runs, "cwd.mjs");
        t.dirIdentity = DirectoryIdentity.of(t.dir);
        swap(t.dir);

        HelperRun.Report r = t.run(core);
        assertThat(r.result().outcome()).isEqualTo(Outcome.SETUP_FAILED);
        assertThat(r.result().detail()).isEqualTo("WORKSPACE_CHANGED: working directory is not the approved directory");
        assertThat(r.result().cleanup()).isEqualTo(CleanupEvidence.nothingStarted());
        assertThat(r.spawned()).isEmpty();
        assertThat(t.fsyncRecorder.recorded.get())
                .as("refused before the ownership record")
                .isNull();
        assertThat(t.file("touched-by-script")).doesNotExist();
        assertThat(t.dir.resolveSibling(t.dir.getFileName() + ".approved").resolve("touched-by-script"))
                .doesNotExist();
    }

    @Test
    void aDirectoryRenamedAwayAndNotReplacedIsRefusedAsChangedNotAsASpawnFailure() throws Exception {
        // The gap of a same-uid swapper between its rename and its mkdir (LastMomentAttackTest).
        TestRun t = TestRun.of(runs, "cwd.mjs");
        t.dirIdentity = DirectoryIdentity.of(t.dir);
        Files.move(t.dir, t.dir.resolveSibling(t.dir.getFileName() + ".approved"));

        HelperRun.Report r = t.run(core);
        assertThat(r.result().outcome()).isEqualTo(Outcome.SETUP_FAILED);
        assertThat(r.result().detail()).isEqualTo("WORKSPACE_CHANGED: working directory is not the approved directory");
        assertThat(r.result().cleanup()).isEqualTo(CleanupEvidence.nothingStarted());
        assertThat(r.spawned()).isEmpty();
        assertThat(t.dir.resolveSibling(t.dir.getFileName() + ".approved").resolve("touched-by-script"))
                .doesNotExist();
    }

    @Test
    void aDirectoryReplacedAfterTheCheckChangesNothing() throws Exception {
        TestRun t = TestRun.of(runs, "cwd.mjs");
        DirectoryIdentity approved = DirectoryIdentity.of(t.dir).orElseThrow();
        t.dirIdentity = java.util.Optional.of(approved);
        FsyncRecorder inner = t.fsyncRecorder;
        // The helper has opened and checked the directory before it asks for the ownership record.
        t.recorder = owner -> {
            swap(t.dir);
            inner.record(owner);
        };

        HelperRun.Report r = t.run(core);
        assertThat(r.result().outcome()).isEqualTo(Outcome.EXITED);
        Path moved = t.dir.resolveSibling(t.dir.getFileName() + ".approved");
        assertThat(stdout(r))
                .isEqualTo("{\"cwd\":\"" + moved + "\",\"dev\":\"" + approved.device() + "\",\"ino\":\""
                        + approved.inode() + "\"}");
        assertThat(moved.resolve("touched-by-script")).exists();
        assertThat(t.file("touched-by-script")).as("never in the replacement").doesNotExist();
    }

    @Test
    void withoutABoundIdentityTheDirectoryIsStillOpenedOnceAndEnteredByDescriptor() throws Exception {
        TestRun t = TestRun.of(runs, "cwd.mjs");
        DirectoryIdentity opened = DirectoryIdentity.of(t.dir).orElseThrow();
        FsyncRecorder inner = t.fsyncRecorder;
        t.recorder = owner -> {
            swap(t.dir);
            inner.record(owner);
        };

        HelperRun.Report r = t.run(core);
        assertThat(r.result().outcome()).isEqualTo(Outcome.EXITED);
        assertThat(stdout(r)).contains("\"ino\":\"" + opened.inode() + "\"");
        assertThat(t.file("touched-by-script")).doesNotExist();
    }

    @Test
    void aMatchingIdentityRuns() throws Exception {
        TestRun t = TestRun.of(runs, "cwd.mjs");
        t.dirIdentity = DirectoryIdentity.of(t.dir);
        HelperRun.Report r = t.run(core);
        assertThat(r.result().outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r.result().cleanup().proven()).isTrue();
        assertThat(t.file("touched-by-script")).exists();
    }
}
