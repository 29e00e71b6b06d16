package dev.skillgate.runner.internal;

import dev.skillgate.model.RunId;
import dev.skillgate.runner.SupervisorIdentity;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The ownership record of one staging directory, kept in {@code <run dir>/owner} (outside the staged
 * bundle). A strict, line-based text format so the janitor can parse it without a JSON library and
 * reject anything else:
 *
 * <pre>
 * skillgate-staging-owner 1
 * run &lt;run id&gt;
 * attempt &lt;32 lowercase hex&gt;
 * directory &lt;file key of the run directory, or none&gt;
 * stager &lt;pid&gt; &lt;start token&gt;
 * supervisor &lt;pid&gt; &lt;start token&gt; &lt;attempt token&gt;     (only once the supervisor recorded itself)
 * </pre>
 *
 * Every line ends with {@code \n}; nothing else is allowed.
 *
 * @param runId the run
 * @param attempt the staging attempt token (also the directory name's prefix)
 * @param directoryKey the run directory's file key when it was created
 * @param stager the process that created the directory
 * @param supervisor the supervisor that owns the run's processes, once recorded
 */
public record OwnerRecord(
        RunId runId, String attempt, String directoryKey, Owner stager, Optional<SupervisorIdentity> supervisor) {

    /** The first line. */
    public static final String HEADER = "skillgate-staging-owner 1";

    /** Largest record accepted, bytes. */
    public static final int MAX_BYTES = 2048;

    private static final Pattern ATTEMPT = Pattern.compile("[0-9a-f]{32}");
    private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9._:+-]{1,128}");
    private static final Pattern KEY = Pattern.compile("[A-Za-z0-9._:+=,()-]{1,128}");
    private static final Pattern PID = Pattern.compile("[1-9][0-9]{0,18}");

    /**
     * A process identity: pid and start-time token.
     *
     * @param pid the pid
     * @param startToken the start-time token
     */
    public record Owner(long pid, String startToken) {
        public Owner {
            if (pid <= 0) {
                throw new IllegalArgumentException("pid must be positive");
            }
            if (!isToken(startToken)) {
                throw new IllegalArgumentException("malformed start token");
            }
        }
    }

    public OwnerRecord {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(stager, "stager");
        Objects.requireNonNull(supervisor, "supervisor");
        if (!ATTEMPT.matcher(Objects.requireNonNull(attempt, "attempt")).matches()) {
            throw new IllegalArgumentException("malformed attempt");
        }
        if (!KEY.matcher(Objects.requireNonNull(directoryKey, "directoryKey")).matches()) {
            throw new IllegalArgumentException("malformed directory key");
        }
        supervisor.ifPresent(s -> {
            if (!isToken(s.startTimeToken()) || !isToken(s.attemptToken())) {
                throw new IllegalArgumentException("malformed supervisor token");
            }
        });
    }

    /** Whether {@code s} may be stored as a token. */
    public static boolean isToken(String s) {
        return s != null && TOKEN.matcher(s).matches();
    }

    /** Whether {@code s} may be stored as a directory key. */
    public static boolean isDirectoryKey(String s) {
        return s != null && KEY.matcher(s).matches();
    }

    /** Whether {@code s} is an attempt token. */
    public static boolean isAttempt(String s) {
        return s != null && ATTEMPT.matcher(s).matches();
    }

    /** This record with the supervisor's identity. */
    public OwnerRecord withSupervisor(SupervisorIdentity identity) {
        return new OwnerRecord(runId, attempt, directoryKey, stager, Optional.of(identity));
    }

    /** The record's bytes. */
    public byte[] format() {
        StringBuilder sb = new StringBuilder(256);
        sb.append(HEADER).append('\n');
        sb.append("run ").append(runId.value()).append('\n');
        sb.append("attempt ").append(attempt).append('\n');
        sb.append("directory ").append(directoryKey).append('\n');
        sb.append("stager ")
                .append(stager.pid())
                .append(' ')
                .append(stager.startToken())
                .append('\n');
        supervisor.ifPresent(s -> sb.append("supervisor ")
                .append(s.pid())
                .append(' ')
                .append(s.startTimeToken())
                .append(' ')
                .append(s.attemptToken())
                .append('\n'));
        return sb.toString().getBytes(StandardCharsets.US_ASCII);
    }

    /** Parses a record exactly; anything else (size, order, charset, extra lines) is empty. */
    public static Optional<OwnerRecord> parse(byte[] bytes) {
        if (bytes == null || bytes.length == 0 || bytes.length > MAX_BYTES || bytes[bytes.length - 1] != '\n') {
            return Optional.empty();
        }
        for (byte b : bytes) {
            if (b != '\n' && (b < 0x20 || b > 0x7e)) {
                return Optional.empty();
            }
        }
        String text = new String(bytes, 0, bytes.length - 1, StandardCharsets.US_ASCII);
        List<String> lines = List.of(text.split("\n", -1));
        if (lines.size() != 5 && lines.size() != 6) {
            return Optional.empty();
        }
        try {
            if (!lines.get(0).equals(HEADER)) {
                return Optional.empty();
            }
            String run = field(lines.get(1), "run", 1)[0];
            String attempt = field(lines.get(2), "attempt", 1)[0];
            String dir = field(lines.get(3), "directory", 1)[0];
            String[] stager = field(lines.get(4), "stager", 2);
            Optional<SupervisorIdentity> supervisor = Optional.empty();
            if (lines.size() == 6) {
                String[] sv = field(lines.get(5), "supervisor", 3);
                supervisor = Optional.of(new SupervisorIdentity(pid(sv[0]), sv[1], sv[2]));
            }
            return Optional.of(
                    new OwnerRecord(RunId.of(run), attempt, dir, new Owner(pid(stager[0]), stager[1]), supervisor));
        } catch (RuntimeException e) {
            // Every malformed shape lands here: invalid run id, pid, token; the record is simply not ours.
            return Optional.empty();
        }
    }

    private static String[] field(String line, String name, int values) {
        String[] parts = line.split(" ", -1);
        if (parts.length != values + 1 || !parts[0].equals(name)) {
            throw new IllegalArgumentException("bad line");
        }
        String[] out = new String[values];
        System.arraycopy(parts, 1, out, 0, values);
        return out;
    }

    private static long pid(String s) {
        if (!PID.matcher(s).matches()) {
            throw new IllegalArgumentException("bad pid");
        }
        return Long.parseLong(s);
    }
}
