package dev.skillgate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MainTest extends CommandTestSupport {

    @Test
    void versionPrintsTheBuildVersion() {
        assertThat(run("--version")).isZero();
        assertThat(stdout())
                .matches("skillgate \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(commit ([0-9a-f]{12}(-dirty)?|unknown)\\)\\n");
    }

    @Test
    void versionNamesTheCommitOfThisCheckout() throws Exception {
        Process git = new ProcessBuilder("git", "rev-parse", "--verify", "HEAD")
                .redirectErrorStream(true)
                .start();
        git.getOutputStream().close();
        String head = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assumeTrue(git.waitFor() == 0 && head.matches("[0-9a-f]{40}"), "built from a git checkout");
        assertThat(run("--version")).isZero();
        assertThat(stdout()).contains("(commit " + head.substring(0, 12));
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
