package dev.skillgate.inspect.internal;

/** Strict UTF-8 checks (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF). */
public final class Utf8 {
    private Utf8() {}

    /** The offset of the first byte that is not part of a valid UTF-8 sequence, or -1 if all are valid. */
    public static int firstInvalid(byte[] b, int from, int to) {
        int i = from;
        while (i < to) {
            int c = b[i] & 0xFF;
            if (c < 0x80) {
                i++;
                continue;
            }
            int need;
            int min;
            int max;
            if (c >= 0xC2 && c <= 0xDF) {
                need = 1;
                min = 0x80;
                max = 0xBF;
            } else if (c == 0xE0) {
                need = 2;
                min = 0xA0;
                max = 0xBF;
            } else if (c == 0xED) {
                need = 2;
                min = 0x80;
                max = 0x9F;
            } else if (c >= 0xE1 && c <= 0xEF) {
                need = 2;
                min = 0x80;
                max = 0xBF;
            } else if (c == 0xF0) {
                need = 3;
                min = 0x90;
                max = 0xBF;
            } else if (c >= 0xF1 && c <= 0xF3) {
                need = 3;
                min = 0x80;
                max = 0xBF;
            } else if (c == 0xF4) {
                need = 3;
                min = 0x80;
                max = 0x8F;
            } else {
                return i;
            }
            for (int k = 1; k <= need; k++) {
                if (i + k >= to) {
                    return i;
                }
                int cc = b[i + k] & 0xFF;
                int lo = k == 1 ? min : 0x80;
                int hi = k == 1 ? max : 0xBF;
                if (cc < lo || cc > hi) {
                    return i;
                }
            }
            i += need + 1;
        }
        return -1;
    }

    /** The offset of the first NUL byte, or -1. */
    public static int firstNul(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] == 0) {
                return i;
            }
        }
        return -1;
    }
}
