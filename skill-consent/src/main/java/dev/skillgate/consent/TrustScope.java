package dev.skillgate.consent;

import dev.skillgate.model.AgentId;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Timeout;
import dev.skillgate.model.WorkspaceIdentity;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One trusted-revision scope: an exact artifact revision, for one agent, in one resolved
 * workspace, within a timeout and an output ceiling (SPEC §8).
 *
 * <p>A scope is only a request for trust until the policy store has given it a {@link Receipt}
 * (see {@link ScopeEntry}). Every field takes part in equality; changing any of them makes a
 * different scope, which needs a new receipt. A version label is never part of a scope: the
 * revision (the verified bundle checksum) is authoritative. The runtime is not part of a scope.
 *
 * @param revision the exact revision
 * @param agent the agent
 * @param workspace the resolved workspace identity
 * @param timeoutCeiling the longest timeout a covered launch may have
 * @param outputCeiling the largest output limit a covered launch may have
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record TrustScope(
        Revision revision,
        AgentId agent,
        WorkspaceIdentity workspace,
        Timeout timeoutCeiling,
        OutputLimit outputCeiling) {
    public TrustScope {
        Objects.requireNonNull(revision, "revision");
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(workspace, "workspace");
        Objects.requireNonNull(timeoutCeiling, "timeoutCeiling");
        Objects.requireNonNull(outputCeiling, "outputCeiling");
    }

    /** Whether a launch with {@code binding} falls inside this scope (any invocation, any run). */
    public boolean covers(ConsentBinding binding) {
        return revision.equals(binding.revision())
                && agent.equals(binding.agent())
                && workspace.equals(binding.workspace())
                && binding.timeout().compareTo(timeoutCeiling) <= 0
                && binding.outputLimit().compareTo(outputCeiling) <= 0;
    }
}
