package dev.skillgate.consent.internal;

import org.apiguardian.api.API;

/**
 * Why the strict reader rejected a text. The message names the rule and a byte or character
 * offset; it never quotes the input.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
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
