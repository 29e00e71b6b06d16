package dev.skillgate.audit.internal;

import java.util.Map;
import java.util.Set;

/** Typed, strict access to decoded canonical JSON objects. */
final class Fields {
    private Fields() {}

    @SuppressWarnings("unchecked")
    static Map<String, Object> object(Object value, String what) throws Frames.FormatException {
        if (!(value instanceof Map<?, ?>)) {
            throw new Frames.FormatException("'" + what + "' is not an object");
        }
        return (Map<String, Object>) value;
    }

    static String string(Map<String, Object> m, String key) throws Frames.FormatException {
        if (!(m.get(key) instanceof String s)) {
            throw new Frames.FormatException("'" + key + "' is missing or not a string");
        }
        return s;
    }

    static long integer(Map<String, Object> m, String key) throws Frames.FormatException {
        if (!(m.get(key) instanceof Long n)) {
            throw new Frames.FormatException("'" + key + "' is missing or not an integer");
        }
        return n;
    }

    static void exactKeys(Map<String, Object> m, Set<String> keys, String what) throws Frames.FormatException {
        if (!m.keySet().equals(keys)) {
            throw new Frames.FormatException("'" + what + "' does not have exactly the schema's fields");
        }
    }
}
