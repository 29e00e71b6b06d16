package dev.skillgate.engine.internal;

import dev.skillgate.inspect.AgentContext;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.util.Optional;

/**
 * The agent and agent context the host vouches for (decision 0764): the builder's agent, when set,
 * is the only agent; the builder's context, when set, is authoritative unless the host allowed
 * per-request contexts. Stateless. Not API.
 */
final class Vouching {
    private Vouching() {}

    /** Why the host does not vouch for {@code agent} or {@code context}; empty when it does. */
    static Optional<Diagnostic> notVouched(EngineCore.Config config, AgentId agent, Optional<AgentContext> context) {
        if (config.vouchedAgent().isPresent() && !config.vouchedAgent().get().equals(agent)) {
            return Optional.of(Diagnostic.error(
                    ErrorCode.AGENT_NOT_VOUCHED, "", "the request names an agent the host did not vouch for"));
        }
        if (context.isPresent()
                && config.agentContext().isPresent()
                && !config.requestContextsAllowed()
                && !context.get().equals(config.agentContext().get())) {
            return Optional.of(Diagnostic.error(
                    ErrorCode.AGENT_NOT_VOUCHED,
                    "",
                    "the request carries another agent context than the host's; the host did not allow that"));
        }
        return Optional.empty();
    }
}
