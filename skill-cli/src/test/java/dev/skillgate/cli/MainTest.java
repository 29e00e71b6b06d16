package dev.skillgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MainTest extends CommandTestSupport {

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
