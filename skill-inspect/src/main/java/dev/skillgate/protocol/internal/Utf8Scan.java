package dev.skillgate.protocol.internal;

import dev.skillgate.model.ErrorCode;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * One pass over raw JSON bytes before the parser sees them: strict UTF-8 (no overlong forms, no
 * encoded surrogates, nothing above U+10FFFF, no truncated sequences), no raw NUL or other control
 * byte outside tab, line feed and carriage return, and no escaped unpaired surrogate.
 *
 * <p>Why not leave it to Jackson: Jackson detects the encoding from the first bytes, so text with NUL
 * bytes such as {@code 00 7B 00 7D} is silently read as UTF-16; and it turns an escaped lone
 * surrogate ({@code "\ud800"}) into U+FFFD, so the validated value would differ from what a script
 * reading the same bytes sees. Jackson's own UTF-8 checks stay on as a second line.
 */
final class Utf8Scan {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long SPACES = 0x2020202020202020L;
    private static final long BACKSLASHES = 0x5C5C5C5C5C5C5C5CL;

    private Utf8Scan() {}

    /**
     * Whether all 8 bytes are plain: ASCII, at least 0x20 and not a backslash (SWAR: the classic
     * "has a byte less than n" and "has a zero byte" tests, exact when no byte has its high bit).
     */
    private static boolean plain(long w) {
        if ((w & HIGHS) != 0) {
            return false;
        }
        long below = (w - SPACES) & ~w & HIGHS;
        long x = w ^ BACKSLASHES;
        long backslash = (x - ONES) & ~x & HIGHS;
        return (below | backslash) == 0;
    }

    /** A problem found at a byte offset. */
    record Problem(ErrorCode code, int offset, String message) {}

    /** The first problem in {@code b}, or {@code null} when the bytes pass. */
    static Problem firstProblem(byte[] b) {
        int n = b.length;
        int i = 0;
        while (i < n) {
            // Fast path: skip 8 plain bytes at a time; most JSON is plain ASCII.
            while (i + 8 <= n && plain((long) LONGS.get(b, i))) {
                i += 8;
            }
            if (i >= n) {
                break;
            }
            int c = b[i];
            if (c >= 0x20) {
                if (c != '\\') {
                    i++;
                    continue;
                }
                i = escape(b, i);
                if (i < 0) {
                    return new Problem(
                            ErrorCode.JSON_LONE_SURROGATE,
                            -i - 1,
                            "a string escapes an unpaired UTF-16 surrogate at byte " + (-i - 1));
                }
                continue;
            }
            if (c >= 0) {
                if (c == '\t' || c == '\n' || c == '\r') {
                    i++;
                    continue;
                }
                return new Problem(
                        ErrorCode.JSON_SYNTAX,
                        i,
                        String.format("raw control byte 0x%02X at byte %d; JSON requires it escaped", c, i));
            }
            int len = sequenceLength(b, i);
            if (len < 0) {
                return new Problem(ErrorCode.JSON_INVALID_UTF8, i, "invalid UTF-8 sequence at byte " + i);
            }
            i += len;
        }
        return null;
    }

    /**
     * Skips the escape starting at the backslash {@code i}; returns the next index, or
     * {@code -(i + 1)} when it escapes an unpaired surrogate. Malformed escapes are skipped by one
     * byte and left to the parser to reject.
     */
    private static int escape(byte[] b, int i) {
        int n = b.length;
        if (i + 1 >= n) {
            return i + 1;
        }
        int next = b[i + 1];
        if (next != 'u') {
            // A backslash followed by an ASCII byte is a two-byte escape (or a syntax error the
            // parser reports); anything else is left for the UTF-8 check.
            return next >= 0 ? i + 2 : i + 1;
        }
        int unit = hex4(b, i + 2);
        if (unit < 0) {
            return i + 1;
        }
        if (unit >= 0xDC00 && unit <= 0xDFFF) {
            return -(i + 1);
        }
        if (unit >= 0xD800 && unit <= 0xDBFF) {
            if (i + 11 < n && b[i + 6] == '\\' && b[i + 7] == 'u') {
                int low = hex4(b, i + 8);
                if (low >= 0xDC00 && low <= 0xDFFF) {
                    return i + 12;
                }
            }
            return -(i + 1);
        }
        return i + 6;
    }

    private static int hex4(byte[] b, int from) {
        if (from + 4 > b.length) {
            return -1;
        }
        int value = 0;
        for (int k = from; k < from + 4; k++) {
            int d = Character.digit(b[k], 16);
            if (d < 0 || b[k] < 0) {
                return -1;
            }
            value = (value << 4) | d;
        }
        return value;
    }

    /** The length of the well-formed multi-byte sequence at {@code i}, or -1 (RFC 3629, Table 3-7). */
    private static int sequenceLength(byte[] b, int i) {
        int n = b.length;
        int b0 = b[i] & 0xFF;
        if (b0 >= 0xC2 && b0 <= 0xDF) {
            return i + 1 < n && isContinuation(b[i + 1]) ? 2 : -1;
        }
        if (b0 >= 0xE0 && b0 <= 0xEF) {
            if (i + 2 >= n) {
                return -1;
            }
            int b1 = b[i + 1] & 0xFF;
            int lo = b0 == 0xE0 ? 0xA0 : 0x80;
            int hi = b0 == 0xED ? 0x9F : 0xBF;
            return b1 >= lo && b1 <= hi && isContinuation(b[i + 2]) ? 3 : -1;
        }
        if (b0 >= 0xF0 && b0 <= 0xF4) {
            if (i + 3 >= n) {
                return -1;
            }
            int b1 = b[i + 1] & 0xFF;
            int lo = b0 == 0xF0 ? 0x90 : 0x80;
            int hi = b0 == 0xF4 ? 0x8F : 0xBF;
            return b1 >= lo && b1 <= hi && isContinuation(b[i + 2]) && isContinuation(b[i + 3]) ? 4 : -1;
        }
        return -1;
    }

    private static boolean isContinuation(byte b) {
        return (b & 0xC0) == 0x80;
    }
}
