package dev.skillgate.consent;

import dev.skillgate.model.AgentId;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.RunId;
import dev.skillgate.model.WorkspaceIdentity;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * A bounded, host-verified plan of launches for one run, used by
 * {@link ExecutionPolicy#APPROVE_WORKFLOW_RUN}.
 *
 * <p>The host builds the plan from a workflow it has verified itself (never from text the agent
 * supplied) and proposes it to the run's {@link ConsentLedger}; the human approves it once through
 * the {@code ApprovalChannel}. The approval then covers each listed step once, for this run, agent
 * and workspace only — never other runs, never the session. This type cannot check where the plan
 * came from: keeping agents away from {@link ConsentLedger#proposePlan} is the host's duty.
 *
 * @param run the run the plan belongs to
 * @param agent the agent the steps run for
 * @param workspace the workspace every step runs in
 * @param steps 1 to {@link #MAX_STEPS} steps
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record WorkflowPlan(RunId run, AgentId agent, WorkspaceIdentity workspace, List<PlannedStep> steps) {
    /** Most steps in one plan. */
    public static final int MAX_STEPS = 64;

    public WorkflowPlan {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(workspace, "workspace");
        steps = List.copyOf(steps);
        if (steps.isEmpty() || steps.size() > MAX_STEPS) {
            throw new InvalidValueException(
                    ErrorCode.POLICY_INVALID, "a workflow plan has 1-" + MAX_STEPS + " steps, had " + steps.size());
        }
    }
}
