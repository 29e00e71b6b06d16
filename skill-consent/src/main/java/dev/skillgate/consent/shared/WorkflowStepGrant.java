package dev.skillgate.consent.shared;

import dev.skillgate.consent.ConsentBinding;
import dev.skillgate.consent.LaunchAuthorization;
import dev.skillgate.consent.ProposalId;
import dev.skillgate.model.SkillName;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One used step of an approved {@link WorkflowPlan}: minted only by
 * {@link ConsentLedger#consumePlanStep}, once per step.
 *
 * <p>Valid only while the policy stays {@link ExecutionPolicy#APPROVE_WORKFLOW_RUN}
 * ({@link LaunchGates#recheck} checks). It proves nothing about whether the script started.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class WorkflowStepGrant implements LaunchAuthorization {
    private final ProposalId plan;
    private final int step;
    private final SkillName skill;
    private final ConsentBinding binding;

    WorkflowStepGrant(ProposalId plan, int step, SkillName skill, ConsentBinding binding) {
        this.plan = Objects.requireNonNull(plan, "plan");
        this.step = step;
        this.skill = Objects.requireNonNull(skill, "skill");
        this.binding = Objects.requireNonNull(binding, "binding");
    }

    /** The plan proposal the step belongs to. */
    public ProposalId plan() {
        return plan;
    }

    /** The step's index in the plan. */
    public int step() {
        return step;
    }

    /** The skill. */
    public SkillName skill() {
        return skill;
    }

    @Override
    public ConsentBinding binding() {
        return binding;
    }

    @Override
    public String toString() {
        return "WorkflowStepGrant[" + plan + "#" + step + ", " + skill + "]";
    }
}
