package dev.skillgate.workflow;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * What the durable records of one workflow say, verified and opened: its head (owner, token, lease),
 * its definition, every step's state, and how it ended.
 *
 * <p>A recovery authorises nothing. Its remaining steps run only after fresh run-scoped consent; its
 * unknown steps wait for an operator decision.
 *
 * @param head the store's head
 * @param definition the definition
 * @param steps every step, in plan order
 * @param ended how it ended, if it did
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record Recovery(
        StoredWorkflow head, WorkflowDefinition definition, List<StepView> steps, Optional<EndReason> ended) {
    public Recovery {
        Objects.requireNonNull(head, "head");
        Objects.requireNonNull(definition, "definition");
        steps = List.copyOf(steps);
        Objects.requireNonNull(ended, "ended");
    }

    /** The steps whose effect is unknown (they need an operator decision). */
    public List<StepView> unknown() {
        return steps.stream().filter(s -> s.state() == StepState.UNKNOWN).toList();
    }

    /** The steps still to run (each needs fresh run-scoped consent). */
    public List<StepView> remaining() {
        return ended.isPresent()
                ? List.of()
                : steps.stream().filter(StepView::remaining).toList();
    }

    /** The steps started and not settled by a live owner in this process. */
    public List<StepView> inFlight() {
        return steps.stream()
                .filter(s -> s.state() == StepState.RUNNING || s.state() == StepState.UNKNOWN)
                .toList();
    }
}
