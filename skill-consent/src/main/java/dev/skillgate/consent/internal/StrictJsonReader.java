package dev.skillgate.consent.internal;

import dev.skillgate.consent.internal.JsonException.Reason;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apiguardian.api.API;

/**
 * A small, strict, bounded JSON reader for Skillgate's own private files (RFC 8259 grammar only).
 *
 * <p>Rules: the byte length is bounded before decoding; the text must be strict UTF-8 (no
 * overlong forms, no encoded surrogates) without a byte-order mark; exactly one value with only
 * JSON whitespace around it; object keys unique (exact string comparison, no normalisation);
 * nesting depth bounded by an explicit counter that is checked before descending, so recursion is
 * bounded; node count and string length bounded; numbers follow the JSON grammar exactly (no
 * {@code NaN}, {@code Infinity}, leading {@code +} or leading zeros) and are kept as lexemes; escaped
 * surrogates must form a pair. It does not coerce, normalise or repair anything.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class StrictJsonReader {

    /**
     * The bounds one parse enforces.
     *
     * @param maxBytes most bytes of input
     * @param maxDepth most nested containers (the top-level container is depth 1)
     * @param maxNodes most values, containers included
     * @param maxStringChars most UTF-16 units in one decoded string or key
     */
    public record Bounds(int maxBytes, int maxDepth, int maxNodes, int maxStringChars) {
        public Bounds {
            if (maxBytes < 1 || maxDepth < 1 || maxNodes < 1 || maxStringChars < 1) {
                throw new IllegalArgumentException("bounds must be positive");
            }
        }
    }

    /** Longest number lexeme accepted. */
    static final int MAX_NUMBER_CHARS = 64;

    private final String text;
    private final Bounds bounds;
    private int pos;
    private int nodes;

    private StrictJsonReader(String text, Bounds bounds) {
        this.text = text;
        this.bounds = bounds;
    }

    /** Parses exactly one JSON value from strict UTF-8 bytes within the bounds. */
    public static JsonValue parse(byte[] utf8, Bounds bounds) throws JsonException {
        if (utf8.length > bounds.maxBytes()) {
            throw new JsonException(Reason.TOO_LARGE, "the text exceeds " + bounds.maxBytes() + " bytes");
        }
        if (utf8.length >= 3 && (utf8[0] & 0xFF) == 0xEF && (utf8[1] & 0xFF) == 0xBB && (utf8[2] & 0xFF) == 0xBF) {
            throw new JsonException(Reason.BOM, "the text starts with a byte-order mark");
        }
        StrictJsonReader reader = new StrictJsonReader(decode(utf8), bounds);
        reader.skipWhitespace();
        if (reader.pos == reader.text.length()) {
            throw new JsonException(Reason.EMPTY, "the text holds no value");
        }
        JsonValue value = reader.readValue(0);
        reader.skipWhitespace();
        if (reader.pos != reader.text.length()) {
            throw new JsonException(Reason.TRAILING_DATA, "data after the value at character " + reader.pos);
        }
        return value;
    }

    private static String decode(byte[] utf8) throws JsonException {
        CharsetDecoder decoder = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        try {
            CharBuffer chars = decoder.decode(ByteBuffer.wrap(utf8));
            return chars.toString();
        } catch (CharacterCodingException e) {
            throw new JsonException(Reason.INVALID_UTF8, "the text is not valid UTF-8");
        }
    }

    /**
     * Reads one value whose enclosing container depth is {@code depth}. Containers increment the
     * counter and check it before reading their members, which bounds the recursion.
     */
    private JsonValue readValue(int depth) throws JsonException {
        countNode();
        if (pos >= text.length()) {
            throw syntax("a value is missing");
        }
        char c = text.charAt(pos);
        switch (c) {
            case '{':
                return readObject(enter(depth));
            case '[':
                return readArray(enter(depth));
            case '"':
                return new JsonValue.JString(readString());
            case 't':
                expectLiteral("true");
                return new JsonValue.JBool(true);
            case 'f':
                expectLiteral("false");
                return new JsonValue.JBool(false);
            case 'n':
                expectLiteral("null");
                return new JsonValue.JNull();
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    return readNumber();
                }
                throw syntax("unexpected character");
        }
    }

    private int enter(int depth) throws JsonException {
        int inner = depth + 1;
        if (inner > bounds.maxDepth()) {
            throw new JsonException(Reason.DEPTH, "nesting deeper than " + bounds.maxDepth());
        }
        return inner;
    }

    private void countNode() throws JsonException {
        nodes++;
        if (nodes > bounds.maxNodes()) {
            throw new JsonException(Reason.NODES, "more than " + bounds.maxNodes() + " values");
        }
    }

    private JsonValue readObject(int depth) throws JsonException {
        pos++; // '{'
        Map<String, JsonValue> members = new LinkedHashMap<>();
        skipWhitespace();
        if (peek() == '}') {
            pos++;
            return new JsonValue.JObject(members);
        }
        while (true) {
            skipWhitespace();
            if (peek() != '"') {
                throw syntax("an object key must be a string");
            }
            String key = readString();
            if (members.containsKey(key)) {
                throw new JsonException(Reason.DUPLICATE_KEY, "an object repeats a key at character " + pos);
            }
            skipWhitespace();
            expect(':');
            skipWhitespace();
            members.put(key, readValue(depth));
            skipWhitespace();
            char c = peek();
            pos++;
            if (c == '}') {
                return new JsonValue.JObject(members);
            }
            if (c != ',') {
                pos--;
                throw syntax("expected ',' or '}'");
            }
        }
    }

    private JsonValue readArray(int depth) throws JsonException {
        pos++; // '['
        List<JsonValue> items = new ArrayList<>();
        skipWhitespace();
        if (peek() == ']') {
            pos++;
            return new JsonValue.JArray(items);
        }
        while (true) {
            skipWhitespace();
            items.add(readValue(depth));
            skipWhitespace();
            char c = peek();
            pos++;
            if (c == ']') {
                return new JsonValue.JArray(items);
            }
            if (c != ',') {
                pos--;
                throw syntax("expected ',' or ']'");
            }
        }
    }

    private String readString() throws JsonException {
        pos++; // opening quote
        StringBuilder out = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw syntax("unterminated string");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                return out.toString();
            }
            if (c < 0x20) {
                pos--;
                throw syntax("unescaped control character in a string");
            }
            if (c == '\\') {
                readEscape(out);
            } else {
                out.append(c);
            }
            if (out.length() > bounds.maxStringChars()) {
                throw new JsonException(
                        Reason.STRING_TOO_LONG, "a string is longer than " + bounds.maxStringChars() + " characters");
            }
        }
    }

    private void readEscape(StringBuilder out) throws JsonException {
        if (pos >= text.length()) {
            throw syntax("unterminated escape");
        }
        char e = text.charAt(pos++);
        switch (e) {
            case '"':
            case '\\':
            case '/':
                out.append(e);
                return;
            case 'b':
                out.append('\b');
                return;
            case 'f':
                out.append('\f');
                return;
            case 'n':
                out.append('\n');
                return;
            case 'r':
                out.append('\r');
                return;
            case 't':
                out.append('\t');
                return;
            case 'u':
                char unit = readHex4();
                if (Character.isHighSurrogate(unit)) {
                    if (pos + 1 < text.length() && text.charAt(pos) == '\\' && text.charAt(pos + 1) == 'u') {
                        pos += 2;
                        char low = readHex4();
                        if (!Character.isLowSurrogate(low)) {
                            throw syntax("an escaped high surrogate is not followed by a low surrogate");
                        }
                        out.append(unit).append(low);
                        return;
                    }
                    throw syntax("an escaped high surrogate is not followed by a low surrogate");
                }
                if (Character.isLowSurrogate(unit)) {
                    throw syntax("an escaped low surrogate without a high surrogate");
                }
                out.append(unit);
                return;
            default:
                pos--;
                throw syntax("unknown escape");
        }
    }

    private char readHex4() throws JsonException {
        if (pos + 4 > text.length()) {
            throw syntax("a \\u escape needs four hex digits");
        }
        int value = 0;
        for (int i = 0; i < 4; i++) {
            char h = text.charAt(pos++);
            int digit;
            if (h >= '0' && h <= '9') {
                digit = h - '0';
            } else if (h >= 'a' && h <= 'f') {
                digit = h - 'a' + 10;
            } else if (h >= 'A' && h <= 'F') {
                digit = h - 'A' + 10;
            } else {
                pos--;
                throw syntax("a \\u escape needs four hex digits");
            }
            value = (value << 4) | digit;
        }
        return (char) value;
    }

    private JsonValue readNumber() throws JsonException {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        if (peek() == '0') {
            pos++;
        } else if (peek() >= '1' && peek() <= '9') {
            digits();
        } else {
            throw new JsonException(Reason.NUMBER, "malformed number at character " + start);
        }
        if (peek() == '.') {
            pos++;
            if (!(peek() >= '0' && peek() <= '9')) {
                throw new JsonException(Reason.NUMBER, "malformed fraction at character " + start);
            }
            digits();
        }
        if (peek() == 'e' || peek() == 'E') {
            pos++;
            if (peek() == '+' || peek() == '-') {
                pos++;
            }
            if (!(peek() >= '0' && peek() <= '9')) {
                throw new JsonException(Reason.NUMBER, "malformed exponent at character " + start);
            }
            digits();
        }
        if (pos - start > MAX_NUMBER_CHARS) {
            throw new JsonException(Reason.NUMBER, "a number is longer than " + MAX_NUMBER_CHARS + " characters");
        }
        return new JsonValue.JNumber(text.substring(start, pos));
    }

    private void digits() {
        while (peek() >= '0' && peek() <= '9') {
            pos++;
        }
    }

    private void expectLiteral(String literal) throws JsonException {
        if (!text.startsWith(literal, pos)) {
            throw syntax("unknown literal");
        }
        pos += literal.length();
    }

    private void expect(char c) throws JsonException {
        if (peek() != c) {
            throw syntax("expected '" + c + "'");
        }
        pos++;
    }

    /** The current character, or NUL at the end (NUL never occurs unescaped in valid JSON here). */
    private char peek() {
        return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private void skipWhitespace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                pos++;
            } else {
                return;
            }
        }
    }

    private JsonException syntax(String what) {
        return new JsonException(Reason.SYNTAX, what + " at character " + pos);
    }
}
