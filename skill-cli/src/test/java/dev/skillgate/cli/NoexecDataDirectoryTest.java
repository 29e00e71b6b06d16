package dev.skillgate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.skillgate.fixtures.TestNodeBinary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18: a data directory on a {@code noexec} file system was refused with {@code
 * PROCESS_OWNERSHIP_UNSUPPORTED} and never said that the supervisor helper could not be executed
 * there. On a real {@code noexec} tmpfs (mounted by the test; skipped where it may not mount), the
 * refusal now names the cause and the fix, before anything runs (decision 0638).
 */
@EnabledOnOs(OS.LINUX)
class NoexecDataDirectoryTest extends CommandTestSupport {
    @TempDir
    Path tmp;

    private static boolean system(String... argv) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
    }

    @Test
    void aNoexecDataDirectoryNamesTheCauseAndTheFix() throws Exception {
        Path mount = Files.createDirectory(tmp.resolve("noexec"));
        assumeTrue(
                system("mount", "-t", "tmpfs", "-o", "noexec,size=4m,mode=0700", "tmpfs", mount.toString()),
                "this test needs to mount a noexec tmpfs (root)");
        try {
            Path skill = Files.createDirectories(tmp.resolve("skills/one"));
            write(skill.resolve("SKILL.md"), "---\nname: one\ndescription: d\n---\n");
            Path data = mount.resolve("data");
            int code = run(
                    "run",
                    skill.toString(),
                    "--node",
                    TestNodeBinary.require().toString(),
                    "--input",
                    "{}",
                    "--data-dir",
                    data.toString(),
                    "--json");
            assertThat(code).as(stderr()).isEqualTo(3);
            assertThat(stderr())
                    .contains("DATA_DIRECTORY_NOEXEC")
                    .contains("mounted noexec (" + mount + ")")
                    .contains("supervisor helper cannot be executed there")
                    .contains("choose a --data-dir on a file system that allows execution");
            assertThat(jsonTree()
                            .get("envelope")
                            .get("errors")
                            .get(0)
                            .get("code")
                            .asString())
                    .isEqualTo("DATA_DIRECTORY_NOEXEC");
            assertThat(data).doesNotExist(); // refused before anything was created
        } finally {
            system("umount", mount.toString());
        }
    }
}
