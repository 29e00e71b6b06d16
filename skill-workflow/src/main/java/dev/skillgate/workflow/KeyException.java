package dev.skillgate.workflow;

import dev.skillgate.model.ErrorCode;
import java.util.Objects;

/**
 * A {@link KeyProvider} that could not wrap or unwrap, with its code ({@code WORKFLOW_KEY_MISMATCH},
 * {@code WORKFLOW_RECORD_TAMPERED} or {@code WORKFLOW_KEY_UNAVAILABLE}). The message names no key
 * material.
 */
public final class KeyException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient ErrorCode code;

    /** An exception with {@code code}. */
    public KeyException(ErrorCode code, String message) {
        super(message);
        this.code = Objects.requireNonNull(code, "code");
    }

    /** The code. */
    public ErrorCode code() {
        return code;
    }
}
