package dev.skillgate.engine.internal;

/**
 * Re-indents JSON text that has already passed the strict decoder, for the approval request's
 * display. Tokens are copied exactly as received (numbers keep their spelling, strings their
 * escapes); only whitespace between tokens changes, so the rendering shows the same value the
 * digested bytes hold.
 *
 * <p>Not a validator: it assumes valid JSON (the invocation was checked first) and bounds its
 * output by construction — the input is at most 64 KiB with depth at most 32, so indentation adds
 * at most 64 characters per token.
 */
public final class PrettyJson {
    private static final int INDENT = 2;

    private PrettyJson() {}

    /** The re-indented text, two spaces per level, one member or element per line. */
    public static String render(String json) {
        StringBuilder out = new StringBuilder(json.length() + json.length() / 2);
        int depth = 0;
        int i = 0;
        int n = json.length();
        while (i < n) {
            char c = json.charAt(i);
            switch (c) {
                case '"' -> {
                    int end = stringEnd(json, i);
                    out.append(json, i, end);
                    i = end;
                    continue;
                }
                case '{', '[' -> {
                    char close = c == '{' ? '}' : ']';
                    int next = skipSpace(json, i + 1);
                    if (next < n && json.charAt(next) == close) {
                        out.append(c).append(close);
                        i = next + 1;
                        continue;
                    }
                    depth++;
                    out.append(c).append('\n');
                    indent(out, depth);
                }
                case '}', ']' -> {
                    depth = Math.max(0, depth - 1);
                    out.append('\n');
                    indent(out, depth);
                    out.append(c);
                }
                case ',' -> {
                    out.append(",\n");
                    indent(out, depth);
                }
                case ':' -> out.append(": ");
                case ' ', '\t', '\n', '\r' -> {
                    // Insignificant whitespace between tokens.
                }
                default -> out.append(c);
            }
            i++;
        }
        return out.toString();
    }

    private static int stringEnd(String json, int start) {
        int i = start + 1;
        while (i < json.length()) {
            char c = json.charAt(i);
            if (c == '\\') {
                i += 2;
                continue;
            }
            if (c == '"') {
                return i + 1;
            }
            i++;
        }
        return json.length();
    }

    private static int skipSpace(String json, int i) {
        while (i < json.length()) {
            char c = json.charAt(i);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                break;
            }
            i++;
        }
        return i;
    }

    private static void indent(StringBuilder out, int depth) {
        out.append(" ".repeat(depth * INDENT));
    }
}
