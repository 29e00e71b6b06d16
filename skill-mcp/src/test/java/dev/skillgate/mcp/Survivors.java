package dev.skillgate.mcp;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Processes whose command line or environment carries a marker (the child server JVM and its scripts). */
final class Survivors {
    private Survivors() {}

    /** Waits up to {@code max} for every marked process to end; kills and returns those that did not. */
    static List<Long> await(String marker, Duration max) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        List<Long> found = scan(marker);
        while (!found.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(100);
            found = scan(marker);
        }
        for (long pid : found) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
        return found;
    }

    private static List<Long> scan(String marker) throws IOException {
        List<Long> found = new ArrayList<>();
        Path proc = Path.of("/proc");
        if (!Files.isDirectory(proc)) {
            return found;
        }
        try (DirectoryStream<Path> dirs =
                Files.newDirectoryStream(proc, p -> p.getFileName().toString().matches("[0-9]+"))) {
            for (Path dir : dirs) {
                long pid = Long.parseLong(dir.getFileName().toString());
                if (pid == ProcessHandle.current().pid()) {
                    continue;
                }
                StringBuilder text = new StringBuilder();
                for (String f : new String[] {"environ", "cmdline"}) {
                    try {
                        text.append(new String(Files.readAllBytes(dir.resolve(f)), StandardCharsets.UTF_8));
                    } catch (IOException gone) {
                        // The process ended while it was read, or is not ours to read.
                    }
                }
                if (text.indexOf(marker) >= 0) {
                    found.add(pid);
                }
            }
        }
        return found;
    }
}
