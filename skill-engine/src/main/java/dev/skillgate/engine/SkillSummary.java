package dev.skillgate.engine;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One loadable skill in the {@link SkillGate#catalog()}: what a prompt catalog shows.
 *
 * <p>Listing is inert: nothing was run, imported or installed to produce it. Loadable means usable
 * as prompt material; it says nothing about whether the skill can be executed or is safe.
 *
 * <p>{@link #nameFindings()} flags a name a human could mistake for another (decision 0768): a
 * directory name that differs from the skill name ({@code NAME_DIR_MATCH}) or only matches it after
 * NFKC normalisation or case folding ({@code LAYOUT_NAME_NORMALISED}), and a directory or skill name
 * that mixes Unicode scripts ({@code LAYOUT_NAME_MIXED_SCRIPTS}) or has non-ASCII characters among
 * ASCII letters ({@code LAYOUT_NAME_NON_ASCII}). A bounded heuristic: no finding proves a name is
 * what it looks like.
 *
 * @param name the skill's name
 * @param description its description (trimmed, as written)
 * @param location the absolute path of its {@code SKILL.md} (no link was followed)
 * @param portable whether it also passes the Agent Skills standard read literally
 * @param modelInvocationDisabled the skill set {@code disable-model-invocation: true}: only the user
 *     may invoke it, so model-facing views (a prompt catalog, tools offered to a model) leave it out
 *     (decision 0635)
 * @param nameFindings warnings about the skill's name and directory name, each with a stable code
 *     (empty when none applies)
 */
@API(status = API.Status.STABLE, since = "0.1.0")
public record SkillSummary(
        String name,
        String description,
        Path location,
        boolean portable,
        boolean modelInvocationDisabled,
        List<Diagnostic> nameFindings) {
    public SkillSummary {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(location, "location");
        nameFindings = List.copyOf(nameFindings);
    }

    /** A summary with no name findings. */
    public SkillSummary(
            String name, String description, Path location, boolean portable, boolean modelInvocationDisabled) {
        this(name, description, location, portable, modelInvocationDisabled, List.of());
    }

    /** A summary of a skill the model may see, with no name findings. */
    public SkillSummary(String name, String description, Path location, boolean portable) {
        this(name, description, location, portable, false, List.of());
    }

    /** Whether the name drew a finding (a human should look twice before trusting it). */
    public boolean nameFlagged() {
        return !nameFindings.isEmpty();
    }

    /** The codes of the name findings, in order. */
    public List<ErrorCode> nameFindingCodes() {
        return nameFindings.stream().map(Diagnostic::code).toList();
    }
}
