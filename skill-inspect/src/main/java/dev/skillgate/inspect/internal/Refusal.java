package dev.skillgate.inspect.internal;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;

/**
 * An expected refusal inside the implementation, carrying the diagnostic that the public API
 * returns as a value. Never escapes the module.
 */
public final class Refusal extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient Diagnostic diagnostic;

    public Refusal(Diagnostic diagnostic) {
        super(diagnostic.message(), null, false, false);
        this.diagnostic = diagnostic;
    }

    public Refusal(ErrorCode code, String location, String message) {
        this(Diagnostic.error(code, location, message));
    }

    public Diagnostic diagnostic() {
        return diagnostic;
    }
}
