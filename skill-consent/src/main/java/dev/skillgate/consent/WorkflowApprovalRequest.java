package dev.skillgate.consent;

import java.time.Instant;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Asks the human to approve a {@link WorkflowPlan} once for its run: every step is listed with its
 * exact revision and, where fixed, its invocation digest.
 *
 * <p>Approval covers each listed step once, in this run only; it is never a session-wide grant.
 * The full-trust warning applies to every step.
 *
 * @param proposal the plan's proposal id
 * @param plan the plan
 * @param createdAt wall-clock creation time (display)
 * @param expiresAt wall-clock deadline for the decision (display)
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record WorkflowApprovalRequest(ProposalId proposal, WorkflowPlan plan, Instant createdAt, Instant expiresAt) {
    public WorkflowApprovalRequest {
        Objects.requireNonNull(proposal, "proposal");
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(expiresAt, "expiresAt");
    }

    /** A request for a plan proposal the ledger returned. */
    public static WorkflowApprovalRequest forPlan(PlanSnapshot plan) {
        return new WorkflowApprovalRequest(plan.id(), plan.plan(), plan.createdAt(), plan.expiresAt());
    }

    /** An approval of exactly this plan request (it names {@link #proposal()}; decision 0760). */
    public ApprovalDecision approve() {
        return ApprovalDecision.approve(proposal);
    }

    /** A human denial of this plan with a short reason. */
    public ApprovalDecision deny(String reason) {
        return ApprovalDecision.deny(reason);
    }

    /** Always {@link ApprovalRequest#FULL_TRUST_WARNING}. */
    public String fullTrustWarning() {
        return ApprovalRequest.FULL_TRUST_WARNING;
    }
}
