package dev.skillgate.runner.linux.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Finds live processes carrying a test tag by scanning {@code /proc}: the tag on the command line
 * ({@code --sg-tag=<uuid>}), in the environment ({@code SKILLGATE_TEST_TAG}) or in the working
 * directory path ({@code run-<uuid>}). Zombies carry none of these and are not survivors.
 */
final class ProcScan {
    private ProcScan() {}

    /** Pids of live processes carrying {@code tag}, this JVM excluded. */
    static List<Long> survivors(String tag) {
        byte[] needle = tag.getBytes(StandardCharsets.US_ASCII);
        long self = ProcessHandle.current().pid();
        List<Long> found = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path p : ds) {
                long pid;
                try {
                    pid = Long.parseLong(p.getFileName().toString());
                } catch (NumberFormatException e) {
                    continue;
                }
                if (pid == self) {
                    continue;
                }
                if (contains(read(p.resolve("cmdline")), needle)
                        || contains(read(p.resolve("environ")), needle)
                        || cwd(p).map(c -> c.contains(tag)).orElse(false)) {
                    if (!isZombie(p)) {
                        found.add(pid);
                    }
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot scan /proc", e);
        }
        return found;
    }

    /** SIGKILLs every survivor of {@code tag}; returns how many there were. Repeats until none are left. */
    static int killAll(String tag) {
        int total = 0;
        for (int round = 0; round < 50; round++) {
            List<Long> pids = survivors(tag);
            if (pids.isEmpty()) {
                return total;
            }
            total += pids.size();
            for (long pid : pids) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
            sleep(20);
        }
        return total;
    }

    /** Waits up to {@code millis} for the survivors of {@code tag} to vanish; returns those left. */
    static List<Long> awaitNone(String tag, long millis) {
        long until = System.nanoTime() + millis * 1_000_000;
        List<Long> left = survivors(tag);
        while (!left.isEmpty() && System.nanoTime() < until) {
            sleep(20);
            left = survivors(tag);
        }
        return left;
    }

    static boolean alive(long pid) {
        Path p = Path.of("/proc", Long.toString(pid));
        return Files.exists(p) && !isZombie(p);
    }

    private static boolean isZombie(Path procDir) {
        byte[] stat = read(procDir.resolve("stat"));
        String s = new String(stat, StandardCharsets.ISO_8859_1);
        int close = s.lastIndexOf(')');
        return close < 0 || close + 2 >= s.length() || s.charAt(close + 2) == 'Z' || s.charAt(close + 2) == 'X';
    }

    private static Optional<String> cwd(Path procDir) {
        try {
            return Optional.of(Files.readSymbolicLink(procDir.resolve("cwd")).toString());
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.empty();
        }
    }

    private static byte[] read(Path p) {
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            return new byte[0];
        }
    }

    private static boolean contains(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
