package dev.skillgate.tools;

import dev.skillgate.engine.ExecutionRequest;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.RunId;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * What the host binds and the model can never pass or change: the run, the agent, the agent
 * context the skills' trust contracts are checked against, the workspace, and optionally how long
 * the host waits for one execution.
 *
 * <p>No tool parameter maps onto any of these: a tool call carries a skill name, a resource path or
 * the skill's own input, nothing else. Limits and policy are not here either: they come from the
 * skill's manifest and the host's admin, and the human approves them.
 *
 * @param run the live run every execution of this toolset belongs to (consent is per run)
 * @param agent the agent coordinates approvals are scoped to
 * @param agentContext what the agent offers, checked against trust contracts
 * @param workspace the scripts' working directory (not a boundary)
 * @param callerDeadline how long one tool call waits for an outcome, when set (1 ms to 1 hour)
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record ToolBinding(
        RunId run, AgentId agent, AgentContext agentContext, Path workspace, Optional<Duration> callerDeadline) {

    public ToolBinding {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(agentContext, "agentContext");
        Objects.requireNonNull(workspace, "workspace");
        Objects.requireNonNull(callerDeadline, "callerDeadline");
        if (!workspace.isAbsolute()) {
            throw new IllegalArgumentException("the workspace is an absolute path");
        }
        callerDeadline.ifPresent(d -> {
            if (d.isNegative() || d.isZero() || d.compareTo(ExecutionRequest.MAX_CALLER_DEADLINE) > 0) {
                throw new IllegalArgumentException("a caller deadline is 1 ms to 1 hour");
            }
        });
    }

    /** A binding without a caller deadline. */
    public static ToolBinding of(RunId run, AgentId agent, AgentContext agentContext, Path workspace) {
        return new ToolBinding(run, agent, agentContext, workspace, Optional.empty());
    }

    /** This binding with a caller deadline for each execution. */
    public ToolBinding withCallerDeadline(Duration deadline) {
        return new ToolBinding(run, agent, agentContext, workspace, Optional.of(deadline));
    }
}
