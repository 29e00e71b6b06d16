package dev.skillgate.consent;

import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * One launch a {@link WorkflowPlan} allows: a skill at an exact revision, optionally with an exact
 * invocation digest.
 *
 * <p>Without an invocation digest the step covers any valid input to that exact revision, once.
 * The step never covers another revision of the same skill.
 *
 * @param skill the skill
 * @param revision the exact artifact revision
 * @param invocationDigest the exact invocation digest, or empty for any valid input
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record PlannedStep(SkillName skill, Revision revision, Optional<Sha256Digest> invocationDigest) {
    public PlannedStep {
        Objects.requireNonNull(skill, "skill");
        Objects.requireNonNull(revision, "revision");
        Objects.requireNonNull(invocationDigest, "invocationDigest");
    }

    /** Whether this step covers a launch of {@code skill} with {@code binding}. */
    public boolean covers(SkillName skill, ConsentBinding binding) {
        return this.skill.equals(skill)
                && revision.equals(binding.revision())
                && invocationDigest
                        .map(d -> d.equals(binding.invocationDigest()))
                        .orElse(true);
    }
}
