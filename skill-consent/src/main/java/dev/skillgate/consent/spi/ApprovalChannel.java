package dev.skillgate.consent.spi;

import dev.skillgate.consent.ActivationApprovalRequest;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.WorkflowApprovalRequest;
import dev.skillgate.consent.internal.FailClosedApprovalChannel;
import dev.skillgate.model.ErrorCode;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apiguardian.api.API;

/**
 * The host's approval surface (its UI): shows an {@link ApprovalRequest} to the human and answers
 * asynchronously.
 *
 * <p>Implementations must show everything in the request, including the full-trust warning, and
 * answer with the request's own approval ({@link ApprovalRequest#approve()}, which names it) only
 * on an explicit human approval of exactly that request; an approval that names another request is
 * refused. The ledger treats every other outcome — a denial, a timeout, an exception, a failed or
 * never-completing stage, a closed channel — as a denial (see {@link #failClosed}). A channel may
 * be called from any thread. Deciding is not enough: the ledger records the decision only for a
 * live proposal, so an answer for a proposal it does not know (e.g. after a restart) is
 * {@link ErrorCode#UNKNOWN_PROPOSAL}.
 */
@API(status = API.Status.STABLE, since = "0.1.0")
public interface ApprovalChannel {

    /** Shows {@code request} to the human; the stage completes with their decision. */
    CompletionStage<ApprovalDecision> request(ApprovalRequest request);

    /**
     * Shows a workflow plan to the human. The default denies with
     * {@link ErrorCode#CONSENT_CHANNEL_UNAVAILABLE}: a channel that cannot show plans can never
     * approve one.
     */
    default CompletionStage<ApprovalDecision> requestWorkflow(WorkflowApprovalRequest request) {
        return CompletableFuture.completedFuture(new ApprovalDecision.Denied(
                ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, "this approval channel cannot show workflow plans"));
    }

    /**
     * Shows a prompt skill's first-use approval request (SPEC §12 activation). The default denies with
     * {@link ErrorCode#CONSENT_CHANNEL_UNAVAILABLE}: a channel that cannot show activations can never
     * approve one.
     */
    default CompletionStage<ApprovalDecision> requestActivation(ActivationApprovalRequest request) {
        return CompletableFuture.completedFuture(new ApprovalDecision.Denied(
                ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, "this approval channel cannot show activation requests"));
    }

    /**
     * Wraps {@code channel} so that it fails closed: a call that throws (an {@code Error} included) or
     * returns {@code null}, a stage that completes exceptionally or with {@code null}, and a channel
     * that reports itself closed become denials ({@link ErrorCode#CONSENT_CHANNEL_UNAVAILABLE}); no
     * answer within {@code timeout} becomes a denial with {@link ErrorCode#CONSENT_TIMEOUT}. The
     * channel's call runs on a bounded pool of named daemon threads, so the returned stage always
     * completes, normally, within the timeout even when the channel blocks inside its call (the
     * blocked call is then interrupted, and a later answer is ignored and logged as late). This is
     * the reverse of a suppressing guard: errors never turn into approvals.
     */
    static ApprovalChannel failClosed(ApprovalChannel channel, Duration timeout) {
        return new FailClosedApprovalChannel(channel, timeout);
    }
}
