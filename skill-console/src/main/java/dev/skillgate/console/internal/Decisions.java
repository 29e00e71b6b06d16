package dev.skillgate.console.internal;

import dev.skillgate.consent.ActivationApprovalRequest;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.WorkflowApprovalRequest;
import dev.skillgate.model.ErrorCode;

/**
 * The one place the console builds {@link ApprovalDecision}s, each from the request it answers: an
 * approval names exactly that request's proposal ({@code request.approve()}), so it can never be
 * recorded for another one.
 */
final class Decisions {
    private Decisions() {}

    static ApprovalDecision approve(Object request) {
        if (request instanceof ApprovalRequest r) {
            return r.approve();
        }
        if (request instanceof ActivationApprovalRequest a) {
            return a.approve();
        }
        if (request instanceof WorkflowApprovalRequest w) {
            return w.approve();
        }
        // Nothing else is ever shown; fail closed.
        return ApprovalDecision.deny("the console cannot approve this kind of request");
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
