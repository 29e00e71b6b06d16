package dev.skillgate.consent.internal;

import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.Map;
import org.apiguardian.api.API;

/**
 * Writes a {@link JsonValue} as UTF-8 JSON that {@link StrictJsonReader} reads back to an equal
 * value: two-space indentation, members in their stored order, a final newline.
 *
 * <p>Strings escape {@code "}, {@code \} and every character below U+0020; other characters are
 * written as UTF-8. A string holding an unpaired surrogate cannot be encoded as strict UTF-8 and
 * is refused with {@link IllegalArgumentException} (a bug in the caller, never silent
 * replacement). Nesting is bounded by {@link #MAX_DEPTH}.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class StrictJsonWriter {
    /** Deepest nesting written. */
    public static final int MAX_DEPTH = 64;

    private final StringBuilder out = new StringBuilder(256);

    private StrictJsonWriter() {}

    /** The UTF-8 bytes of {@code value}, indented, with a trailing newline. */
    public static byte[] write(JsonValue value) {
        StrictJsonWriter writer = new StrictJsonWriter();
        writer.value(value, 0);
        writer.out.append('\n');
        return writer.out.toString().getBytes(StandardCharsets.UTF_8);
    }

    private void value(JsonValue value, int depth) {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("JSON nesting deeper than " + MAX_DEPTH);
        }
        if (value instanceof JsonValue.JObject) {
            object((JsonValue.JObject) value, depth);
        } else if (value instanceof JsonValue.JArray) {
            array((JsonValue.JArray) value, depth);
        } else if (value instanceof JsonValue.JString) {
            string(((JsonValue.JString) value).value());
        } else if (value instanceof JsonValue.JNumber) {
            out.append(((JsonValue.JNumber) value).lexeme());
        } else if (value instanceof JsonValue.JBool) {
            out.append(((JsonValue.JBool) value).value() ? "true" : "false");
        } else {
            out.append("null");
        }
    }

    private void object(JsonValue.JObject object, int depth) {
        if (object.members().isEmpty()) {
            out.append("{}");
            return;
        }
        out.append('{');
        Iterator<Map.Entry<String, JsonValue>> it = object.members().entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<String, JsonValue> member = it.next();
            newline(depth + 1);
            string(member.getKey());
            out.append(": ");
            value(member.getValue(), depth + 1);
            if (it.hasNext()) {
                out.append(',');
            }
        }
        newline(depth);
        out.append('}');
    }

    private void array(JsonValue.JArray array, int depth) {
        if (array.items().isEmpty()) {
            out.append("[]");
            return;
        }
        out.append('[');
        for (int i = 0; i < array.items().size(); i++) {
            newline(depth + 1);
            value(array.items().get(i), depth + 1);
            if (i + 1 < array.items().size()) {
                out.append(',');
            }
        }
        newline(depth);
        out.append(']');
    }

    private void newline(int depth) {
        out.append('\n');
        for (int i = 0; i < depth; i++) {
            out.append("  ");
        }
    }

    private void string(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                out.append(c).append(s.charAt(i + 1));
                i++;
                continue;
            }
            if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException("a string holds an unpaired surrogate");
            }
            switch (c) {
                case '"':
                    out.append("\\\"");
                    break;
                case '\\':
                    out.append("\\\\");
                    break;
                case '\n':
                    out.append("\\n");
                    break;
                case '\r':
                    out.append("\\r");
                    break;
                case '\t':
                    out.append("\\t");
                    break;
                case '\b':
                    out.append("\\b");
                    break;
                case '\f':
                    out.append("\\f");
                    break;
                default:
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
            }
        }
        out.append('"');
    }
}
