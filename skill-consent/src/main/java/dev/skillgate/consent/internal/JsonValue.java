package dev.skillgate.consent.internal;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * A parsed JSON value of the strict reader: objects keep their member order, numbers keep their
 * exact lexeme, strings are exactly what the text encoded.
 *
 * <p>Used only for Skillgate's own small private files; it is not a general JSON library.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public sealed interface JsonValue
        permits JsonValue.JObject,
                JsonValue.JArray,
                JsonValue.JString,
                JsonValue.JNumber,
                JsonValue.JBool,
                JsonValue.JNull {

    /** An object; member order is insertion order, keys are unique. */
    record JObject(Map<String, JsonValue> members) implements JsonValue {
        public JObject {
            members = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(members, "members")));
        }
    }

    /** An array. */
    record JArray(List<JsonValue> items) implements JsonValue {
        public JArray {
            items = List.copyOf(items);
        }
    }

    /** A string, exactly as decoded. */
    record JString(String value) implements JsonValue {
        public JString {
            Objects.requireNonNull(value, "value");
        }
    }

    /** A number, kept as its exact JSON lexeme (validated by the reader or by {@link #ofLong}). */
    record JNumber(String lexeme) implements JsonValue {
        public JNumber {
            Objects.requireNonNull(lexeme, "lexeme");
        }

        /** An integer number. */
        public static JNumber ofLong(long value) {
            return new JNumber(Long.toString(value));
        }
    }

    /** {@code true} or {@code false}. */
    record JBool(boolean value) implements JsonValue {}

    /** {@code null}. */
    record JNull() implements JsonValue {}
}
