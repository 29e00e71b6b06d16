package dev.skillgate.engine;

import java.nio.file.Path;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One loadable skill in the {@link SkillGate#catalog()}: what a prompt catalog shows.
 *
 * <p>Listing is inert: nothing was run, imported or installed to produce it. Loadable means usable
 * as prompt material; it says nothing about whether the skill can be executed or is safe.
 *
 * @param name the skill's name
 * @param description its description (trimmed, as written)
 * @param location the absolute path of its {@code SKILL.md} (no link was followed)
 * @param portable whether it also passes the Agent Skills standard read literally
 * @param modelInvocationDisabled the skill set {@code disable-model-invocation: true}: only the user
 *     may invoke it, so model-facing views (a prompt catalog, tools offered to a model) leave it out
 *     (decision 0635)
 */
@API(status = API.Status.STABLE, since = "0.1.0")
public record SkillSummary(
        String name, String description, Path location, boolean portable, boolean modelInvocationDisabled) {
    public SkillSummary {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(location, "location");
    }

    /** A summary of a skill the model may see. */
    public SkillSummary(String name, String description, Path location, boolean portable) {
        this(name, description, location, portable, false);
    }
}
