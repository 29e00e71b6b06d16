package dev.skillgate.consent;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * A point-in-time view of one workflow plan proposal in a {@link ConsentLedger}.
 *
 * <p>The decision must arrive within the window ({@code expiresAt} is for display); once
 * approved, the plan stays usable for the run until every step is used, a newer plan replaces it,
 * or the run ends.
 *
 * @param id the proposal id
 * @param plan the plan
 * @param state the state when the snapshot was taken
 * @param usedSteps indexes of steps already used, ascending
 * @param createdAt wall-clock creation time, for display
 * @param expiresAt wall-clock deadline for the decision, for display
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record PlanSnapshot(
        ProposalId id,
        WorkflowPlan plan,
        ProposalState state,
        List<Integer> usedSteps,
        Instant createdAt,
        Instant expiresAt) {
    public PlanSnapshot {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(state, "state");
        usedSteps = List.copyOf(usedSteps);
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(expiresAt, "expiresAt");
    }
}
