package dev.skillgate.cli;

import static dev.skillgate.cli.LauncherProcess.bash;
import static dev.skillgate.cli.LauncherProcess.quote;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.skillgate.fixtures.TestNodeBinary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18: on a terminal, a live progress line while a run is in flight, never on a pipe (decision
 * 0641). A real pseudo-terminal comes from util-linux {@code script}; the same run through pipes
 * shows no progress line. There was none before.
 */
@EnabledOnOs(OS.LINUX)
class ProgressLineIT {
    @TempDir
    Path tmp;

    @Test
    void aTerminalGetsAProgressLineAPipeDoesNot() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/script")), "needs util-linux script for a pty");
        Path skill = Files.createDirectories(tmp.resolve("skills/slow"));
        Files.writeString(skill.resolve("SKILL.md"), "---\nname: slow\ndescription: Waits a little.\n---\n");
        Files.createDirectories(skill.resolve("scripts"));
        Files.writeString(
                skill.resolve("scripts/s.mjs"), "setTimeout(() => process.stdout.write('{\"ok\":true}'), 1500);\n");
        Files.writeString(
                skill.resolve("execution.json"),
                "{\"schemaVersion\":1,\"entrypoint\":\"scripts/s.mjs\",\"files\":[\"scripts/s.mjs\"],"
                        + "\"inputSchema\":{\"type\":\"object\",\"properties\":{}},"
                        + "\"outputSchema\":{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"}}},"
                        + "\"timeoutMs\":30000,\"maxOutputBytes\":4096}");
        String launcher = quote(DistributionIT.CHECKOUT.resolve("bin/skillgate"));
        String command = launcher + " run " + quote(skill) + " --node " + quote(TestNodeBinary.require())
                + " --input '{}' --data-dir " + quote(tmp.resolve("data")) + " --workspace " + quote(tmp);
        LauncherProcess.Result onPty = bash("echo yes | script -qec " + quote(command) + " /dev/null", tmp, Map.of());
        assertThat(onPty.exit()).as(onPty.toString()).isZero();
        assertThat(onPty.stdout())
                .as(onPty.toString())
                .contains("status: SUCCEEDED")
                .contains("\r\u001b[Kslow: running, ")
                .contains(" of 30.0 s, output ")
                .contains(" of 4096 bytes");

        LauncherProcess.Result onPipe = bash("echo yes | " + command, tmp, Map.of());
        assertThat(onPipe.exit()).as(onPipe.toString()).isZero();
        assertThat(onPipe.stdout() + onPipe.stderr()).doesNotContain("\u001b[K").doesNotContain("slow: running");
    }
}
