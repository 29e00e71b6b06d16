package dev.skillgate.runner.linux.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Reads a process's start time (field 22 of {@code /proc/PID/stat}, clock ticks since boot) and the
 * boot id. Within one boot, pid and start time name one process: a pid can be reused, but not with
 * the same start time. The boot id is only checked against the helper's hello.
 */
public final class ProcIdentity {
    private ProcIdentity() {}

    /** The start time of {@code pid}, if the process exists and its stat line parses. */
    public static Optional<Long> startTimeTicks(long pid) {
        byte[] raw;
        try {
            raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "stat"));
        } catch (IOException e) {
            return Optional.empty();
        }
        return parseStartTime(new String(raw, StandardCharsets.ISO_8859_1));
    }

    /** Field 22 of a stat line; the command name (field 2) may contain spaces and parentheses. */
    static Optional<Long> parseStartTime(String stat) {
        int close = stat.lastIndexOf(')');
        if (close < 0 || close + 2 > stat.length()) {
            return Optional.empty();
        }
        String[] rest = stat.substring(close + 2).trim().split(" ");
        // rest[0] is field 3 (state); field 22 is rest[19].
        if (rest.length < 20) {
            return Optional.empty();
        }
        try {
            return Optional.of(Long.parseLong(rest[19]));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static volatile Optional<String> bootId = Optional.empty();

    /** The kernel's boot id, if readable; it cannot change while this JVM runs, so it is read once. */
    public static Optional<String> bootId() {
        Optional<String> known = bootId;
        if (known.isPresent()) {
            return known;
        }
        known = readBootId();
        bootId = known;
        return known;
    }

    private static Optional<String> readBootId() {
        try {
            String s = Files.readString(Path.of("/proc/sys/kernel/random/boot_id"), StandardCharsets.US_ASCII)
                    .trim();
            return s.length() == 36 ? Optional.of(s) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Whether the process named by {@code pid} and {@code token} (decimal start ticks) exists now. */
    public static boolean alive(long pid, String token) {
        Optional<Long> start = startTimeTicks(pid);
        return start.isPresent() && token.equals(Long.toString(start.get()));
    }
}
