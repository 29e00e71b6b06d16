package dev.skillgate.runner.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * Decides whether a recorded owner (pid + start-time token) is provably dead.
 *
 * <p>Token formats understood: {@code jdk:<epoch millis>} (the JDK's {@link ProcessHandle.Info#startInstant()},
 * written by this module) and a bare decimal number (field 22 of {@code /proc/PID/stat}, clock ticks
 * since boot, as a Linux supervisor would record it). A pid that does not exist is dead; a pid whose
 * start token differs belongs to another process, so the recorded owner is dead. Anything else —
 * an unknown token format, an unreadable start time — is {@link Liveness#UNKNOWN}, never dead.
 */
public final class ProcessLiveness {

    /** What is known about a recorded owner. */
    public enum Liveness {
        /** The owner is provably gone (no such pid, or the pid now belongs to another process). */
        DEAD,
        /** The owner is running. */
        ALIVE,
        /** Neither could be proven. */
        UNKNOWN
    }

    /** Prefix of tokens produced from the JDK's process start instant. */
    public static final String JDK_PREFIX = "jdk:";

    private ProcessLiveness() {}

    /**
     * The start token of the running JVM. Asked of the JDK once per JVM and kept: a process's start
     * instant never changes while it lives, and asking reads {@code /proc/self/stat}, the command
     * line, the executable's link and the password database every time (decision 0870). An answer of
     * {@code jdk:unknown} is not kept, so a platform that could not say once is asked again.
     */
    public static String currentJvmToken() {
        String kept = jvmToken;
        if (kept == null) {
            kept = tokenOf(ProcessHandle.current());
            if (!kept.equals(JDK_PREFIX + "unknown")) {
                jvmToken = kept;
            }
        }
        return kept;
    }

    /** This JVM's start token once known (written at most with the one value the JDK reports). */
    private static volatile String jvmToken;

    /** The {@code jdk:} start token of a process, {@code jdk:unknown} if the platform does not say. */
    public static String tokenOf(ProcessHandle handle) {
        return handle.info()
                .startInstant()
                .map(i -> JDK_PREFIX + i.toEpochMilli())
                .orElse(JDK_PREFIX + "unknown");
    }

    /**
     * Whether a process is running: alive by the JDK's account and not a zombie. A zombie (dead, not yet
     * reaped — common when an orphan's new parent never reaps) is dead for every purpose here; the
     * JDK still calls it alive.
     */
    public static boolean isRunning(ProcessHandle handle) {
        return handle.isAlive() && !isZombie(handle.pid());
    }

    /** Whether {@code /proc/PID/stat} shows the process as a zombie or dead; false where unknown. */
    public static boolean isZombie(long pid) {
        Optional<String[]> fields = procStatFields(pid);
        return fields.isPresent() && (fields.get()[0].equals("Z") || fields.get()[0].equals("X"));
    }

    /** Whether the recorded owner is dead, alive or unknown. */
    public static Liveness of(long pid, String token) {
        if (token.startsWith(JDK_PREFIX)) {
            Optional<ProcessHandle> handle = ProcessHandle.of(pid);
            if (handle.isEmpty() || !isRunning(handle.get())) {
                return Liveness.DEAD;
            }
            String recorded = token.substring(JDK_PREFIX.length());
            Optional<Instant> start = handle.get().info().startInstant();
            if (start.isEmpty() || !recorded.matches("[0-9]{1,19}")) {
                return Liveness.UNKNOWN;
            }
            return Long.parseLong(recorded) == start.get().toEpochMilli() ? Liveness.ALIVE : Liveness.DEAD;
        }
        if (token.matches("[0-9]{1,19}")) {
            return procStatLiveness(pid, token);
        }
        return ProcessHandle.of(pid).filter(ProcessLiveness::isRunning).isEmpty() ? Liveness.DEAD : Liveness.UNKNOWN;
    }

    private static Liveness procStatLiveness(long pid, String token) {
        if (!Files.isReadable(Path.of("/proc/self/stat"))) {
            return ProcessHandle.of(pid).isEmpty() ? Liveness.DEAD : Liveness.UNKNOWN;
        }
        Optional<String> start = procStartTicks(pid);
        if (start.isEmpty()) {
            return ProcessHandle.of(pid).isEmpty() ? Liveness.DEAD : Liveness.UNKNOWN;
        }
        return start.get().equals(token) && !isZombie(pid) ? Liveness.ALIVE : Liveness.DEAD;
    }

    /** Field 22 of {@code /proc/PID/stat}, when readable. */
    public static Optional<String> procStartTicks(long pid) {
        Optional<String[]> fields = procStatFields(pid);
        // fields[0] is field 3 (state); field 22 is fields[19].
        if (fields.isEmpty() || fields.get().length < 20 || !fields.get()[19].matches("[0-9]{1,19}")) {
            return Optional.empty();
        }
        return Optional.of(fields.get()[19]);
    }

    /** The fields of {@code /proc/PID/stat} after the command name, starting with the state (field 3). */
    private static Optional<String[]> procStatFields(long pid) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "stat"));
        } catch (IOException e) {
            return Optional.empty();
        }
        String stat = new String(bytes, StandardCharsets.US_ASCII);
        int close = stat.lastIndexOf(')');
        if (close < 0) {
            return Optional.empty();
        }
        return Optional.of(stat.substring(close + 1).trim().split(" "));
    }
}
