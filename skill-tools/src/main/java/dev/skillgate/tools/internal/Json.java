package dev.skillgate.tools.internal;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Map;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Jackson 3 for the adapters: compact writing of plain values, and reading of text the strict
 * decoder has already accepted, with exact numbers (big decimals, never doubles).
 */
public final class Json {
    private static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
            .build();

    private Json() {}

    /** Compact JSON of maps, lists, strings, numbers, booleans and nulls. */
    public static String write(Object value) {
        return MAPPER.writeValueAsString(value);
    }

    /** {@link #write} as UTF-8 bytes. */
    public static byte[] writeBytes(Object value) {
        return write(value).getBytes(StandardCharsets.UTF_8);
    }

    /** A tree of {@code text}; numbers exact. */
    public static JsonNode read(String text) throws JacksonException {
        return MAPPER.readTree(text);
    }

    /** A plain value (maps, lists, strings, big decimals or big integers, booleans, null) of {@code text}. */
    public static Object readPlain(String text) throws JacksonException {
        return MAPPER.readValue(text, Object.class);
    }

    /** Whether {@code value} is made only of JSON-able plain values (bounded depth). */
    public static boolean isPlain(Object value, int depth) {
        if (depth > 64) {
            return false;
        }
        if (value == null
                || value instanceof String
                || value instanceof Boolean
                || value instanceof Integer
                || value instanceof Long
                || value instanceof Short
                || value instanceof Byte
                || value instanceof BigInteger
                || value instanceof BigDecimal
                || value instanceof Double
                || value instanceof Float) {
            return true;
        }
        if (value instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!(e.getKey() instanceof String) || !isPlain(e.getValue(), depth + 1)) {
                    return false;
                }
            }
            return true;
        }
        if (value instanceof Collection<?> c) {
            for (Object o : c) {
                if (!isPlain(o, depth + 1)) {
                    return false;
                }
            }
            return true;
        }
        return false;
    }
}
