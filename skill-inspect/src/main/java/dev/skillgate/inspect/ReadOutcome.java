package dev.skillgate.inspect;

import dev.skillgate.model.Diagnostic;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The outcome of one look at a bundle file through the {@link BoundedReader}: a value or the
 * diagnostic that explains why there is none.
 *
 * <p>Expected refusals (a link, a FIFO, a file over its bound, invalid UTF-8, a changed file) are
 * {@link Failure}s with a stable code; they are never exceptions.
 *
 * @param <T> the value type
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public sealed interface ReadOutcome<T> permits ReadOutcome.Success, ReadOutcome.Failure {

    /** The value, when this is a success. */
    Optional<T> value();

    /** The diagnostic, when this is a failure. */
    Optional<Diagnostic> diagnostic();

    /** Whether this is a success. */
    default boolean isSuccess() {
        return this instanceof Success<T>;
    }

    /** A success holding {@code value}. */
    static <T> ReadOutcome<T> success(T value) {
        return new Success<>(value);
    }

    /** A failure explained by {@code diagnostic}. */
    static <T> ReadOutcome<T> failure(Diagnostic diagnostic) {
        return new Failure<>(diagnostic);
    }

    /**
     * A value was read.
     *
     * @param <T> the value type
     * @param result the value
     */
    record Success<T>(T result) implements ReadOutcome<T> {
        public Success {
            Objects.requireNonNull(result, "result");
        }

        @Override
        public Optional<T> value() {
            return Optional.of(result);
        }

        @Override
        public Optional<Diagnostic> diagnostic() {
            return Optional.empty();
        }
    }

    /**
     * Nothing was read, for the reason given.
     *
     * @param <T> the value type that was asked for
     * @param problem why
     */
    record Failure<T>(Diagnostic problem) implements ReadOutcome<T> {
        public Failure {
            Objects.requireNonNull(problem, "problem");
        }

        @Override
        public Optional<T> value() {
            return Optional.empty();
        }

        @Override
        public Optional<Diagnostic> diagnostic() {
            return Optional.of(problem);
        }
    }
}
