package dev.skillgate.protocol;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionManifest;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * What the manifest parser concluded about a skill's {@code execution.json}.
 *
 * <p>Only an {@link Accepted} manifest makes execution available; {@link Rejected} and
 * {@link Absent} say why not. None of them affects prompt-only use of the skill (SPEC §3, §4): a
 * skill with no manifest, or a rejected one, is still loadable as prompt material. An accepted
 * manifest grants nothing — running still needs consent — and its file rules that need the disk
 * (existence, regular files, sizes) are checked at capture, not here.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public sealed interface ManifestVerdict
        permits ManifestVerdict.Accepted, ManifestVerdict.Rejected, ManifestVerdict.Absent {

    /** Whether the manifest allows execution to be offered (subject to consent). */
    boolean executionAvailable();

    /** Why execution is unavailable; empty when it is available. */
    List<Diagnostic> reasons();

    /** The verdict for a skill without {@code execution.json}. */
    static ManifestVerdict absent() {
        return new Absent();
    }

    /**
     * A valid manifest with both schemas compiled.
     *
     * @param manifest the parsed manifest (schemas as JSON text)
     * @param inputSchema the compiled {@code inputSchema}
     * @param outputSchema the compiled {@code outputSchema}
     */
    record Accepted(ExecutionManifest manifest, CompiledSchema inputSchema, CompiledSchema outputSchema)
            implements ManifestVerdict {
        public Accepted {
            Objects.requireNonNull(manifest, "manifest");
            Objects.requireNonNull(inputSchema, "inputSchema");
            Objects.requireNonNull(outputSchema, "outputSchema");
            if (inputSchema.role() != SchemaRole.INPUT || outputSchema.role() != SchemaRole.OUTPUT) {
                throw new IllegalArgumentException("schemas must be compiled for their roles");
            }
        }

        @Override
        public boolean executionAvailable() {
            return true;
        }

        @Override
        public List<Diagnostic> reasons() {
            return List.of();
        }
    }

    /**
     * The manifest was refused; every problem found is listed with a JSON pointer.
     *
     * @param diagnostics at least one error
     */
    record Rejected(List<Diagnostic> diagnostics) implements ManifestVerdict {
        public Rejected {
            diagnostics = List.copyOf(diagnostics);
            if (diagnostics.stream().noneMatch(Diagnostic::isError)) {
                throw new IllegalArgumentException("a rejection carries at least one error");
            }
        }

        @Override
        public boolean executionAvailable() {
            return false;
        }

        @Override
        public List<Diagnostic> reasons() {
            return diagnostics;
        }
    }

    /** The skill has no {@code execution.json}: prompt-only. */
    record Absent() implements ManifestVerdict {
        @Override
        public boolean executionAvailable() {
            return false;
        }

        @Override
        public List<Diagnostic> reasons() {
            return List.of(Diagnostic.info(
                    ErrorCode.MANIFEST_ABSENT,
                    ExecutionManifest.FILE_NAME,
                    "no execution.json: the skill is prompt-only and cannot be executed"));
        }
    }
}
