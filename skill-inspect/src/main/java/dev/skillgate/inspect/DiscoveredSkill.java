package dev.skillgate.inspect;

import dev.skillgate.inspect.internal.ReaderCore;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * A loadable skill found by {@link SkillDiscovery}.
 *
 * <p>Loadable means usable as prompt material (see {@link ValidationReport#loadable()}); it says
 * nothing about portability (see the report) or execution (which needs a valid manifest and
 * consent). Resources are read on demand through {@link #resources(long)}, relative to the skill
 * directory, whatever the process working directory.
 *
 * @param name the skill's name as loaded (trimmed {@code name} field)
 * @param description the trimmed {@code description}
 * @param location the absolute path of the skill file ({@code SKILL.md}, {@code skill.md} or the
 *     legacy {@code NAME.md}); not resolved through links (none were followed)
 * @param kind the layout
 * @param rootIndex the index of the discovery root it was found under (0 = highest precedence)
 * @param root that root, absolute and normalised
 * @param relativePath the skill directory (or legacy file) relative to the root, {@code /}-separated;
 *     empty when the root itself is the skill directory
 * @param report the full validation report
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record DiscoveredSkill(
        String name,
        String description,
        Path location,
        SkillKind kind,
        int rootIndex,
        Path root,
        String relativePath,
        ValidationReport report) {
    public DiscoveredSkill {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(relativePath, "relativePath");
        Objects.requireNonNull(report, "report");
        if (rootIndex < 0) {
            throw new IllegalArgumentException("root index must not be negative");
        }
    }

    /**
     * Whether the skill asked to stay out of the model's view ({@code disable-model-invocation:
     * true}, see {@link SkillDocument#modelInvocationDisabled()}); it stays listed for the user.
     */
    public boolean modelInvocationDisabled() {
        return report.document().map(SkillDocument::modelInvocationDisabled).orElse(false);
    }

    /** The skill directory, absolute; empty for a legacy flat file, which has none. */
    public Optional<Path> directory() {
        return kind == SkillKind.LEGACY_FLAT ? Optional.empty() : Optional.of(location.getParent());
    }

    /**
     * A bounded reader for this skill's files (references, assets…), anchored at the discovery root
     * so that no link anywhere below the root is followed; empty for a legacy flat file.
     *
     * @param totalByteBudget the total bytes all reads of the reader may return
     */
    public Optional<BoundedReader> resources(long totalByteBudget) {
        if (kind == SkillKind.LEGACY_FLAT) {
            return Optional.empty();
        }
        List<String> segments = relativePath.isEmpty() ? List.of() : Arrays.asList(relativePath.split("/", -1));
        return Optional.of(BoundedReader.of(ReaderCore.open(root, segments, totalByteBudget)));
    }
}
