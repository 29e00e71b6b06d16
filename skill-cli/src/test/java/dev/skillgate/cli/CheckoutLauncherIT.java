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
 * The checkout's own {@code bin/skillgate}, linked onto {@code PATH} as a developer links it: it
 * must find {@code skill-cli/target} through the link, from any working directory. Runs in
 * {@code integration-test}, after {@code package} built the jars it runs.
 */
@EnabledOnOs(OS.LINUX)
class CheckoutLauncherIT {
    @TempDir
    Path fresh;

    @Test
    void linkedOntoPathItRunsFromAnyDirectory() throws IOException {
        Path bin = Files.createDirectory(fresh.resolve("bin"));
        Files.createSymbolicLink(bin.resolve("skillgate"), DistributionIT.CHECKOUT.resolve("bin/skillgate"));

        LauncherProcess.Result version = bash("skillgate --version", fresh, Map.of("PATH", pathWith(bin)));
        assertThat(version.exit()).as(version.toString()).isZero();
        assertThat(version.stdout()).startsWith("skillgate " + DistributionIT.VERSION + " (commit ");

        LauncherProcess.Result validate = bash(
                "skillgate validate "
                        + LauncherProcess.quote(DistributionIT.CHECKOUT.resolve("examples/skills/hello-world")),
                fresh,
                Map.of("PATH", pathWith(bin)));
        assertThat(validate.exit()).as(validate.toString()).isZero();
    }

    @Test
    void linkedOntoPathItRunsTheReadmeMainJob() throws IOException {
        Path bin = Files.createDirectory(fresh.resolve("bin"));
        Path relay = Files.createDirectory(fresh.resolve("relay"));
        Files.createSymbolicLink(relay.resolve("skillgate"), DistributionIT.CHECKOUT.resolve("bin/skillgate"));
        Files.createSymbolicLink(bin.resolve("skillgate"), Path.of("../relay/skillgate"));

        LauncherProcess.Result r =
                bash(DistributionIT.readmeMainJob(), DistributionIT.CHECKOUT, Map.of("PATH", pathWith(bin)));

        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout())
                .contains("status: SUCCEEDED")
                .contains("output: {\"greeting\":\"Hello, Ada!\",\"length\":11}")
                .contains("cleanup: PROVEN");
    }
}
