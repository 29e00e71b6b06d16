package dev.skillgate.cli;

import static dev.skillgate.cli.LauncherProcess.bash;
import static dev.skillgate.cli.LauncherProcess.quote;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18 through the real launcher, with bytes that are not UTF-8 typed by a shell ({@code $'\xff'}):
 * an invalid byte in {@code --input} is refused exactly as through {@code @FILE}, and a directory
 * whose name is not UTF-8 is reported as such, not as "does not exist" (decision 0637). Both failed
 * before.
 */
@EnabledOnOs(OS.LINUX)
class ArgumentBytesIT {
    @TempDir
    Path tmp;

    private static final String LAUNCHER = quote(DistributionIT.CHECKOUT.resolve("bin/skillgate"));

    private Path skill() throws IOException {
        Path d = Files.createDirectories(tmp.resolve("skills/one"));
        Files.writeString(d.resolve("SKILL.md"), "---\nname: one\ndescription: d\n---\n");
        Files.createDirectories(d.resolve("scripts"));
        Files.writeString(d.resolve("scripts/s.mjs"), "process.stdout.write('{}')\n");
        Files.writeString(
                d.resolve("execution.json"),
                "{\"schemaVersion\":1,\"entrypoint\":\"scripts/s.mjs\",\"files\":[\"scripts/s.mjs\"],"
                        + "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"string\"}}},"
                        + "\"outputSchema\":{\"type\":\"object\",\"properties\":{}}}");
        return d;
    }

    @Test
    void anInvalidByteInTheArgumentIsRefusedLikeTheSameBytesInAFile() throws IOException {
        Path skill = skill();
        LauncherProcess.Result arg =
                bash(LAUNCHER + " check-input " + quote(skill) + " --input $'{\"n\":\"\\xff\"}' --json", tmp, Map.of());
        assertThat(arg.exit()).as(arg.toString()).isEqualTo(1);
        assertThat(arg.stdout()).contains("JSON_INVALID_UTF8");
        LauncherProcess.Result file = bash(
                "printf '{\"n\":\"\\377\"}' > in.json && " + LAUNCHER + " check-input " + quote(skill)
                        + " --input @in.json --json",
                tmp,
                Map.of());
        assertThat(file.exit()).as(file.toString()).isEqualTo(1);
        assertThat(file.stdout()).contains("JSON_INVALID_UTF8");
        LauncherProcess.Result valid = bash(
                LAUNCHER + " check-input " + quote(skill) + " --input $'{\"n\":\"caf\\xc3\\xa9\"}'", tmp, Map.of());
        assertThat(valid.exit()).as(valid.toString()).isZero();
    }

    @Test
    void aDirectoryWhoseNameIsNotUtf8IsReportedAsSuch() {
        LauncherProcess.Result r = bash(
                "mkdir -p $'caf\\xe9/x' && " + LAUNCHER + " validate $'caf\\xe9' ; echo \"exit $?\"", tmp, Map.of());
        assertThat(r.stdout()).contains("exit 2");
        assertThat(r.stderr()).contains("is not valid UTF-8").doesNotContain("does not exist");
    }
}
