package dev.skillgate.consent;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The outcome of a consent or policy operation: either a value or one error {@link Diagnostic}
 * with a stable {@link ErrorCode}, never both.
 *
 * <p>Refusals are expected outcomes and are returned, not thrown. A failure never carries a
 * partial value.
 *
 * @param value the value on success
 * @param failure the reason on failure
 * @param <T> the value type
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record ConsentResult<T>(Optional<T> value, Optional<Diagnostic> failure) {
    public ConsentResult {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(failure, "failure");
        if (value.isPresent() == failure.isPresent()) {
            throw new IllegalArgumentException("exactly one of value and failure must be present");
        }
        if (failure.isPresent() && !failure.get().isError()) {
            throw new IllegalArgumentException("a failure must be an error diagnostic");
        }
    }

    /** A success carrying {@code value}. */
    public static <T> ConsentResult<T> success(T value) {
        return new ConsentResult<>(Optional.of(value), Optional.empty());
    }

    /** A failure with {@code code} and a short message (sanitised by {@link Diagnostic}). */
    public static <T> ConsentResult<T> failure(ErrorCode code, String message) {
        return new ConsentResult<>(Optional.empty(), Optional.of(Diagnostic.error(code, "", message)));
    }

    /** A failure carrying an existing diagnostic. */
    public static <T> ConsentResult<T> failure(Diagnostic diagnostic) {
        return new ConsentResult<>(Optional.empty(), Optional.of(diagnostic));
    }

    /** Whether the operation succeeded. */
    public boolean isSuccess() {
        return value.isPresent();
    }

    /** The failure's code, empty on success. */
    public Optional<ErrorCode> code() {
        return failure.map(Diagnostic::code);
    }

    /** The value, or {@link IllegalStateException} naming the failure's code. */
    public T orElseThrow() {
        if (value.isEmpty()) {
            throw new IllegalStateException("consent operation failed: " + failure.get());
        }
        return value.get();
    }
}
