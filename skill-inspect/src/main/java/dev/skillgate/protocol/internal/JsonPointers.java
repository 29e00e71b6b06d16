package dev.skillgate.protocol.internal;

/** RFC 6901 JSON pointer building. */
public final class JsonPointers {
    private JsonPointers() {}

    /** The pointer of a property {@code name} under {@code parent}. */
    public static String child(String parent, String name) {
        return parent + "/" + escape(name);
    }

    /** The pointer of element {@code index} under {@code parent}. */
    public static String child(String parent, int index) {
        return parent + "/" + index;
    }

    /** Escapes one reference token: {@code ~} becomes {@code ~0} and {@code /} becomes {@code ~1}. */
    public static String escape(String token) {
        if (token.indexOf('~') < 0 && token.indexOf('/') < 0) {
            return token;
        }
        StringBuilder out = new StringBuilder(token.length() + 4);
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            if (c == '~') {
                out.append("~0");
            } else if (c == '/') {
                out.append("~1");
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
