package dev.skillgate.workflow;

/** Why a workflow ended (its final record). */
public enum EndReason {
    /** Every step is settled or decided. */
    COMPLETED,
    /** The host cancelled it (its run ended or the operator cancelled); unfinished steps never run. */
    CANCELLED
}
