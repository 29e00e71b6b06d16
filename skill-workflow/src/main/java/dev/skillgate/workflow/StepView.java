package dev.skillgate.workflow;

import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * One step as recovery shows it: the planned step, its state, and the last start and settlement
 * records, when there are any.
 *
 * @param index the step's index
 * @param step the planned step
 * @param state its state
 * @param started its last start record
 * @param settled its last settlement record
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record StepView(
        int index,
        WorkflowDefinition.Step step,
        StepState state,
        Optional<WorkflowRecord.StepStarted> started,
        Optional<WorkflowRecord.StepSettled> settled) {
    public StepView {
        Objects.requireNonNull(step, "step");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(started, "started");
        Objects.requireNonNull(settled, "settled");
    }

    /** Whether it is a remaining step (may run again after fresh consent). */
    public boolean remaining() {
        return state == StepState.NOT_STARTED || state == StepState.NOT_RUN;
    }
}
