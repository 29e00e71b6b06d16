package dev.skillgate.console.internal;

import dev.skillgate.consent.ActivationApprovalRequest;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.WorkflowApprovalRequest;
import dev.skillgate.model.ErrorCode;

/**
 * The one place the console builds {@link ApprovalDecision}s, each for the request it answers: an
 * approval is the shown request's own {@code approve()} (decision 0760), so a click can never approve
 * another request. A request of an unknown kind is never approved.
 */
final class Decisions {
    private Decisions() {}

    static ApprovalDecision approve(Object request) {
        if (request instanceof ApprovalRequest r) {
            return r.approve();
        }
        if (request instanceof ActivationApprovalRequest r) {
            return r.approve();
        }
        if (request instanceof WorkflowApprovalRequest r) {
            return r.approve();
        }
        return new ApprovalDecision.Denied(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, "not a request the console knows");
    }

    static ApprovalDecision deny(Object request) {
        return ApprovalDecision.deny("denied in the console");
    }

    static ApprovalDecision expired(Object request) {
        return new ApprovalDecision.Denied(ErrorCode.CONSENT_TIMEOUT, "no answer in the console in time");
    }

    static ApprovalDecision superseded(Object request, String why) {
        return new ApprovalDecision.Denied(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, why);
    }
}
