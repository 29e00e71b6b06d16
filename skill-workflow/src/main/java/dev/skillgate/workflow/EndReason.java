package dev.skillgate.workflow;

import org.apiguardian.api.API;

/** Why a workflow ended (its final record). */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public enum EndReason {
    /** Every step is settled or decided. */
    COMPLETED,
    /** The host cancelled it (its run ended or the operator cancelled); unfinished steps never run. */
    CANCELLED
}
