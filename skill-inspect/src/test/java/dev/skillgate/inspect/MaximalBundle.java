package dev.skillgate.inspect;

import dev.skillgate.model.Limits;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/**
 * Writes the largest bundle capture accepts: 64 declared files (one of them the entrypoint), with
 * SKILL.md and execution.json, totalling exactly 4 MiB plus {@code extraBytes}.
 */
final class MaximalBundle {
    private MaximalBundle() {}

    static Path write(Path dir, int extraBytes) throws IOException {
        Files.createDirectories(dir.resolve("lib"));
        String name = dir.getFileName().toString();
        byte[] skill = Captures.skillMd(name, "# Maximal\n").getBytes(StandardCharsets.UTF_8);
        Files.write(dir.resolve("SKILL.md"), skill);
        String[] files = new String[Limits.DECLARED_FILES];
        files[0] = "run.mjs";
        for (int i = 1; i < files.length; i++) {
            files[i] = String.format("lib/part-%02d.bin", i);
        }
        byte[] manifest = Captures.manifest("run.mjs", files).getBytes(StandardCharsets.UTF_8);
        Files.write(dir.resolve("execution.json"), manifest);
        byte[] entry = "console.log('{}');\n".getBytes(StandardCharsets.UTF_8);
        Files.write(dir.resolve("run.mjs"), entry);
        long left = (long) Limits.CAPTURE_BYTES + extraBytes - skill.length - manifest.length - entry.length;
        int parts = files.length - 1;
        Random random = new Random(42);
        for (int i = 1; i < files.length; i++) {
            int size = (int) (left / parts + (i <= left % parts ? 1 : 0));
            byte[] content = new byte[size];
            random.nextBytes(content);
            Files.write(dir.resolve(files[i]), content);
        }
        return dir;
    }
}
