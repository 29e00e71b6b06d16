package dev.skillgate.consent;

import org.apiguardian.api.API;

/**
 * How launches are authorised (SPEC §8). The policy is one of several independent gates: no mode
 * implies the execute capability or turns safe mode off, and no mode is a sandbox.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public enum ExecutionPolicy {
    /** The default: every launch needs a consumed one-use grant approved by the human. */
    ASK_EACH_TIME,
    /** Every launch is refused. Also the effective policy when the stored policy is corrupt. */
    BLOCKED,
    /**
     * A host-verified, bounded {@link WorkflowPlan} approved once for the run covers the launches
     * it lists; never a session-wide grant; without an approved plan nothing runs.
     */
    APPROVE_WORKFLOW_RUN,
    /**
     * A launch inside an approved trusted-revision scope (up to 64, each with a store-minted
     * receipt) needs no per-invocation consent, for any valid input; anything else needs a grant
     * as in {@link #ASK_EACH_TIME}.
     */
    TRUST_SELECTED_REVISIONS
}
