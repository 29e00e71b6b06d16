package dev.skillgate.consent;

import dev.skillgate.model.ErrorCode;
import org.apiguardian.api.API;

/**
 * Where a proposal is in its lifecycle (SPEC §8).
 *
 * <pre>
 * PENDING → APPROVED | DENIED
 * APPROVED → CONSUMED (once, atomically)
 * PENDING | APPROVED → EXPIRED | STALE | CANCELLED | MISMATCHED
 * </pre>
 *
 * Every state except {@link #PENDING} and {@link #APPROVED} is terminal and never changes again.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public enum ProposalState {
    /** Waiting for the human's decision. */
    PENDING(false, ErrorCode.CONSENT_NOT_APPROVED),
    /** Approved and not yet consumed. */
    APPROVED(false, ErrorCode.CONSENT_NOT_APPROVED),
    /** The human denied it (or the channel timed out or failed, which is a denial). */
    DENIED(true, ErrorCode.CONSENT_DENIED),
    /** The grant was used; for a workflow plan, every step was used. */
    CONSUMED(true, ErrorCode.CONSENT_ALREADY_CONSUMED),
    /** The 5-minute window on the monotonic clock passed. */
    EXPIRED(true, ErrorCode.CONSENT_EXPIRED),
    /** A newer proposal for the same run and skill (or a newer plan) replaced it. */
    STALE(true, ErrorCode.CONSENT_STALE),
    /** Cancelled, or the run ended or was aborted. */
    CANCELLED(true, ErrorCode.CONSENT_CANCELLED),
    /** A consume presented a different binding; the proposal can never be used. */
    MISMATCHED(true, ErrorCode.BINDING_MISMATCH);

    private final boolean terminal;
    private final ErrorCode refusal;

    ProposalState(boolean terminal, ErrorCode refusal) {
        this.terminal = terminal;
        this.refusal = refusal;
    }

    /** Whether the state can never change again. */
    public boolean isTerminal() {
        return terminal;
    }

    /** The code reported when a consume meets this state (never used for {@link #APPROVED}). */
    public ErrorCode refusal() {
        return refusal;
    }
}
