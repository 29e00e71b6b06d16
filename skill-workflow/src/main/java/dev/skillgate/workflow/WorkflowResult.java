package dev.skillgate.workflow;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The outcome of a workflow journal operation: a value or one error {@link Diagnostic} with a stable
 * {@link ErrorCode}, never both and never a partial value.
 *
 * @param value the value on success
 * @param failure the reason on failure
 * @param <T> the value type
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record WorkflowResult<T>(Optional<T> value, Optional<Diagnostic> failure) {
    public WorkflowResult {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(failure, "failure");
        if (value.isPresent() == failure.isPresent()) {
            throw new IllegalArgumentException("exactly one of value and failure must be present");
        }
    }

    /** A success. */
    public static <T> WorkflowResult<T> success(T value) {
        return new WorkflowResult<>(Optional.of(value), Optional.empty());
    }

    /** A failure with {@code code} and a short message. */
    public static <T> WorkflowResult<T> failure(ErrorCode code, String message) {
        return new WorkflowResult<>(Optional.empty(), Optional.of(Diagnostic.error(code, "", message)));
    }

    /** A failure carrying {@code diagnostic}. */
    public static <T> WorkflowResult<T> failure(Diagnostic diagnostic) {
        return new WorkflowResult<>(Optional.empty(), Optional.of(diagnostic));
    }

    /** Whether it succeeded. */
    public boolean isSuccess() {
        return value.isPresent();
    }

    /** The failure's code, empty on success. */
    public Optional<ErrorCode> code() {
        return failure.map(Diagnostic::code);
    }

    /** The value, or {@link IllegalStateException} naming the failure. */
    public T orElseThrow() {
        if (value.isEmpty()) {
            throw new IllegalStateException("workflow operation failed: " + failure.get());
        }
        return value.get();
    }
}
