package dev.skillgate.model;

import dev.skillgate.model.shared.Text;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.text.Normalizer;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * A bundle-relative path that is safe to resolve under a skill root on every platform.
 *
 * <p>Rules (SPEC §4): not empty; relative (no leading {@code /}, no drive letter such as
 * {@code C:}, no UNC prefix); {@code /} separators only (no backslash); no empty, {@code .} or
 * {@code ..} segment; no NUL, control (C0, DEL, C1), line/paragraph separator or invisible format
 * character (e.g. bidirectional overrides, which could make a path look different in an approval
 * dialog); no segment starting with {@code -}; at most {@value #MAX_SEGMENT_BYTES} UTF-8 bytes per
 * segment and {@value #MAX_PATH_BYTES} in total.
 *
 * <p><b>Normalisation.</b> The path must already be in Unicode NFC; a non-NFC path is rejected
 * ({@link ErrorCode#PATH_NOT_NFC}) rather than silently normalised, so that the exact bytes the
 * human approved are the bytes looked up on disk, and exact comparison equals NFC comparison.
 * {@link #collisionKey()} additionally folds case, for detecting two paths that would name the same
 * file on a case-insensitive file system.
 *
 * <p>A valid path can never resolve outside its root lexically ({@link #resolveUnder}); it says
 * nothing about links on disk, which the bounded reader refuses separately.
 *
 * @param value the path text, {@code /}-separated
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record PortablePath(String value) implements Comparable<PortablePath> {

    /** Longest allowed path, in UTF-8 bytes. */
    public static final int MAX_PATH_BYTES = 1024;

    /** Longest allowed segment, in UTF-8 bytes. */
    public static final int MAX_SEGMENT_BYTES = 255;

    public PortablePath {
        Objects.requireNonNull(value, "value");
        ErrorCode problem = firstProblem(value);
        if (problem != null) {
            throw new InvalidValueException(problem, describe(problem, value));
        }
    }

    /** Parses a path, throwing {@link InvalidValueException} with the first broken rule. */
    public static PortablePath of(String value) {
        return new PortablePath(value);
    }

    /** Whether {@code value} is a valid portable path. */
    public static boolean isValid(String value) {
        return firstProblem(value) == null;
    }

    /** The segments of this path, in order. */
    public List<String> segments() {
        return List.of(value.split("/", -1));
    }

    /** The last segment. */
    public String fileName() {
        int slash = value.lastIndexOf('/');
        return slash < 0 ? value : value.substring(slash + 1);
    }

    /** Whether the file name ends with {@code suffix} (exact, case-sensitive). */
    public boolean hasSuffix(String suffix) {
        return fileName().endsWith(suffix) && fileName().length() > suffix.length();
    }

    /** The UTF-8 bytes of this path, as framed into revisions. */
    public byte[] utf8() {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * A key under which two paths collide if a case-insensitive file system could map them to the
     * same file (case folded with {@link Locale#ROOT}). Used for duplicate detection only.
     */
    public String collisionKey() {
        return value.toUpperCase(Locale.ROOT).toLowerCase(Locale.ROOT);
    }

    /**
     * Resolves this path under {@code root}, segment by segment. The result always lies inside
     * {@code root} lexically; whether any segment is a link on disk is not checked here.
     */
    public Path resolveUnder(Path root) {
        Path out = root;
        for (String segment : segments()) {
            out = out.resolve(segment);
        }
        Path normalizedRoot = root.normalize();
        Path normalized = out.normalize();
        if (!normalized.startsWith(normalizedRoot) || normalized.equals(normalizedRoot)) {
            // Unreachable for a valid path; kept as a fail-closed guard against platform quirks.
            throw new InvalidValueException(ErrorCode.READ_OUTSIDE_ROOT, "path resolves outside its root");
        }
        return out;
    }

    /** Byte-wise (UTF-8) order, the order in which revisions frame files. */
    @Override
    public int compareTo(PortablePath other) {
        return compareUtf8(this.value, other.value);
    }

    /** Compares two strings by their UTF-8 bytes, unsigned, without allocating. */
    static int compareUtf8(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                // UTF-8 preserves code point order, so comparing code points equals comparing bytes.
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }

    @Override
    public String toString() {
        return value;
    }

    private static ErrorCode firstProblem(String value) {
        if (value.isEmpty()) {
            return ErrorCode.PATH_EMPTY;
        }
        for (int i = 0; i < value.length(); ) {
            int cp = value.codePointAt(i);
            i += Character.charCount(cp);
            if (cp == 0 || Text.isUnsafe(cp)) {
                return ErrorCode.PATH_CONTROL_CHAR;
            }
        }
        if (value.indexOf('\\') >= 0) {
            return ErrorCode.PATH_BACKSLASH;
        }
        if (value.startsWith("/") || hasDrivePrefix(value)) {
            return ErrorCode.PATH_ABSOLUTE;
        }
        if (!isNfc(value)) {
            return ErrorCode.PATH_NOT_NFC;
        }
        if (value.getBytes(StandardCharsets.UTF_8).length > MAX_PATH_BYTES) {
            return ErrorCode.PATH_TOO_LONG;
        }
        for (String segment : value.split("/", -1)) {
            if (segment.isEmpty()) {
                return ErrorCode.PATH_EMPTY_SEGMENT;
            }
            if (segment.equals("..")) {
                return ErrorCode.PATH_TRAVERSAL;
            }
            if (segment.equals(".")) {
                return ErrorCode.PATH_DOT_SEGMENT;
            }
            if (segment.startsWith("-")) {
                return ErrorCode.PATH_LEADING_DASH;
            }
            if (segment.getBytes(StandardCharsets.UTF_8).length > MAX_SEGMENT_BYTES) {
                return ErrorCode.PATH_TOO_LONG;
            }
        }
        return null;
    }

    /**
     * Whether {@code value} is in Unicode NFC. ASCII text always is (no ASCII character decomposes,
     * and none combines with its neighbour), so it is answered without the JDK's normaliser, whose
     * first use loads and unpacks the ICU normalisation data (decision 0861): every `skillgate
     * validate` checks the ASCII names {@code SKILL.md} and {@code skill.md} in a fresh JVM. Any
     * other text goes to {@link Normalizer}, as before.
     */
    static boolean isNfc(String value) {
        for (int i = 0; i < value.length(); i++) {
            if (value.charAt(i) >= 0x80) {
                return Normalizer.isNormalized(value, Normalizer.Form.NFC);
            }
        }
        return true;
    }

    private static boolean hasDrivePrefix(String value) {
        // "C:" or "C:/x" would be absolute on Windows; a colon in the first segment is refused.
        int slash = value.indexOf('/');
        String first = slash < 0 ? value : value.substring(0, slash);
        return first.length() >= 2 && first.charAt(1) == ':' && Character.isLetter(first.charAt(0));
    }

    private static String describe(ErrorCode problem, String value) {
        return switch (problem) {
            case PATH_EMPTY -> "path is empty";
            case PATH_CONTROL_CHAR -> "path contains a control or invisible character";
            case PATH_BACKSLASH -> "path '" + Text.excerpt(value) + "' contains a backslash";
            case PATH_ABSOLUTE -> "path '" + Text.excerpt(value) + "' is absolute";
            case PATH_NOT_NFC -> "path '" + Text.excerpt(value) + "' is not in Unicode NFC";
            case PATH_TOO_LONG -> "path or one of its segments is too long";
            case PATH_EMPTY_SEGMENT -> "path '" + Text.excerpt(value) + "' has an empty segment";
            case PATH_TRAVERSAL -> "path '" + Text.excerpt(value) + "' has a '..' segment";
            case PATH_DOT_SEGMENT -> "path '" + Text.excerpt(value) + "' has a '.' segment";
            case PATH_LEADING_DASH -> "path '" + Text.excerpt(value) + "' has a segment starting with '-'";
            default -> "invalid path";
        };
    }
}
