package dev.skillgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.fixtures.TestNodeBinary;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18: Ctrl-C during a run printed {@code CLEANUP_UNKNOWN} and exited 130 although the audit log
 * recorded {@code CANCELLED}, cleanup {@code PROVEN}, and the temporary data directory was left
 * behind without a word. Through the real launcher and a real script, SIGINT now stops the script,
 * the command waits for the settlement, prints it, exits by the table (1 for {@code CANCELLED}) and
 * removes the temporary data directory (decision 0638). Only liveness deadlines, no durations.
 */
@EnabledOnOs(OS.LINUX)
class InterruptedRunIT {
    @TempDir
    Path tmp;

    @Test
    void ctrlCWaitsForTheSettlementAndCleansUp() throws Exception {
        Path skill = Files.createDirectories(tmp.resolve("skills/sleeper"));
        Files.writeString(skill.resolve("SKILL.md"), "---\nname: sleeper\ndescription: Sleeps.\n---\n");
        Files.createDirectories(skill.resolve("scripts"));
        Files.writeString(
                skill.resolve("scripts/s.mjs"),
                "import { readFileSync, writeFileSync } from 'node:fs';\n"
                        + "const input = JSON.parse(readFileSync(0, 'utf8'));\n"
                        + "writeFileSync(input.file, 'started');\n"
                        + "setTimeout(() => process.stdout.write('{}'), 110000);\n");
        Files.writeString(
                skill.resolve("execution.json"),
                "{\"schemaVersion\":1,\"entrypoint\":\"scripts/s.mjs\",\"files\":[\"scripts/s.mjs\"],"
                        + "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"file\":{\"type\":\"string\"}}},"
                        + "\"outputSchema\":{\"type\":\"object\",\"properties\":{}},\"timeoutMs\":120000}");
        Path marker = tmp.resolve("started");
        Path state = Files.createDirectories(tmp.resolve("state"));
        // A build runs its tests with SIGINT ignored, and ignored signals are inherited: reset it to
        // the default a terminal gives, or the JVM would (rightly) never see the Ctrl-C.
        ProcessBuilder pb = new ProcessBuilder(
                "env",
                "--default-signal=INT",
                DistributionIT.CHECKOUT.resolve("bin/skillgate").toString(),
                "run",
                skill.toString(),
                "--node",
                TestNodeBinary.require().toString(),
                "--input",
                "{\"file\":\"" + marker + "\"}",
                "--workspace",
                tmp.toString());
        pb.environment().put("XDG_STATE_HOME", state.toString());
        pb.environment().remove("JAVA_HOME");
        pb.environment().remove("SKILLGATE_JAVA_OPTS");
        Process p = pb.start();
        try (OutputStream stdin = p.getOutputStream()) {
            stdin.write("yes\n".getBytes(StandardCharsets.UTF_8));
        }
        CompletableFuture<String> out = drain(p.getInputStream());
        CompletableFuture<String> err = drain(p.getErrorStream());
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (!Files.exists(marker) && p.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(marker).as("the script started").exists();
        // env execs the launcher, which execs the JVM: the same process.
        Process kill = new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start();
        assertThat(kill.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.waitFor(2, TimeUnit.MINUTES)).as("the command ended").isTrue();
        String shown = "exit " + p.exitValue() + "\n" + out.join() + "\n" + err.join();
        assertThat(p.exitValue()).as(shown).isEqualTo(1);
        assertThat(out.join()).as(shown).contains("status: CANCELLED").contains("cleanup: PROVEN");
        assertThat(err.join()).as(shown).contains("SIGINT: stopping the script and waiting for the run to settle");
        try (Stream<Path> left = Files.list(state.resolve("skillgate"))) {
            // What stays beside the removed run directory is the shared supervisor helper (decision 0891).
            List<String> kept = left.map(f -> f.getFileName().toString()).toList();
            assertThat(kept).as("the temporary data directory was removed").containsExactly("supervisor");
        }
    }

    private static CompletableFuture<String> drain(InputStream in) {
        return CompletableFuture.supplyAsync(() -> {
            try (in) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        });
    }
}
