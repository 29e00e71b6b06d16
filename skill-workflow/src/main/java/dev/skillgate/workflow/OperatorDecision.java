package dev.skillgate.workflow;

import org.apiguardian.api.API;

/**
 * An operator's explicit decision about a step whose effect is unknown (an interrupted write or
 * unproven cleanup). Recorded, never inferred; nothing is replayed because of it.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public enum OperatorDecision {
    /** The operator observed that the step's effect happened: it counts as done and is not run again. */
    EFFECT_HAPPENED,
    /**
     * The operator observed that the step had no effect: it becomes a remaining step, which runs only
     * after fresh run-scoped consent.
     */
    EFFECT_ABSENT
}
