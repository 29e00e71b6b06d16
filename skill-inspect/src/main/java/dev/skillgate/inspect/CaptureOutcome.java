package dev.skillgate.inspect;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The outcome of {@link SkillArtifact#capture}: a {@link Captured} artifact or the {@link Failed}
 * reason there is none.
 *
 * <p>A failure is a value with a stable code: {@code SOURCE_CHANGED} when the root or a file changed
 * while it was captured, a {@code READ_*} or {@code LAYOUT_*} code when {@code SKILL.md} or the root
 * cannot be read safely. Problems with the optional files (manifest, contract, declared files) do not
 * fail a capture; the artifact reports them.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public sealed interface CaptureOutcome permits CaptureOutcome.Captured, CaptureOutcome.Failed {

    /** The artifact, when the capture succeeded. */
    Optional<SkillArtifact> artifact();

    /** Why there is no artifact, when the capture failed. */
    Optional<Diagnostic> problem();

    /**
     * The capture succeeded.
     *
     * @param value the captured artifact; the caller owns it and should dispose of it
     */
    record Captured(SkillArtifact value) implements CaptureOutcome {
        public Captured {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public Optional<SkillArtifact> artifact() {
            return Optional.of(value);
        }

        @Override
        public Optional<Diagnostic> problem() {
            return Optional.empty();
        }
    }

    /**
     * The capture failed; nothing was kept (buffers already read were cleared).
     *
     * @param diagnostic why
     */
    record Failed(Diagnostic diagnostic) implements CaptureOutcome {
        public Failed {
            Objects.requireNonNull(diagnostic, "diagnostic");
        }

        /** The stable code. */
        public ErrorCode code() {
            return diagnostic.code();
        }

        @Override
        public Optional<SkillArtifact> artifact() {
            return Optional.empty();
        }

        @Override
        public Optional<Diagnostic> problem() {
            return Optional.of(diagnostic);
        }
    }
}
