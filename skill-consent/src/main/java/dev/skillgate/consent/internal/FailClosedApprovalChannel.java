package dev.skillgate.consent.internal;

import dev.skillgate.consent.ActivationApprovalRequest;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.WorkflowApprovalRequest;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.model.ErrorCode;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apiguardian.api.API;

/**
 * Wraps an {@link ApprovalChannel} so that every failure is a denial and every request completes
 * within a timeout (the reverse of a guard that suppresses errors).
 *
 * <p>The returned stage is a new future owned here: the delegate's stage is only observed, never
 * completed or cancelled, and a late delegate answer after the timeout is ignored.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class FailClosedApprovalChannel implements ApprovalChannel {
    private final ApprovalChannel delegate;
    private final Duration timeout;

    /** Wraps {@code delegate} with {@code timeout} (positive). */
    public FailClosedApprovalChannel(ApprovalChannel delegate, Duration timeout) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the approval timeout must be positive");
        }
    }

    @Override
    public CompletionStage<ApprovalDecision> request(ApprovalRequest request) {
        return guard(() -> delegate.request(request));
    }

    @Override
    public CompletionStage<ApprovalDecision> requestWorkflow(WorkflowApprovalRequest request) {
        return guard(() -> delegate.requestWorkflow(request));
    }

    @Override
    public CompletionStage<ApprovalDecision> requestActivation(ActivationApprovalRequest request) {
        return guard(() -> delegate.requestActivation(request));
    }

    private CompletionStage<ApprovalDecision> guard(Supplier<CompletionStage<ApprovalDecision>> call) {
        CompletableFuture<ApprovalDecision> result = new CompletableFuture<>();
        CompletionStage<ApprovalDecision> stage;
        try {
            stage = call.get();
        } catch (RuntimeException e) {
            result.complete(
                    unavailable("the approval channel failed (" + e.getClass().getSimpleName() + ")"));
            return result.minimalCompletionStage();
        }
        if (stage == null) {
            result.complete(unavailable("the approval channel returned no answer"));
            return result.minimalCompletionStage();
        }
        try {
            stage.whenComplete((decision, error) -> {
                if (error != null) {
                    result.complete(unavailable("the approval channel failed or was closed"));
                } else if (decision == null) {
                    result.complete(unavailable("the approval channel answered nothing"));
                } else {
                    result.complete(decision);
                }
            });
        } catch (RuntimeException e) {
            result.complete(unavailable("the approval channel's answer could not be observed"));
            return result.minimalCompletionStage();
        }
        long nanos = saturatedNanos(timeout);
        result.completeOnTimeout(
                new ApprovalDecision.Denied(ErrorCode.CONSENT_TIMEOUT, "no answer within the approval window"),
                nanos,
                TimeUnit.NANOSECONDS);
        // A minimal stage: whoever receives it can observe the decision but not complete it.
        return result.minimalCompletionStage();
    }

    private static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    private static ApprovalDecision unavailable(String reason) {
        return new ApprovalDecision.Denied(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, reason);
    }
}
