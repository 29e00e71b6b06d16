package dev.skillgate.console.internal;

import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.model.ErrorCode;

/**
 * The one place the console builds {@link ApprovalDecision}s, each for the request it answers. Today
 * a decision does not name its request; when the consent API binds decisions to their request, only
 * this class changes.
 */
final class Decisions {
    private Decisions() {}

    static ApprovalDecision approve(Object request) {
        return ApprovalDecision.approve();
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
