package dev.skillgate.model;

import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Thrown when a value type is constructed from input that breaks its rules.
 *
 * <p>It carries the stable {@link ErrorCode} of the first rule broken, so callers that turn
 * untrusted input into values can report a specific code without parsing messages. The message is
 * short and never echoes more than a bounded, escaped prefix of the rejected input.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class InvalidValueException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final transient ErrorCode code;

    /**
     * Creates the exception.
     *
     * @param code the rule that was broken
     * @param message a short explanation that must not contain secrets or large raw input
     */
    public InvalidValueException(ErrorCode code, String message) {
        super(code.name() + ": " + Objects.requireNonNull(message, "message"));
        this.code = code;
    }

    /** The rule that was broken. */
    public ErrorCode code() {
        return code;
    }

    /** This failure as an error {@link Diagnostic} at the given location ("" for none). */
    public Diagnostic toDiagnostic(String location) {
        String text = getMessage();
        return Diagnostic.error(code, location, text.substring(code.name().length() + 2));
    }
}
