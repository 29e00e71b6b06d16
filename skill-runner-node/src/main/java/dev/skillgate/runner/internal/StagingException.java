package dev.skillgate.runner.internal;

import dev.skillgate.model.ErrorCode;
import java.util.Objects;

/** Staging failed with a stable code; the message is input-free. */
public final class StagingException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient ErrorCode code;

    public StagingException(ErrorCode code, String message) {
        super(message);
        this.code = Objects.requireNonNull(code, "code");
    }

    /** The code to report. */
    public ErrorCode code() {
        return code;
    }
}
