package dev.skillgate.model.shared;

import org.apiguardian.api.API;

/**
 * Helpers for putting untrusted text into messages safely.
 *
 * <p>Everything that quotes caller- or bundle-supplied text in a message goes through
 * {@link #excerpt}, so that no message echoes a large value, a secret-sized blob or a terminal
 * escape sequence.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class Text {
    /** Longest excerpt of untrusted input quoted in a message, in code points. */
    public static final int EXCERPT_CODE_POINTS = 40;

    private Text() {}

    /**
     * A short, escaped excerpt of untrusted text for use inside a message: control and format
     * characters become {@code \\uXXXX}, and a result longer than {@link #EXCERPT_CODE_POINTS} code
     * points is cut and marked with an ellipsis.
     */
    public static String excerpt(String untrusted) {
        return sanitize(untrusted, EXCERPT_CODE_POINTS);
    }

    /**
     * Escapes control and invisible format characters and cuts the escaped text to at most
     * {@code max} code points plus an ellipsis that marks the cut.
     */
    public static String sanitize(String text, int max) {
        StringBuilder out = new StringBuilder(Math.min(text.length(), max) + 8);
        int count = 0;
        for (int i = 0; i < text.length(); ) {
            int cp = text.codePointAt(i);
            i += Character.charCount(cp);
            String piece = isUnsafe(cp) ? String.format("\\u%04X", cp) : new String(Character.toChars(cp));
            int pieceCount = piece.codePointCount(0, piece.length());
            if (count + pieceCount > max) {
                out.append('\u2026');
                break;
            }
            out.append(piece);
            count += pieceCount;
        }
        return out.toString();
    }

    /** Whether a code point is a control, format, line/paragraph separator or unpaired surrogate. */
    public static boolean isUnsafe(int cp) {
        int type = Character.getType(cp);
        return type == Character.CONTROL
                || type == Character.FORMAT
                || type == Character.LINE_SEPARATOR
                || type == Character.PARAGRAPH_SEPARATOR
                || type == Character.SURROGATE;
    }
}
