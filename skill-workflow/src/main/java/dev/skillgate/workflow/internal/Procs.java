package dev.skillgate.workflow.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/** Reads a process's start-time token from {@code /proc/<pid>/stat} (field 22), bounded. Not API. */
public final class Procs {
    private static final int MAX_STAT_BYTES = 4096;

    private Procs() {}

    private sealed interface Stat {}

    private record Found(char state, String startToken) implements Stat {}

    private record Gone() implements Stat {}

    private record Unreadable() implements Stat {}

    private static Stat stat(long pid) {
        Path file = Path.of("/proc", Long.toString(pid), "stat");
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(MAX_STAT_BYTES);
        } catch (NoSuchFileException e) {
            return new Gone();
        } catch (IOException | RuntimeException e) {
            return new Unreadable();
        }
        String text = new String(bytes, StandardCharsets.US_ASCII);
        int close = text.lastIndexOf(')');
        if (close < 0 || close + 2 >= text.length()) {
            return new Unreadable();
        }
        String[] fields = text.substring(close + 2).trim().split(" ");
        // fields[0] is field 3 (state); field 22 (starttime) is fields[19].
        if (fields.length < 20 || fields[0].length() != 1 || !fields[19].matches("[0-9]{1,20}")) {
            return new Unreadable();
        }
        return new Found(fields[0].charAt(0), fields[19]);
    }

    /** The start token of {@code pid}, when {@code /proc} can tell it. */
    public static Optional<String> startToken(long pid) {
        return stat(pid) instanceof Found f ? Optional.of(f.startToken()) : Optional.empty();
    }

    /**
     * Whether the process {@code pid} with {@code startToken} is alive: gone, reused (another start
     * token) or a zombie ({@code Z}/{@code X}: it can no longer act) is dead; anything unreadable is
     * alive (death is never assumed).
     */
    public static boolean isAlive(long pid, String startToken) {
        Stat s = stat(pid);
        if (s instanceof Gone) {
            return false;
        }
        if (s instanceof Found f) {
            if (!f.startToken().equals(startToken)) {
                return false;
            }
            return f.state() != 'Z' && f.state() != 'X';
        }
        return true;
    }
}
