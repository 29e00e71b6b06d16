package dev.skillgate.workflow;

import dev.skillgate.model.ErrorCode;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * A {@link KeyProvider} that could not wrap or unwrap, with its code ({@code WORKFLOW_KEY_MISMATCH},
 * {@code WORKFLOW_RECORD_TAMPERED} or {@code WORKFLOW_KEY_UNAVAILABLE}). The message names no key
 * material.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
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
