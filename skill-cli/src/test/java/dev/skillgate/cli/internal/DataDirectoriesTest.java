package dev.skillgate.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.ErrorCode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** Where {@code skillgate run} keeps its state by default (decision 0522), on real directories. */
class DataDirectoriesTest {
    @TempDir
    Path tmp;

    @Test
    void theStateHomeFollowsTheXdgRuleAndNeverFallsBackToTmp() {
        assertThat(DataDirectories.defaultParent(Map.of("XDG_STATE_HOME", "/x/state", "HOME", "/home/u"), "/p"))
                .contains(Path.of("/x/state/skillgate"));
        assertThat(DataDirectories.defaultParent(Map.of("XDG_STATE_HOME", "", "HOME", "/home/u"), "/p"))
                .contains(Path.of("/home/u/.local/state/skillgate"));
        assertThat(DataDirectories.defaultParent(Map.of("XDG_STATE_HOME", "rel/state", "HOME", "/home/u/"), "/p"))
                .as("a relative XDG_STATE_HOME is ignored")
                .contains(Path.of("/home/u/.local/state/skillgate"));
        assertThat(DataDirectories.defaultParent(Map.of(), "/p")).contains(Path.of("/p/.local/state/skillgate"));
        assertThat(DataDirectories.defaultParent(Map.of("HOME", "relative"), ""))
                .isEmpty();
        assertThat(DataDirectories.defaultParent(Map.of(), null)).isEmpty();
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void aRunDirectoryIsCreatedPrivateAndOnlyWhereNoOtherUserCanChangeIt() throws IOException {
        Path parent = tmp.resolve("home/.local/state/skillgate");
        DataDirectories.Created ok = DataDirectories.createRun(parent);
        assertThat(ok.directory()).isPresent();
        assertThat(ok.directory().get().getParent()).isEqualTo(parent);
        assertThat(PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(ok.directory().get())))
                .isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tmp.resolve("home"))))
                .isEqualTo("rwx------");

        Path shared = Files.createDirectory(tmp.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        DataDirectories.Created refused = DataDirectories.createRun(shared.resolve("state/skillgate"));
        assertThat(refused.directory()).isEmpty();
        assertThat(refused.unsafe().orElseThrow().code()).isEqualTo(ErrorCode.DATA_DIRECTORY_UNSAFE);
        assertThat(shared.resolve("state")).doesNotExist();

        Path file = Files.writeString(tmp.resolve("a-file"), "x");
        DataDirectories.Created failed = DataDirectories.createRun(file.resolve("skillgate"));
        assertThat(failed.directory()).isEmpty();
        assertThat(failed.unsafe())
                .as("a file on the path is an I/O failure, not a co-tenant")
                .isEmpty();
        assertThat(failed.failure()).isPresent();
    }

    @Test
    void theCoveringMountDecidesWhetherItIsNoexec() {
        java.util.List<String> info = java.util.List.of(
                "1 0 8:1 / / rw,relatime - ext4 /dev/sda1 rw",
                "2 1 0:40 / /srv/no\\040exec rw,noexec,relatime - tmpfs tmpfs rw",
                "3 1 0:41 / /srv/ok rw,relatime - tmpfs tmpfs rw",
                "4 3 0:42 / /srv/ok/inner rw,nosuid,noexec - tmpfs tmpfs rw");
        assertThat(DataDirectories.noexecMount("/home/me/state", info)).isEmpty();
        assertThat(DataDirectories.noexecMount("/srv/no exec/data", info)).contains("/srv/no exec");
        assertThat(DataDirectories.noexecMount("/srv/ok/data", info)).isEmpty();
        assertThat(DataDirectories.noexecMount("/srv/ok/inner", info)).contains("/srv/ok/inner");
        assertThat(DataDirectories.noexecMount("/srv/okay", info)).isEmpty();
    }
}
