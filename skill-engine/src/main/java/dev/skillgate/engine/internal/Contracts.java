package dev.skillgate.engine.internal;

import dev.skillgate.inspect.AgentContext;
import dev.skillgate.inspect.ContractVerdict;
import dev.skillgate.inspect.CredentialBroker;
import dev.skillgate.inspect.SkillArtifact;
import dev.skillgate.inspect.shared.ContractCheck;
import dev.skillgate.inspect.shared.ContractParser;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.util.List;
import java.util.Optional;

/**
 * The trust contract of a captured skill checked against the host's agent context (SPEC §5): run at
 * preflight and again immediately before use. Not API.
 *
 * <p>No contract: nothing to check (the skill declares no needs). A contract that was present but
 * could not be captured, or that the parser (or the configured dialect for its record type) rejects:
 * refused with its codes. An accepted contract
 * without an agent context to check it against: refused ({@code CONTRACT_AGENT_INCOMPATIBLE}).
 * Otherwise every {@link ContractCheck} failure refuses.
 */
public final class Contracts {
    private Contracts() {}

    /**
     * The verdict: the accepted contract, when there is one, or why the skill is refused.
     *
     * @param accepted the accepted contract and its digest; empty when the skill has none
     * @param refusal why the skill may not be used; empty when it may
     */
    public record Outcome(Optional<ContractVerdict.Accepted> accepted, List<Diagnostic> refusal) {
        public Outcome {
            refusal = List.copyOf(refusal);
        }
    }

    public static Outcome check(SkillArtifact artifact, Optional<AgentContext> context, EngineCore.Config config) {
        Optional<String> namespace = config.namespace();
        Optional<CredentialBroker> broker = config.credentialBroker();
        if (artifact.contractProblem().isPresent()) {
            return new Outcome(
                    Optional.empty(), List.of(artifact.contractProblem().get()));
        }
        Optional<byte[]> bytes = artifact.contractBytes();
        if (bytes.isEmpty()) {
            return new Outcome(Optional.empty(), List.of());
        }
        ContractVerdict verdict =
                ContractParser.parse(bytes.get(), artifact.directoryName(), namespace, config.contractDialects());
        if (!(verdict instanceof ContractVerdict.Accepted accepted)) {
            return new Outcome(Optional.empty(), verdict.problems());
        }
        if (context.isEmpty()) {
            return new Outcome(
                    Optional.of(accepted),
                    List.of(Diagnostic.error(
                            ErrorCode.CONTRACT_AGENT_INCOMPATIBLE,
                            "/agents",
                            "the skill has a trust contract and the host gave no agent context to check it against")));
        }
        return new Outcome(Optional.of(accepted), ContractCheck.check(accepted.contract(), context.get(), broker));
    }
}
