package dev.skillgate.signature.internal;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.util.Objects;

/**
 * An expected rejection raised inside the parsers and turned into a {@link Diagnostic} at the public
 * boundary; it never leaves this module.
 *
 * <p>It carries no stack trace: it is control flow for untrusted input, not a fault.
 */
public final class Refusal extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient ErrorCode code;

    /**
     * @param code the stable code
     * @param message short text; untrusted parts must already be {@code Text.excerpt}ed
     */
    public Refusal(ErrorCode code, String message) {
        super(Objects.requireNonNull(message, "message"), null, false, false);
        this.code = Objects.requireNonNull(code, "code");
    }

    /** The stable code. */
    public ErrorCode code() {
        return code;
    }

    /** This refusal as an error diagnostic at {@code location}. */
    public Diagnostic toDiagnostic(String location) {
        return Diagnostic.error(code, location, getMessage());
    }
}
