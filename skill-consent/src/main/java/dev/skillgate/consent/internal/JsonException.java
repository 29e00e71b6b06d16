package dev.skillgate.consent.internal;

/**
 * Why the strict reader rejected a text. The message names the rule and a byte or character
 * offset; it never quotes the input.
 */
public final class JsonException extends Exception {
    private static final long serialVersionUID = 1L;

    /** The rule that was broken. */
    public enum Reason {
        TOO_LARGE,
        INVALID_UTF8,
        BOM,
        EMPTY,
        SYNTAX,
        TRAILING_DATA,
        DUPLICATE_KEY,
        DEPTH,
        NODES,
        STRING_TOO_LONG,
        NUMBER
    }

    private final Reason reason;

    JsonException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    /** The rule that was broken. */
    public Reason reason() {
        return reason;
    }
}
