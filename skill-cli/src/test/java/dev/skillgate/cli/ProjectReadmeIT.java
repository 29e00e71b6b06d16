package dev.skillgate.cli;

import static dev.skillgate.cli.LauncherProcess.bash;
import static dev.skillgate.cli.LauncherProcess.pathWith;
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
 * The README's one-command project run, exactly as written, through the checkout's
 * {@code bin/skillgate} from the checkout root, with a fresh {@code HOME} (so the default data
 * directory is new). Runs in {@code integration-test}, after {@code package} built the jars.
 */
@EnabledOnOs(OS.LINUX)
class ProjectReadmeIT {
    @TempDir
    Path fresh;

    @Test
    void theReadmeProjectJobRunsTheJavaScriptFixture() throws IOException {
        String command = DistributionIT.readmeBlock("project-job").strip();
        assertThat(command).contains("bin/skillgate project run test-fixtures/projects/js-node-test --script test");
        Path home = Files.createDirectory(fresh.resolve("home"));
        LauncherProcess.Result r =
                bash(command, DistributionIT.CHECKOUT, Map.of("HOME", home.toString(), "PATH", pathWith(home)));

        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout())
                .contains("--test test/math.test.js test/strings.test.mjs")
                .contains("status: SUCCEEDED")
                .contains("tests 3, pass 3, fail 0")
                .contains("cleanup: PROVEN");
        // The fixture itself is untouched: the steps ran in a private staged copy.
        assertThat(DistributionIT.CHECKOUT.resolve("test-fixtures/projects/js-node-test/dist"))
                .doesNotExist();
    }
}
