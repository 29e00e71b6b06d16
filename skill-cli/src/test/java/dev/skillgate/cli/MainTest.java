package dev.skillgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MainTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return Main.run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void versionPrintsTheBuildVersion() {
        assertThat(run("--version")).isZero();
        assertThat(stdout()).matches("skillgate \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\\n");
    }

    @Test
    void helpListsExitCodes() {
        assertThat(run("--help")).isZero();
        assertThat(stdout())
                .contains("usage: skillgate")
                .contains("4 cleanup unknown")
                .contains("not a sandbox");
    }

    @Test
    void noArgumentsAndUnknownCommandsAreUsageErrors() {
        assertThat(run()).isEqualTo(ExitCode.USAGE.code());
        assertThat(run("frobnicate\u001b[2J")).isEqualTo(2);
        assertThat(stderr())
                .contains("unknown command")
                .doesNotContain("\u001b")
                .doesNotContain("Exception");
    }
}
