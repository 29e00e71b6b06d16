package dev.skillgate.inspect;

import dev.skillgate.inspect.internal.ContractRules;
import dev.skillgate.model.InputType;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.ToolClass;
import java.util.Objects;
import java.util.Set;
import org.apiguardian.api.API;

/**
 * What the agent that would use a skill offers, as the host describes it (SPEC §5): its kind and
 * version, the input types and tool classes it has, the permission mode the human granted, and the
 * names of the credentials available to it.
 *
 * <p>A context is the host's statement; Skillgate does not verify it. {@link ContractCheck} compares
 * a skill's contract with it. Granting a permission mode here enforces nothing on a running script:
 * Skillgate is not a sandbox, and the check only refuses skills that <em>ask</em> for more than the
 * context grants.
 *
 * @param agentKind the agent kind, compared exactly with the contract's {@code agents[].kind}
 *     (1–64 characters from {@code [a-z0-9._-]}, starting with a letter or digit)
 * @param agentVersion the agent's version (strict SemVer)
 * @param inputTypes the input types the agent can supply
 * @param toolClasses the tool classes the agent has
 * @param grantedPermission the permission mode granted for this use
 * @param availableCredentials names of credentials available to the agent (names only, never
 *     values)
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record AgentContext(
        String agentKind,
        SemVer agentVersion,
        Set<InputType> inputTypes,
        Set<ToolClass> toolClasses,
        PermissionMode grantedPermission,
        Set<String> availableCredentials) {

    public AgentContext {
        Objects.requireNonNull(agentKind, "agentKind");
        Objects.requireNonNull(agentVersion, "agentVersion");
        inputTypes = Set.copyOf(inputTypes);
        toolClasses = Set.copyOf(toolClasses);
        Objects.requireNonNull(grantedPermission, "grantedPermission");
        availableCredentials = Set.copyOf(availableCredentials);
        if (!ContractRules.isAgentKind(agentKind)) {
            throw new IllegalArgumentException("agent kind must be 1-64 of [a-z0-9._-]");
        }
        for (String name : availableCredentials) {
            if (!ContractRules.isCredentialName(name)) {
                throw new IllegalArgumentException("credential names are 1-64 of [A-Za-z0-9._-]");
            }
        }
    }

    /**
     * A context with no credentials.
     *
     * @see #AgentContext(String, SemVer, Set, Set, PermissionMode, Set)
     */
    public static AgentContext of(
            String agentKind,
            SemVer agentVersion,
            Set<InputType> inputTypes,
            Set<ToolClass> toolClasses,
            PermissionMode grantedPermission) {
        return new AgentContext(agentKind, agentVersion, inputTypes, toolClasses, grantedPermission, Set.of());
    }
}
