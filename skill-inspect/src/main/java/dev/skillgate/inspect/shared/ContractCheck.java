package dev.skillgate.inspect.shared;

import dev.skillgate.inspect.AgentContext;
import dev.skillgate.inspect.CredentialBroker;
import dev.skillgate.model.AgentRequirement;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InputType;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.SideEffectClass;
import dev.skillgate.model.SkillContract;
import dev.skillgate.model.ToolClass;
import dev.skillgate.model.shared.Text;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * Checks a skill's {@link SkillContract} against an {@link AgentContext} (SPEC §5): a pure function
 * of its arguments, meant to run at preflight and again immediately before the skill is used.
 *
 * <p>Every failure is one error diagnostic with one specific code, located at the contract field's
 * JSON pointer. All failures are reported, in a fixed order:
 *
 * <ol>
 *   <li>{@code CONTRACT_AGENT_INCOMPATIBLE} at {@code /agents} — no {@code agents} entry has the
 *       context's kind with its version inside the inclusive SemVer range (precedence order, so
 *       {@code 1.0.0-rc.1} is below a minimum of {@code 1.0.0});
 *   <li>{@code CONTRACT_INPUT_TYPE_MISSING} at {@code /inputTypes} — one per input type the
 *       context lacks;
 *   <li>{@code CONTRACT_TOOL_MISSING} at {@code /tools} — one per tool class the context lacks
 *       ({@code filesystem} satisfies a need for {@code filesystem-read}); and at {@code
 *       /networkDestinations} when destinations are declared but the context has no {@code network}
 *       tool (declared destinations imply network access);
 *   <li>{@code CONTRACT_PERMISSION_ESCALATION} at {@code /permissionMode} — the contract's mode,
 *       or the mode its side-effect class needs ({@code workspace-write} for anything but {@code
 *       none}), is above the granted one;
 *   <li>{@code CONTRACT_CREDENTIALS_UNSUPPORTED} at {@code /credentials} — credentials are declared
 *       and no {@link CredentialBroker} is configured (one diagnostic); with a broker, {@code
 *       CONTRACT_CREDENTIAL_UNAVAILABLE} for each declared credential the context does not list or
 *       the broker cannot deliver.
 * </ol>
 *
 * <p>An empty result means the contract fits the context. It does not mean the skill is safe, and
 * it does not replace first-use approval or consent: it only refuses skills that ask for more than
 * the host offers. Nothing is enforced on a running script (no sandbox). Thread-safe; no I/O.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class ContractCheck {
    private ContractCheck() {}

    /** Checks {@code contract} against {@code context} with no credential broker configured. */
    public static List<Diagnostic> check(SkillContract contract, AgentContext context) {
        return check(contract, context, Optional.empty());
    }

    /** Checks {@code contract} against {@code context}; {@code broker} is the host's, if any. */
    public static List<Diagnostic> check(
            SkillContract contract, AgentContext context, Optional<CredentialBroker> broker) {
        Objects.requireNonNull(contract, "contract");
        Objects.requireNonNull(context, "context");
        Objects.requireNonNull(broker, "broker");
        List<Diagnostic> problems = new ArrayList<>();
        agent(contract, context, problems);
        for (InputType type : InputType.values()) {
            if (contract.inputTypes().contains(type) && !context.inputTypes().contains(type)) {
                problems.add(Diagnostic.error(
                        ErrorCode.CONTRACT_INPUT_TYPE_MISSING,
                        "/inputTypes",
                        "the skill needs input type '" + type.wireName() + "', which the agent context lacks"));
            }
        }
        for (ToolClass tool : ToolClass.values()) {
            if (contract.tools().contains(tool) && !hasTool(context, tool)) {
                problems.add(Diagnostic.error(
                        ErrorCode.CONTRACT_TOOL_MISSING,
                        "/tools",
                        "the skill needs tool class '" + tool.wireName() + "', which the agent context lacks"));
            }
        }
        if (!contract.networkDestinations().isEmpty()
                && !contract.tools().contains(ToolClass.NETWORK)
                && !context.toolClasses().contains(ToolClass.NETWORK)) {
            problems.add(Diagnostic.error(
                    ErrorCode.CONTRACT_TOOL_MISSING,
                    "/networkDestinations",
                    "the skill declares network destinations, and the agent context has no 'network' tool"));
        }
        PermissionMode needed = required(contract);
        if (!context.grantedPermission().includes(needed)) {
            String why = needed == contract.permissionMode()
                    ? "permissionMode '" + needed.wireName() + "'"
                    : "'" + needed.wireName() + "' for its side effects";
            problems.add(Diagnostic.error(
                    ErrorCode.CONTRACT_PERMISSION_ESCALATION,
                    "/permissionMode",
                    "the skill asks for " + why + ", above the granted '"
                            + context.grantedPermission().wireName() + "'"));
        }
        credentials(contract, context, broker, problems);
        return List.copyOf(problems);
    }

    /** Whether {@code contract} fits {@code context} (no credential broker configured). */
    public static boolean fits(SkillContract contract, AgentContext context) {
        return check(contract, context).isEmpty();
    }

    private static void agent(SkillContract contract, AgentContext context, List<Diagnostic> problems) {
        boolean kindListed = false;
        for (AgentRequirement requirement : contract.agents()) {
            if (requirement.accepts(context.agentKind(), context.agentVersion())) {
                return;
            }
            kindListed |= requirement.kind().equals(context.agentKind());
        }
        String message = kindListed
                ? "agent " + context.agentKind() + " "
                        + Text.excerpt(context.agentVersion().toString())
                        + " is outside every version range the skill supports for that kind"
                : "the skill does not list agent kind '" + context.agentKind() + "'";
        problems.add(Diagnostic.error(ErrorCode.CONTRACT_AGENT_INCOMPATIBLE, "/agents", message));
    }

    private static boolean hasTool(AgentContext context, ToolClass tool) {
        return context.toolClasses().contains(tool)
                || (tool == ToolClass.FILESYSTEM_READ && context.toolClasses().contains(ToolClass.FILESYSTEM));
    }

    private static PermissionMode required(SkillContract contract) {
        PermissionMode forSideEffects = contract.sideEffectClass() == SideEffectClass.NONE
                ? PermissionMode.READ_ONLY
                : PermissionMode.WORKSPACE_WRITE;
        return contract.permissionMode().includes(forSideEffects) ? contract.permissionMode() : forSideEffects;
    }

    /**
     * The credential part of the check alone: with no context, only whether declared credentials
     * can be brokered at all. Used by the inspector, which may have no agent context.
     */
    public static List<Diagnostic> credentialProblems(
            SkillContract contract, Optional<AgentContext> context, Optional<CredentialBroker> broker) {
        List<Diagnostic> out = new ArrayList<>();
        if (context.isPresent()) {
            credentials(contract, context.get(), broker, out);
        } else if (!contract.credentials().isEmpty() && broker.isEmpty()) {
            out.add(unsupported(contract));
        }
        return out;
    }

    private static Diagnostic unsupported(SkillContract contract) {
        return Diagnostic.error(
                ErrorCode.CONTRACT_CREDENTIALS_UNSUPPORTED,
                "/credentials",
                "the skill declares " + contract.credentials().size()
                        + " credential(s) and no credential broker is configured");
    }

    private static void credentials(
            SkillContract contract, AgentContext context, Optional<CredentialBroker> broker, List<Diagnostic> out) {
        if (contract.credentials().isEmpty()) {
            return;
        }
        if (broker.isEmpty()) {
            out.add(unsupported(contract));
            return;
        }
        for (int i = 0; i < contract.credentials().size(); i++) {
            String name = contract.credentials().get(i);
            if (!context.availableCredentials().contains(name) || !broker.get().provides(name)) {
                out.add(Diagnostic.error(
                        ErrorCode.CONTRACT_CREDENTIAL_UNAVAILABLE,
                        "/credentials/" + i,
                        "credential '" + Text.excerpt(name) + "' is not available to the agent"));
            }
        }
    }
}
