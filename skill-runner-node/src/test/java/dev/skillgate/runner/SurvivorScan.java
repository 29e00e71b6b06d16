package dev.skillgate.runner;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds processes that mention a marker in their environment or command line (every script the
 * runner starts has HOME/TMPDIR under a marked data directory, and descendants inherit them), kills
 * them for hygiene, and returns their pids so the test can fail.
 */
public final class SurvivorScan {
    private SurvivorScan() {}

    /** Pids of processes (other than this JVM) mentioning {@code marker}. */
    public static List<Long> find(String marker) {
        List<Long> out = new ArrayList<>();
        long self = ProcessHandle.current().pid();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(
                Path.of("/proc"), p -> p.getFileName().toString().matches("[0-9]+"))) {
            for (Path dir : ds) {
                long pid = Long.parseLong(dir.getFileName().toString());
                if (pid == self) {
                    continue;
                }
                String text = read(dir.resolve("environ")) + "\0" + read(dir.resolve("cmdline"));
                if (text.contains(marker)) {
                    out.add(pid);
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return out;
    }

    /** Kills every process mentioning {@code marker} and returns the pids that were found alive. */
    public static List<Long> killAll(String marker) {
        List<Long> found = find(marker);
        for (long pid : found) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
        return found;
    }

    private static String read(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return new String(in.readNBytes(1 << 20), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
