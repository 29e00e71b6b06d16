package dev.skillgate.adk;

import dev.skillgate.consent.ActivationApprovalRequest;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.model.ErrorCode;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.apiguardian.api.API;

/**
 * An {@link ApprovalChannel} whose human is reached through ADK's own tool-confirmation flow
 * ({@code ToolContext.requestConfirmation}): when a {@link SkillgateToolset} tool call causes an
 * approval request, the tool asks ADK to confirm that call with the full approval text as the hint
 * and the same facts as the payload, and returns; ADK's runner surfaces an {@code
 * adk_request_confirmation} call to the application's UI; when the user's confirmation comes back,
 * ADK re-invokes the tool, which answers the waiting request — approve only for {@code confirmed:
 * true}, deny otherwise.
 *
 * <p>A request that no toolset call caused goes to the host's fallback channel when one was given,
 * else it is denied ({@code CONSENT_CHANNEL_UNAVAILABLE}). The engine bounds the wait: a user who
 * answers after the approval window gets the outcome the engine settled ({@code CONSENT_TIMEOUT}),
 * never a late launch. Give the same instance to {@code SkillGate.Builder.approvalChannel} and to
 * {@link SkillgateToolset}. What it cannot guarantee: that the application's UI shows the whole hint
 * to a human; an application that confirms automatically approves everything.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class AdkApprovals implements ApprovalChannel {
    private final Optional<ApprovalChannel> fallback;
    private final Map<String, Waiting> waiting = new ConcurrentHashMap<>();

    /** One tool call waiting for its approval request and then for the user's answer. */
    static final class Waiting {
        final CompletableFuture<Object> asked = new CompletableFuture<>();
        final CompletableFuture<ApprovalDecision> answer = new CompletableFuture<>();
    }

    private AdkApprovals(Optional<ApprovalChannel> fallback) {
        this.fallback = fallback;
    }

    /** Confirmation only: what no toolset call caused is denied. */
    public static AdkApprovals create() {
        return new AdkApprovals(Optional.empty());
    }

    /** Confirmation for toolset calls, the host's own channel for everything else. */
    public static AdkApprovals withFallback(ApprovalChannel hostChannel) {
        return new AdkApprovals(Optional.of(Objects.requireNonNull(hostChannel, "hostChannel")));
    }

    @Override
    public CompletionStage<ApprovalDecision> request(ApprovalRequest request) {
        Waiting w = waiting.get(executionKey(
                request.skill().value(), request.binding().invocationDigest().toString()));
        if (w == null || !w.asked.complete(request)) {
            return fallback.map(f -> f.request(request)).orElseGet(AdkApprovals::unavailable);
        }
        return w.answer;
    }

    @Override
    public CompletionStage<ApprovalDecision> requestActivation(ActivationApprovalRequest request) {
        Waiting w = waiting.get(activationKey(request.skill().value()));
        if (w == null || !w.asked.complete(request)) {
            return fallback.map(f -> f.requestActivation(request)).orElseGet(AdkApprovals::unavailable);
        }
        return w.answer;
    }

    /** Registers a tool call that may cause an approval request under {@code key}. */
    Waiting register(String key) {
        Waiting w = new Waiting();
        waiting.put(key, w);
        return w;
    }

    /** Ends a registration (the request came, or the call finished without one). */
    void unregister(String key, Waiting w) {
        waiting.remove(key, w);
    }

    /** An approval bound to the request the tool call was asked about (decision 0760); a denial when none. */
    static ApprovalDecision approvalOf(Object asked) {
        if (asked instanceof ApprovalRequest r) {
            return r.approve();
        }
        if (asked instanceof ActivationApprovalRequest r) {
            return r.approve();
        }
        return new ApprovalDecision.Denied(
                ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, "no approval request was shown for this confirmation");
    }

    static String executionKey(String skill, String invocationDigest) {
        return "run " + skill + " " + invocationDigest;
    }

    static String activationKey(String skill) {
        return "activate " + skill;
    }

    private static CompletionStage<ApprovalDecision> unavailable() {
        return CompletableFuture.completedFuture(new ApprovalDecision.Denied(
                ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, "no ADK tool call is waiting for this approval"));
    }

    @Override
    public String toString() {
        return "AdkApprovals[fallback=" + fallback.isPresent() + "]";
    }
}
