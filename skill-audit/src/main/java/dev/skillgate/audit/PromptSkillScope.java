package dev.skillgate.audit;

import dev.skillgate.model.AgentId;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * First-use approval scope of a prompt skill (SPEC §5): the agent's coordinates, the contract hash
 * and the content revision, plus the skill's name so that listings are readable.
 *
 * <p>Agent coordinates are the host's {@link AgentId} (decision record 0160): a host that wants
 * approvals to lapse when the agent is upgraded puts the agent version into the id. The contract's
 * own agent version range is enforced separately at preflight; it is bound here through the
 * contract hash. The name cannot widen trust: the revision already covers every captured byte.
 *
 * @param agent the agent the skill is trusted for
 * @param skill the skill's name
 * @param contract SHA-256 of the exact {@code skill.contract.json} bytes; empty when the skill has no
 *     contract
 * @param revision the content revision of the captured artifact
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record PromptSkillScope(AgentId agent, SkillName skill, Optional<Sha256Digest> contract, Revision revision)
        implements TrustScope {
    public PromptSkillScope {
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(skill, "skill");
        Objects.requireNonNull(contract, "contract");
        Objects.requireNonNull(revision, "revision");
    }
}
