package dev.skillgate.workflow;

import org.apiguardian.api.API;

/** What the durable records say about one step. */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public enum StepState {
    /** Never started: a remaining step (needs fresh run-scoped consent to run). */
    NOT_STARTED,
    /** Started by the live owner in this process and not settled yet. */
    RUNNING,
    /**
     * Its effect is unknown: a start without a settlement seen after a restart or takeover (an
     * interrupted write), or a settlement without proven cleanup. Never replayed; an operator decides.
     */
    UNKNOWN,
    /** Settled with proven cleanup (any status), or decided {@link OperatorDecision#EFFECT_HAPPENED}. */
    DONE,
    /**
     * Refused before launch, or decided {@link OperatorDecision#EFFECT_ABSENT}: a remaining step (needs
     * fresh run-scoped consent).
     */
    NOT_RUN
}
