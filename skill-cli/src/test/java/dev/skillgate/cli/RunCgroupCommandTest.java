package dev.skillgate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.skillgate.fixtures.DelegatedCgroup;
import dev.skillgate.fixtures.TestNodeBinary;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code skillgate run --cgroup DIR} with a real {@code node} and the Linux supervisor (decision 0544):
 * the run is placed in its own child cgroup of the delegated directory, which is removed afterwards;
 * a directory that is no cgroup v2 directory refuses the run before the script starts; a missing one
 * is a usage error. The delegated directory is created below the cgroup2 mount (skipped with the
 * reason where that cannot be done).
 */
@EnabledOnOs(OS.LINUX)
class RunCgroupCommandTest {
    private static final String NODE = TestNodeBinary.require().toString();
    /** Writes {@code file}, then waits (at most 20 s) for {@code go} to exist. */
    private static final String WAITER = """
            import { readFileSync, writeFileSync, existsSync } from 'node:fs';
            const input = JSON.parse(readFileSync(0, 'utf8'));
            writeFileSync(input.file, 'ran');
            const until = Date.now() + 20000;
            const tick = () => existsSync(input.go) || Date.now() > until
                ? process.stdout.write('{}') : setTimeout(tick, 20);
            tick();
            """;

    @TempDir
    Path tmp;

    private Path skill;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeEach
    void skill() throws IOException {
        skill = Files.createDirectories(tmp.resolve("skills").resolve("waiter"));
        Files.writeString(skill.resolve("SKILL.md"), "---\nname: waiter\ndescription: Waits for a file.\n---\n");
        Files.createDirectories(skill.resolve("scripts"));
        Files.writeString(skill.resolve("scripts/w.mjs"), WAITER);
        Files.writeString(
                skill.resolve("execution.json"),
                "{\"schemaVersion\":1,\"entrypoint\":\"scripts/w.mjs\",\"files\":[\"scripts/w.mjs\"],"
                        + "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"file\":{\"type\":\"string\"},"
                        + "\"go\":{\"type\":\"string\"}},\"required\":[\"file\",\"go\"],"
                        + "\"additionalProperties\":false},"
                        + "\"outputSchema\":{\"type\":\"object\",\"properties\":{}},\"timeoutMs\":30000}");
    }

    private int run(String... args) {
        return Main.run(
                args,
                new ByteArrayInputStream("yes\n".getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String input() {
        return "{\"file\":\"" + tmp.resolve("ran") + "\",\"go\":\"" + tmp.resolve("go") + "\"}";
    }

    private String[] runArgs(Path cgroup) {
        return new String[] {
            "run",
            skill.toString(),
            "--node",
            NODE,
            "--input",
            input(),
            "--data-dir",
            tmp.resolve("data").toString(),
            "--cgroup",
            cgroup.toString()
        };
    }

    @Test
    void theRunLivesInItsOwnCgroupBelowTheDelegatedOne() throws Exception {
        try (DelegatedCgroup cgroup = DelegatedCgroup.create("skillgate-cli-test-")) {
            assumeTrue(cgroup.directory().isPresent(), cgroup.unavailable());
            Path delegated = cgroup.directory().get();
            CompletableFuture<Integer> code = CompletableFuture.supplyAsync(() -> run(runArgs(delegated)));
            List<Path> live = awaitTheScriptInOneRunCgroup(code, cgroup);
            String procs = Files.readString(live.get(0).resolve("cgroup.procs")).trim();
            assertThat(procs).isNotEmpty();
            assertThat(procs.split("\n"))
                    .doesNotContain(Long.toString(ProcessHandle.current().pid()));
            Files.writeString(tmp.resolve("go"), "");

            assertThat(code.get(30, TimeUnit.SECONDS))
                    .as(out.toString(StandardCharsets.UTF_8) + err)
                    .isZero();
            assertThat(out.toString(StandardCharsets.UTF_8))
                    .contains("status: SUCCEEDED")
                    .contains("cleanup: PROVEN");
            assertThat(cgroup.runCgroups())
                    .as("the run cgroup is removed after the run")
                    .isEmpty();
        }
    }

    private String[] withArgs(String[] base, String... more) {
        List<String> all = new ArrayList<>(List.of(base));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    @Test
    void theLimitFlagsAskForEachCgroupLimitAndTheRunReportsEachPart() throws Exception {
        try (DelegatedCgroup cgroup = DelegatedCgroup.create("skillgate-cli-test-")) {
            assumeTrue(cgroup.directory().isPresent(), cgroup.unavailable());
            Path delegated = cgroup.directory().get();
            String[] argv = withArgs(
                    runArgs(delegated), "--memory-max", "268435456", "--pids-max", "64", "--cpu-max", "50000/100000");
            CompletableFuture<Integer> code = CompletableFuture.supplyAsync(() -> run(argv));
            List<Path> live = awaitTheScriptInOneRunCgroup(code, cgroup);
            // Where a controller is available the run cgroup carries exactly the asked-for limit.
            Map<String, String> expected =
                    Map.of("memory.max", "268435456", "pids.max", "64", "cpu.max", "50000 100000");
            Map<String, String> applied = new java.util.TreeMap<>();
            for (String file : expected.keySet()) {
                if (Files.exists(live.get(0).resolve(file))) {
                    applied.put(
                            file, Files.readString(live.get(0).resolve(file)).trim());
                }
            }
            Files.writeString(tmp.resolve("go"), "");
            assertThat(code.get(30, TimeUnit.SECONDS))
                    .as(out.toString(StandardCharsets.UTF_8) + err)
                    .isZero();
            String text = out.toString(StandardCharsets.UTF_8);
            String line = text.lines()
                    .filter(l -> l.startsWith("confinement: "))
                    .findFirst()
                    .orElseThrow();
            for (String part : List.of("memory", "process count", "cpu")) {
                assertThat(line).as(part).containsPattern(part + " (ENFORCED|NOT_ENFORCED)(,|$)");
            }
            applied.forEach((file, value) -> assertThat(value).as(file).isEqualTo(expected.get(file)));
            if (applied.containsKey("memory.max")) {
                assertThat(line).contains("memory ENFORCED");
            }
        }
    }

    @Test
    void aBadLimitValueIsAUsageErrorAndNothingRuns() throws IOException {
        Path notACgroup = Files.createDirectories(tmp.resolve("not-a-cgroup"));
        String[][] bad = {
            {"--memory-max", "12k"},
            {"--memory-max", "0"},
            {"--pids-max", "-1"},
            {"--pids-max", "4194305"},
            {"--cpu-max", "50"},
            {"--cpu-max", "1/3"},
            {"--cpu-max", "0/100000"},
            {"--cpu-max", "200000000/1000"}
        };
        for (String[] flag : bad) {
            out.reset();
            err.reset();
            int code = run(withArgs(runArgs(notACgroup), flag));
            assertThat(code).as(String.join(" ", flag) + ": " + err).isEqualTo(ExitCode.USAGE.code());
            assertThat(err.toString(StandardCharsets.UTF_8))
                    .as(String.join(" ", flag))
                    .contains(flag[0]);
            assertThat(out.toString(StandardCharsets.UTF_8)).doesNotContain("approval request");
        }
        // Without --cgroup there is nowhere to apply a limit: a usage error too.
        List<String> noCgroup = new ArrayList<>(List.of(runArgs(notACgroup)));
        int at = noCgroup.indexOf("--cgroup");
        noCgroup.remove(at);
        noCgroup.remove(at);
        noCgroup.addAll(List.of("--pids-max", "64"));
        err.reset();
        assertThat(run(noCgroup.toArray(String[]::new))).isEqualTo(ExitCode.USAGE.code());
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--pids-max needs --cgroup DIR");
        assertThat(tmp.resolve("ran")).as("the script never ran").doesNotExist();
        assertThat(notACgroup).isEmptyDirectory();
    }

    @Test
    void aDirectoryThatIsNoCgroupRefusesTheRunBeforeTheScriptStarts() throws IOException {
        Path notACgroup = Files.createDirectories(tmp.resolve("not-a-cgroup"));
        int code = run(runArgs(notACgroup));
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(code).as(text + err).isEqualTo(ExitCode.REFUSED.code());
        assertThat(text).contains("CONFINEMENT_UNAVAILABLE");
        assertThat(tmp.resolve("ran")).as("the script never ran").doesNotExist();
        assertThat(notACgroup).isEmptyDirectory();
    }

    @Test
    void aMissingDirectoryIsAUsageError() {
        int code = run(runArgs(tmp.resolve("missing")));
        assertThat(code).isEqualTo(ExitCode.USAGE.code());
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--cgroup");
        assertThat(tmp.resolve("ran")).doesNotExist();
    }

    /** Waits until the script has started ({@code ran} exists) and returns the one live run cgroup. */
    private List<Path> awaitTheScriptInOneRunCgroup(CompletableFuture<Integer> code, DelegatedCgroup cgroup)
            throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.exists(tmp.resolve("ran")) && !code.isDone() && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        assertThat(tmp.resolve("ran"))
                .as(out.toString(StandardCharsets.UTF_8) + err)
                .exists();
        List<Path> live = cgroup.runCgroups();
        assertThat(live).hasSize(1);
        return live;
    }
}
