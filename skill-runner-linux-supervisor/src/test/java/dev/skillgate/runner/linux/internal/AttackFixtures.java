package dev.skillgate.runner.linux.internal;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Compiles the native attack fixtures ({@code fixtures/attack/*.c}) at test time; skips without a compiler. */
final class AttackFixtures {
    private AttackFixtures() {}

    /** {@code cc -std=c11 -O2 -o <dir>/<name> <defines> fixtures/attack/<source>}, mode 0500. */
    static Path compile(Path dir, String source, String name, String... defines) throws Exception {
        Path bin = dir.resolve(name);
        List<String> cmd = new ArrayList<>(List.of("cc", "-std=c11", "-O2", "-o", bin.toString()));
        cmd.addAll(List.of(defines));
        cmd.add(TestRun.fixture("attack/" + source).toString());
        Process cc = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(cc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assumeTrue(cc.waitFor(60, TimeUnit.SECONDS) && cc.exitValue() == 0, "no C compiler for the attacker: " + out);
        Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("r-x------"));
        return bin;
    }

    /** A C string literal define, {@code -DNAME="value"} (paths from @TempDir need no escaping). */
    static String define(String name, Path value) {
        return "-D" + name + "=\"" + value + "\"";
    }

    /** Pids the impostor recorded in {@code marker} (one line each), empty if it never ran. */
    static List<Long> impostorRuns(Path marker) throws java.io.IOException {
        List<Long> pids = new ArrayList<>();
        if (Files.exists(marker)) {
            for (String line : Files.readAllLines(marker)) {
                pids.add(Long.parseLong(line.trim()));
            }
        }
        return pids;
    }
}
