package dev.skillgate.runner.internal;

import dev.skillgate.model.ErrorCode;
import java.util.Objects;

/** Staging failed with a stable code; the message is input-free. */
public final class StagingException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient ErrorCode code;
    private final String location;

    public StagingException(ErrorCode code, String message) {
        this(code, "", message);
    }

    /** A failure located at {@code location} (a path; "" for none). */
    public StagingException(ErrorCode code, String location, String message) {
        super(message);
        this.code = Objects.requireNonNull(code, "code");
        this.location = Objects.requireNonNull(location, "location");
    }

    /** Where it failed ("" for none). */
    public String location() {
        return location;
    }

    /** The code to report. */
    public ErrorCode code() {
        return code;
    }
}
