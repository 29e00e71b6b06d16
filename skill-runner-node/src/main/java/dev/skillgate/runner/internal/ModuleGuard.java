package dev.skillgate.runner.internal;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Sha256Digest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The module guard (decision 0510, {@code docs/runner.md} "Module confinement"): the runner's own,
 * fixed JavaScript ({@code module-guard.mjs} in this package) passed to Node as {@code --import
 * data:text/javascript;base64,…} together with the approved capture's per-file SHA-256 table. The
 * text lives only in the process's argv, so neither it nor the table can be changed on disk after
 * {@code exec}.
 *
 * <p>In the child, before the entrypoint, it makes every import, {@code import()}, {@code require()}
 * and {@code require.resolve()} resolve only to Node built-ins, {@code data:} URLs and files of the
 * table, and it compiles exactly the bytes it read and hashed at load time. A file whose bytes
 * differ ends the process: a line starting with {@value #TAG} on fd 2 and exit code {@value
 * #CHANGED_EXIT} (from a worker thread: {@code SIGKILL} of the process). {@link #report} reads that
 * line back.
 *
 * <p>Not covered: data files the script reads itself, processes it starts on purpose (they inherit
 * the guard through {@code execArgv} unless the script removes it) and code it builds itself
 * ({@code eval}, {@code vm}, {@code data:} URLs).
 */
public final class ModuleGuard {

    /** Stands for the guard's {@code data:} URL in an approval request's argv (decision 0510). */
    public static final String PLACEHOLDER = "<module-guard>";

    /** The prefix of the line the guard writes to fd 2 before it ends the process. */
    public static final String TAG = "skillgate-module-guard:";

    /** The exit code the guard ends the main thread's process with. */
    public static final int CHANGED_EXIT = 86;

    /** The longest single argument Linux accepts ({@code MAX_ARG_STRLEN}, 32 pages, with its NUL). */
    static final int MAX_ARGUMENT_BYTES = 128 * 1024 - 1;

    private static final String TABLE_MARKER = "/*@GUARD_TABLE@*/ null";
    /**
     * The name the guard's frames carry in stack traces: without it V8 names them by the whole
     * {@code data:} URL, tens of kilobytes per frame, and every uncaught error of a CommonJS module
     * (its frames run under the guard's loader) would overflow the 16 KiB stderr bound.
     */
    static final String SOURCE_NAME = "skillgate:module-guard";

    private static final String SOURCE = compactSource(loadSource()) + "//# sourceURL=" + SOURCE_NAME + "\n";

    private static final String URL_PREFIX = "data:text/javascript;base64,";

    /**
     * The source's fixed parts, encoded once per JVM (decision 0872). The source is {@code head ·
     * table · tail}; base64 works in groups of three bytes, so {@code head}'s longest prefix of a
     * multiple of three bytes is encoded here ({@link #HEAD_BASE64}), its last 0–2 bytes
     * ({@link #HEAD_REST}) are encoded with each launch's table, and the table is followed by 0–2
     * spaces so that {@code tail} starts on a group boundary and its encoding ({@link #TAIL_BASE64})
     * can be appended as it is. The decoded text is the shipped source with the table in place of
     * the marker and at most two spaces after it, inside a JavaScript expression.
     */
    private static final String HEAD_BASE64;

    private static final byte[] HEAD_REST;
    private static final String TAIL_BASE64;

    static {
        int at = SOURCE.indexOf(TABLE_MARKER);
        if (at < 0 || SOURCE.indexOf(TABLE_MARKER, at + 1) >= 0) {
            throw new IllegalStateException("module-guard.mjs must hold its table marker exactly once");
        }
        byte[] head = SOURCE.substring(0, at).getBytes(StandardCharsets.UTF_8);
        int whole = head.length - head.length % 3;
        HEAD_BASE64 = Base64.getEncoder().encodeToString(java.util.Arrays.copyOfRange(head, 0, whole));
        HEAD_REST = java.util.Arrays.copyOfRange(head, whole, head.length);
        TAIL_BASE64 = Base64.getEncoder()
                .encodeToString(SOURCE.substring(at + TABLE_MARKER.length()).getBytes(StandardCharsets.UTF_8));
    }

    private ModuleGuard() {}

    /**
     * Whether the guard can be installed on Node {@code major.minor}: from 22.15 / 23.5 on through
     * {@code module.registerHooks}; on 20.6+ (and 21, 22 before 22.15, 23 before 23.5) through the
     * ES loader's in-thread customizations, which need {@code --expose-internals}. Older versions
     * have no {@code --import} for a {@code data:} URL and are refused.
     */
    public static boolean supports(int major, int minor) {
        return major > 20 || (major == 20 && minor >= 6);
    }

    /** Whether this version has {@code module.registerHooks} (22.15+, 23.5+, 24+). */
    static boolean hasRegisterHooks(int major, int minor) {
        return major >= 24 || (major == 23 && minor >= 5) || (major == 22 && minor >= 15);
    }

    /** The guard's flags for this version with {@code guardUrl} as the {@code --import} value. */
    public static List<String> flags(int major, int minor, String guardUrl) {
        List<String> flags = new ArrayList<>();
        if (!hasRegisterHooks(major, minor)) {
            flags.add("--expose-internals");
        }
        flags.add("--import");
        flags.add(guardUrl);
        return List.copyOf(flags);
    }

    /**
     * The guard's table for one launch as JSON text: the staged root, the entrypoint (as a bundle path
     * and as it appears in argv) and every approved file with the SHA-256 of its approved bytes.
     */
    public static String table(
            String realBundleRoot, String entryArgument, PortablePath entrypoint, Map<PortablePath, byte[]> files) {
        StringBuilder table = new StringBuilder(128 + files.size() * 96);
        table.append("{\"root\":");
        jsonString(table, realBundleRoot);
        table.append(",\"entry\":");
        jsonString(table, entrypoint.value());
        table.append(",\"entryArg\":");
        jsonString(table, entryArgument);
        table.append(",\"files\":[");
        boolean first = true;
        for (Map.Entry<PortablePath, byte[]> e : new TreeMap<>(files).entrySet()) {
            table.append(first ? "[" : ",[");
            first = false;
            jsonString(table, e.getKey().value());
            table.append(",\"").append(Sha256Digest.hash(e.getValue()).hex()).append("\"]");
        }
        table.append("]}");
        return table.toString();
    }

    /**
     * The {@code data:} URL for one launch.
     *
     * @param realBundleRoot the staged bundle's real, absolute path (no link in it)
     * @param entryArgument the entrypoint exactly as it appears in argv
     * @param entrypoint the entrypoint's bundle path
     * @param files the approved capture (the digests are taken from these bytes, not from staging)
     * @throws IllegalArgumentException if the URL would not fit in one argument
     */
    public static String url(
            String realBundleRoot, String entryArgument, PortablePath entrypoint, Map<PortablePath, byte[]> files) {
        byte[] tableBytes =
                table(realBundleRoot, entryArgument, entrypoint, files).getBytes(StandardCharsets.UTF_8);
        int used = HEAD_REST.length + tableBytes.length;
        int pad = (3 - used % 3) % 3;
        byte[] middle = new byte[used + pad];
        System.arraycopy(HEAD_REST, 0, middle, 0, HEAD_REST.length);
        System.arraycopy(tableBytes, 0, middle, HEAD_REST.length, tableBytes.length);
        java.util.Arrays.fill(middle, used, middle.length, (byte) ' ');
        String middleBase64 = Base64.getEncoder().encodeToString(middle);
        long length = (long) URL_PREFIX.length() + HEAD_BASE64.length() + middleBase64.length() + TAIL_BASE64.length();
        if (length > MAX_ARGUMENT_BYTES) { // base64: one byte per character
            throw new IllegalArgumentException("the module table does not fit in one argument");
        }
        return new StringBuilder((int) length)
                .append(URL_PREFIX)
                .append(HEAD_BASE64)
                .append(middleBase64)
                .append(TAIL_BASE64)
                .toString();
    }

    /**
     * What the guard reported on stderr, if anything: {@code STAGED_MODULE_CHANGED} when a loaded
     * module's bytes differed, {@code RUNTIME_UNAVAILABLE} when this Node could not take the guard.
     * Only a whole line starting with {@value #TAG} counts; a script that prints one fails itself.
     */
    public static Optional<ErrorCode> report(byte[] stderr) {
        String text = new String(stderr, StandardCharsets.UTF_8);
        int from = 0;
        while (true) {
            int at = text.indexOf(TAG, from);
            if (at < 0) {
                return Optional.empty();
            }
            if (at == 0 || text.charAt(at - 1) == '\n') {
                String rest = text.substring(at + TAG.length());
                if (rest.startsWith(" STAGED_MODULE_CHANGED ")) {
                    return Optional.of(ErrorCode.STAGED_MODULE_CHANGED);
                }
                if (rest.startsWith(" MODULE_GUARD_UNAVAILABLE ")) {
                    return Optional.of(ErrorCode.RUNTIME_UNAVAILABLE);
                }
            }
            from = at + TAG.length();
        }
    }

    /** The guard's source as shipped (for tests and docs). */
    static String source() {
        return SOURCE;
    }

    private static String loadSource() {
        try (InputStream in = ModuleGuard.class.getResourceAsStream("module-guard.mjs")) {
            if (in == null) {
                throw new IllegalStateException("module-guard.mjs is missing from the runner");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (!text.contains(TABLE_MARKER)) {
                throw new IllegalStateException("module-guard.mjs has no table marker");
            }
            return text;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Drops whole-line {@code //} comments and leading indentation: a third less to decode and parse
     * per launch. Lines with code are kept as they are (a {@code //} inside a string stays).
     */
    public static String compactSource(String text) {
        StringBuilder out = new StringBuilder(text.length());
        for (String line : text.split("\n", -1)) {
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("//")) {
                continue;
            }
            out.append(trimmed).append('\n');
        }
        return out.toString();
    }

    /**
     * Appends {@code s} as a JSON/JavaScript string literal. Other characters than quote, backslash,
     * controls and the two JavaScript line separators stay as they are (UTF-8 in the URL): escaping
     * every non-ASCII character would triple a non-ASCII path and 64 long paths would then no longer
     * fit in one argument.
     */
    static void jsonString(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20
                    || c == 0x7f
                    || c == '\u2028'
                    || c == '\u2029'
                    || Character.isSurrogate(c)
                            && !(Character.isHighSurrogate(c)
                                    && i + 1 < s.length()
                                    && Character.isLowSurrogate(s.charAt(i + 1)))
                            && !(Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(s.charAt(i - 1)))) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }
}
