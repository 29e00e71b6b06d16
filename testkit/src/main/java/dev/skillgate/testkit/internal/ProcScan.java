package dev.skillgate.testkit.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds processes whose environment or command line mentions a marker (every script the runner
 * starts has {@code HOME}/{@code TMPDIR} under the test's data directory, and descendants inherit
 * them), kills them for hygiene and returns them so the test can fail. Linux only; elsewhere it
 * finds nothing.
 */
public final class ProcScan {
    private ProcScan() {}

    /** Kills every process mentioning {@code marker} and returns the pids found alive. */
    public static List<Long> killAll(String marker) {
        List<Long> found = find(marker);
        for (long pid : found) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
        return found;
    }

    /** Pids of processes (other than this JVM) mentioning {@code marker}. */
    public static List<Long> find(String marker) {
        List<Long> out = new ArrayList<>();
        Path proc = Path.of("/proc");
        if (!Files.isDirectory(proc)) {
            return out;
        }
        long self = ProcessHandle.current().pid();
        try (DirectoryStream<Path> ds =
                Files.newDirectoryStream(proc, p -> p.getFileName().toString().matches("[0-9]+"))) {
            for (Path dir : ds) {
                long pid = Long.parseLong(dir.getFileName().toString());
                if (pid != self
                        && (read(dir.resolve("environ")) + "\0" + read(dir.resolve("cmdline"))).contains(marker)) {
                    out.add(pid);
                }
            }
        } catch (IOException e) {
            return out;
        }
        return out;
    }

    private static String read(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return new String(in.readNBytes(1 << 20), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
