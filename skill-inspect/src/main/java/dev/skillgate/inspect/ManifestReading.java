package dev.skillgate.inspect;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ExecutionManifest;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** What the manifest step of a capture made of {@code execution.json}'s bytes. Not API. */
record ManifestReading(Optional<ExecutionManifest> manifest, List<Diagnostic> problems) {
    ManifestReading {
        Objects.requireNonNull(manifest, "manifest");
        problems = List.copyOf(problems);
        if (manifest.isPresent() != problems.isEmpty()) {
            throw new IllegalArgumentException("a manifest is either accepted or rejected with problems");
        }
    }

    static ManifestReading accepted(ExecutionManifest manifest) {
        return new ManifestReading(Optional.of(manifest), List.of());
    }

    static ManifestReading rejected(List<Diagnostic> problems) {
        return new ManifestReading(Optional.empty(), problems);
    }
}
