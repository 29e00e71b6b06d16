package dev.skillgate.audit.internal;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The canonical JSON subset every audit payload is written in, and its strict reader.
 *
 * <p>Canonical form (documented in {@code docs/audit.md}): UTF-8 without BOM; no whitespace
 * outside strings; the top level is an object; values are objects, strings, non-negative integers
 * below 2<sup>53</sup> written in shortest decimal form, or {@code true}/{@code false}; no floats,
 * no nulls, no arrays. Object keys are ASCII {@code [A-Za-z][A-Za-z0-9]*} and appear in strictly
 * ascending order (so a key can never repeat). Strings never contain U+0000–U+001F or unpaired
 * surrogates; only {@code "} and {@code \} are escaped, as {@code \"} and {@code \\}. Nesting is at
 * most {@link #MAX_DEPTH} objects deep. The form is a subset of RFC 8785 (JCS) output.
 *
 * <p>The reader accepts exactly the bytes the writer produces for some value and nothing else, so
 * two different byte strings never decode to the same value. Verification hashes the stored bytes;
 * it never re-serialises.
 */
final class CanonicalJson {
    /** Deepest object nesting accepted (the top-level object is depth 1). */
    static final int MAX_DEPTH = 4;
    /** Largest integer accepted: 2^53 - 1. */
    static final long MAX_INTEGER = (1L << 53) - 1;
    /** Longest key, in characters. */
    static final int MAX_KEY_LENGTH = 64;

    private CanonicalJson() {}

    /** A payload that is not canonical. The message names the byte offset; never the content. */
    static final class NotCanonicalException extends Exception {
        private static final long serialVersionUID = 1L;

        NotCanonicalException(String message) {
            super(message);
        }
    }

    // ------------------------------------------------------------------ writer

    /**
     * Writes {@code object} canonically. Values must be {@link String}, {@link Long}, {@link Integer},
     * {@link Boolean} or a nested {@code Map<String, ?>}.
     *
     * @throws IllegalArgumentException when a value falls outside the subset (nothing is written)
     */
    static byte[] write(Map<String, ?> object) {
        StringBuilder out = new StringBuilder(256);
        writeObject(out, object, 1);
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void writeObject(StringBuilder out, Map<String, ?> object, int depth) {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("canonical JSON nests at most " + MAX_DEPTH + " objects");
        }
        Map<String, ?> sorted = new TreeMap<>(object);
        out.append('{');
        boolean first = true;
        for (Map.Entry<String, ?> e : sorted.entrySet()) {
            if (!isKey(e.getKey())) {
                throw new IllegalArgumentException("a canonical key is 1-64 ASCII letters and digits");
            }
            if (!first) {
                out.append(',');
            }
            first = false;
            out.append('"').append(e.getKey()).append("\":");
            writeValue(out, e.getValue(), depth);
        }
        out.append('}');
    }

    @SuppressWarnings("unchecked")
    private static void writeValue(StringBuilder out, Object value, int depth) {
        if (value instanceof String s) {
            writeString(out, s);
        } else if (value instanceof Long || value instanceof Integer) {
            long n = ((Number) value).longValue();
            if (n < 0 || n > MAX_INTEGER) {
                throw new IllegalArgumentException("canonical integers are 0 to 2^53-1");
            }
            out.append(n);
        } else if (value instanceof Boolean b) {
            out.append(b.booleanValue() ? "true" : "false");
        } else if (value instanceof Map<?, ?> m) {
            writeObject(out, (Map<String, ?>) m, depth + 1);
        } else {
            throw new IllegalArgumentException("value type outside the canonical subset");
        }
    }

    private static void writeString(StringBuilder out, String s) {
        checkString(s);
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\');
            }
            out.append(c);
        }
        out.append('"');
    }

    /** Throws when {@code s} holds a control character or an unpaired surrogate. */
    static void checkString(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20) {
                throw new IllegalArgumentException("control characters are not allowed in audit records");
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
                    throw new IllegalArgumentException("unpaired surrogates are not allowed in audit records");
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                throw new IllegalArgumentException("unpaired surrogates are not allowed in audit records");
            }
        }
    }

    static boolean isKey(String key) {
        if (key.isEmpty() || key.length() > MAX_KEY_LENGTH || !isAsciiLetter(key.charAt(0))) {
            return false;
        }
        for (int i = 1; i < key.length(); i++) {
            char c = key.charAt(i);
            if (!isAsciiLetter(c) && !(c >= '0' && c <= '9')) {
                return false;
            }
        }
        return true;
    }

    private static boolean isAsciiLetter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    // ------------------------------------------------------------------ reader

    /**
     * Reads canonical bytes {@code [offset, offset + length)} into nested maps (insertion order is
     * the stored order). Strings become {@link String}, integers {@link Long}, booleans
     * {@link Boolean}.
     */
    static Map<String, Object> read(byte[] bytes, int offset, int length) throws NotCanonicalException {
        return read(bytes, offset, length, null, null);
    }

    /**
     * As {@link #read(byte[], int, int)}, and stores in {@code range} the absolute {@code [start,
     * end)} of the value of the top-level key {@code captureKey} (left untouched when absent).
     */
    static Map<String, Object> read(byte[] bytes, int offset, int length, String captureKey, int[] range)
            throws NotCanonicalException {
        Reader r = new Reader(bytes, offset, offset + length);
        r.captureKey = captureKey;
        r.range = range;
        if (r.pos >= r.end || bytes[r.pos] != '{') {
            throw new NotCanonicalException("payload does not start with '{'");
        }
        Map<String, Object> value = r.object(1);
        if (r.pos != r.end) {
            throw new NotCanonicalException("trailing bytes after the payload object at +" + (r.pos - offset));
        }
        return value;
    }

    private static final class Reader {
        private final byte[] b;
        private String captureKey;
        private int[] range;
        private final int start;
        private final int end;
        private int pos;

        Reader(byte[] b, int start, int end) {
            this.b = b;
            this.start = start;
            this.end = end;
            this.pos = start;
        }

        private NotCanonicalException fail(String what) {
            return new NotCanonicalException(what + " at +" + (pos - start));
        }

        private int peek() throws NotCanonicalException {
            if (pos >= end) {
                throw fail("unexpected end of payload");
            }
            return b[pos] & 0xff;
        }

        private void expect(char c) throws NotCanonicalException {
            if (peek() != c) {
                throw fail("expected '" + c + "'");
            }
            pos++;
        }

        Map<String, Object> object(int depth) throws NotCanonicalException {
            if (depth > MAX_DEPTH) {
                throw fail("objects nest deeper than " + MAX_DEPTH);
            }
            expect('{');
            Map<String, Object> map = new LinkedHashMap<>(16);
            if (peek() == '}') {
                pos++;
                return Collections.unmodifiableMap(map);
            }
            String previous = null;
            while (true) {
                String key = key();
                if (previous != null && previous.compareTo(key) >= 0) {
                    throw fail("keys are not in strictly ascending order");
                }
                previous = key;
                expect(':');
                int valueStart = pos;
                map.put(key, value(depth));
                if (depth == 1 && range != null && key.equals(captureKey)) {
                    range[0] = valueStart;
                    range[1] = pos;
                }
                int c = peek();
                pos++;
                if (c == '}') {
                    return Collections.unmodifiableMap(map);
                }
                if (c != ',') {
                    pos--;
                    throw fail("expected ',' or '}'");
                }
            }
        }

        private String key() throws NotCanonicalException {
            expect('"');
            int from = pos;
            while (pos < end && b[pos] != '"') {
                int c = b[pos] & 0xff;
                boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (pos > from && c >= '0' && c <= '9');
                if (!ok) {
                    throw fail("keys are ASCII letters and digits, starting with a letter");
                }
                pos++;
            }
            int length = pos - from;
            expect('"');
            if (length == 0 || length > MAX_KEY_LENGTH) {
                throw fail("keys are 1-" + MAX_KEY_LENGTH + " characters");
            }
            return new String(b, from, length, StandardCharsets.US_ASCII);
        }

        private Object value(int depth) throws NotCanonicalException {
            int c = peek();
            if (c == '"') {
                return string();
            }
            if (c == '{') {
                return object(depth + 1);
            }
            if (c >= '0' && c <= '9') {
                return integer();
            }
            if (literal("true")) {
                return Boolean.TRUE;
            }
            if (literal("false")) {
                return Boolean.FALSE;
            }
            throw fail("value outside the canonical subset");
        }

        private boolean literal(String word) {
            if (end - pos < word.length()) {
                return false;
            }
            for (int i = 0; i < word.length(); i++) {
                if (b[pos + i] != word.charAt(i)) {
                    return false;
                }
            }
            pos += word.length();
            return true;
        }

        private Long integer() throws NotCanonicalException {
            int from = pos;
            long n = 0;
            while (pos < end && b[pos] >= '0' && b[pos] <= '9') {
                if (pos - from >= 16) {
                    throw fail("integer above 2^53-1");
                }
                n = n * 10 + (b[pos] - '0');
                pos++;
            }
            if (pos - from > 1 && b[from] == '0') {
                throw fail("integer with a leading zero");
            }
            if (n > MAX_INTEGER) {
                throw fail("integer above 2^53-1");
            }
            if (pos < end && (b[pos] == '.' || b[pos] == 'e' || b[pos] == 'E')) {
                throw fail("floats are not allowed");
            }
            return n;
        }

        private String string() throws NotCanonicalException {
            expect('"');
            // '"' and '\' never occur inside a multi-byte UTF-8 sequence, so scanning bytes is exact.
            byte[] out = null;
            int outLength = 0;
            int from = pos;
            boolean ascii = true;
            while (true) {
                if (pos >= end) {
                    throw fail("unterminated string");
                }
                int c = b[pos] & 0xff;
                if (c == '"') {
                    break;
                }
                if (c < 0x20) {
                    throw fail("control character in a string");
                }
                if (c >= 0x80) {
                    ascii = false;
                }
                if (c == '\\') {
                    if (out == null) {
                        out = new byte[end - from];
                    }
                    System.arraycopy(b, from, out, outLength, pos - from);
                    outLength += pos - from;
                    pos++;
                    int escaped = pos < end ? b[pos] & 0xff : -1;
                    if (escaped != '"' && escaped != '\\') {
                        throw fail("only \\\" and \\\\ are canonical escapes");
                    }
                    out[outLength++] = (byte) escaped;
                    pos++;
                    from = pos;
                    continue;
                }
                pos++;
            }
            byte[] src = b;
            int srcFrom = from;
            int srcLength = pos - from;
            if (out != null) {
                System.arraycopy(b, from, out, outLength, pos - from);
                outLength += pos - from;
                src = out;
                srcFrom = 0;
                srcLength = outLength;
            }
            pos++; // closing quote
            if (ascii) {
                return new String(src, srcFrom, srcLength, StandardCharsets.ISO_8859_1);
            }
            CharsetDecoder decoder = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT);
            try {
                CharBuffer chars = decoder.decode(ByteBuffer.wrap(src, srcFrom, srcLength));
                return chars.toString();
            } catch (CharacterCodingException e) {
                throw fail("string is not valid UTF-8");
            }
        }
    }
}
