package dev.skillgate.protocol;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.Limits;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The outcome of checking raw JSON bytes against a compiled schema: the checked value, or the
 * issues that refuse it.
 *
 * <p>An {@link Invalid} carries 1–{@value Limits#VALIDATION_ISSUES} diagnostics, each with a stable
 * {@code JSON_*} or {@code VALUE_*} code and a JSON pointer into the data; when more issues existed
 * the last one is {@link dev.skillgate.model.ErrorCode#VALUE_ISSUES_TRUNCATED}. Messages never
 * quote data values (at most a short escaped excerpt of a property name). A {@link Valid} says the
 * bytes matched the schema — nothing about whether acting on them is safe.
 *
 * @param <T> the checked value's type
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public sealed interface Validation<T> permits Validation.Valid, Validation.Invalid {

    /** Whether the bytes were accepted. */
    boolean isValid();

    /** The issues; empty when valid. */
    List<Diagnostic> issues();

    /** The checked value when valid; empty otherwise. */
    Optional<T> valueIfValid();

    /**
     * The bytes were accepted.
     *
     * @param value the checked value
     * @param <T> its type
     */
    record Valid<T>(T value) implements Validation<T> {
        public Valid {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public boolean isValid() {
            return true;
        }

        @Override
        public List<Diagnostic> issues() {
            return List.of();
        }

        @Override
        public Optional<T> valueIfValid() {
            return Optional.of(value);
        }
    }

    /**
     * The bytes were refused.
     *
     * @param issues 1–20 diagnostics in the order found
     * @param <T> the type a valid outcome would have had
     */
    record Invalid<T>(List<Diagnostic> issues) implements Validation<T> {
        public Invalid {
            issues = List.copyOf(issues);
            if (issues.isEmpty() || issues.size() > Limits.VALIDATION_ISSUES) {
                throw new IllegalArgumentException("an invalid outcome carries 1-20 issues");
            }
        }

        @Override
        public boolean isValid() {
            return false;
        }

        @Override
        public Optional<T> valueIfValid() {
            return Optional.empty();
        }
    }
}
