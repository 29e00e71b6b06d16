package dev.skillgate.protocol;

import dev.skillgate.model.Diagnostic;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The schema gate's verdict on one schema: compiled, or rejected with reasons.
 *
 * <p>A {@link Rejected} names every problem found (keyword and JSON pointer), at most 20, the last
 * being {@link dev.skillgate.model.ErrorCode#SCHEMA_ISSUES_TRUNCATED} when more were found. A
 * schema is never partly accepted.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public sealed interface SchemaCompilation permits SchemaCompilation.Compiled, SchemaCompilation.Rejected {

    /** Whether the schema was admitted and compiled. */
    boolean isCompiled();

    /** Why the schema was rejected; empty when compiled. */
    List<Diagnostic> diagnostics();

    /** The compiled schema; empty when rejected. */
    Optional<CompiledSchema> compiled();

    /**
     * The schema is inside the subset and compiled.
     *
     * @param schema the compiled schema
     */
    record Compiled(CompiledSchema schema) implements SchemaCompilation {
        public Compiled {
            Objects.requireNonNull(schema, "schema");
        }

        @Override
        public boolean isCompiled() {
            return true;
        }

        @Override
        public List<Diagnostic> diagnostics() {
            return List.of();
        }

        @Override
        public Optional<CompiledSchema> compiled() {
            return Optional.of(schema);
        }
    }

    /**
     * The schema leaves the subset (or is not valid JSON).
     *
     * @param role the role it was compiled for
     * @param diagnostics at least one error
     */
    record Rejected(SchemaRole role, List<Diagnostic> diagnostics) implements SchemaCompilation {
        public Rejected {
            Objects.requireNonNull(role, "role");
            diagnostics = List.copyOf(diagnostics);
            if (diagnostics.isEmpty()) {
                throw new IllegalArgumentException("a rejection names at least one problem");
            }
        }

        @Override
        public boolean isCompiled() {
            return false;
        }

        @Override
        public Optional<CompiledSchema> compiled() {
            return Optional.empty();
        }
    }
}
