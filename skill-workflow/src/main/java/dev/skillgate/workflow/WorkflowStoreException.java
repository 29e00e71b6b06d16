package dev.skillgate.workflow;

import dev.skillgate.model.ErrorCode;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * A {@link WorkflowStore} operation that did not happen, with its stable code: {@code WORKFLOW_FENCED}
 * (stale token), {@code WORKFLOW_OWNER_ALIVE} (lease live), {@code WORKFLOW_NOT_FOUND},
 * {@code WORKFLOW_TERMINAL}, {@code WORKFLOW_STORE_CORRUPT}, {@code WORKFLOW_SCHEMA_UNKNOWN} or
 * {@code WORKFLOW_STORE_IO}. When it is thrown nothing was changed.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class WorkflowStoreException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient ErrorCode code;

    /** An exception with {@code code} and a short message that names no secret. */
    public WorkflowStoreException(ErrorCode code, String message) {
        super(message);
        this.code = Objects.requireNonNull(code, "code");
    }

    /** The same, with the underlying cause. */
    public WorkflowStoreException(ErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = Objects.requireNonNull(code, "code");
    }

    /** The code. */
    public ErrorCode code() {
        return code;
    }
}
