package dev.skillgate.runner;

import dev.skillgate.model.Diagnostic;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Decides whether a script's stdout is an acceptable result: the seam through which the engine
 * plugs in the protocol module's strict decoder and compiled output schema.
 *
 * <p>The runner calls it at most once per run, only after the script exited with code 0 by itself,
 * only with complete (never truncated) output that is non-empty and valid UTF-8. It never decides
 * success on its own: success also needs proven cleanup and no detached descendant. An
 * implementation must be strict (exactly one JSON value, nothing after it) and must not echo raw
 * output into its diagnostics beyond {@link dev.skillgate.model.shared.Text#excerpt}. If it throws, the
 * runner reports {@code OUTPUT_NOT_JSON}.
 */
@FunctionalInterface
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public interface OutputCheck {

    /**
     * Checks the exact stdout bytes.
     *
     * @param stdout a copy of the complete output
     * @return the validated canonical JSON text, or why the output is rejected
     */
    Result check(byte[] stdout);

    /** The verdict of an {@link OutputCheck}. */
    sealed interface Result permits Valid, Invalid {}

    /**
     * The output is one valid JSON value.
     *
     * @param json the canonical JSON text reported on success
     */
    record Valid(String json) implements Result {
        public Valid {
            Objects.requireNonNull(json, "json");
        }
    }

    /**
     * The output is rejected.
     *
     * @param diagnostics why; at least one
     */
    record Invalid(List<Diagnostic> diagnostics) implements Result {
        public Invalid {
            diagnostics = List.copyOf(diagnostics);
            if (diagnostics.isEmpty()) {
                throw new IllegalArgumentException("a rejection needs at least one diagnostic");
            }
        }
    }

    /** A valid verdict. */
    static Result valid(String json) {
        return new Valid(json);
    }

    /** A rejection. */
    static Result invalid(List<Diagnostic> diagnostics) {
        return new Invalid(diagnostics);
    }
}
