package dev.skillgate.consent;

import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.model.ErrorCode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apiguardian.api.API;

/**
 * A deterministic {@link ApprovalChannel} for tests and the testkit: answers requests from a queue
 * of scripted decisions and records every request it was shown.
 *
 * <p>With an empty queue it either denies at once ({@link #denyingWhenEmpty()}, the fail-closed
 * default) or holds the request until a decision is queued or the channel is closed
 * ({@link #holdingWhenEmpty()}, for timeout and race tests). Closing denies every held request and
 * every later one with {@link ErrorCode#CONSENT_CHANNEL_UNAVAILABLE}. Thread-safe. It stands in for
 * a human; it is not a way to approve anything outside tests. {@link #approveNext()} approves the
 * request it ends up answering (its id; decision 0760); {@link #enqueue} answers with exactly the
 * decision given, so an approval queued for another request is refused by the ledger.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class ScriptedApprovalChannel implements ApprovalChannel, AutoCloseable {
    private final boolean holdWhenEmpty;
    private final Deque<Function<ProposalId, ApprovalDecision>> queued = new ArrayDeque<>();
    private final Deque<Held> held = new ArrayDeque<>();
    private final List<ApprovalRequest> requests = new ArrayList<>();
    private final List<WorkflowApprovalRequest> workflowRequests = new ArrayList<>();
    private final List<ActivationApprovalRequest> activationRequests = new ArrayList<>();
    private boolean closed;

    /** A request waiting for a scripted answer. */
    private record Held(ProposalId id, CompletableFuture<ApprovalDecision> future) {}

    private ScriptedApprovalChannel(boolean holdWhenEmpty) {
        this.holdWhenEmpty = holdWhenEmpty;
    }

    /** A channel that denies (unavailable) when no decision is queued. */
    public static ScriptedApprovalChannel denyingWhenEmpty() {
        return new ScriptedApprovalChannel(false);
    }

    /** A channel that holds requests until a decision is queued or it is closed. */
    public static ScriptedApprovalChannel holdingWhenEmpty() {
        return new ScriptedApprovalChannel(true);
    }

    /** Queues a decision; it answers the oldest held request, or the next request, exactly as given. */
    public ScriptedApprovalChannel enqueue(ApprovalDecision decision) {
        Objects.requireNonNull(decision, "decision");
        return enqueueAnswer(id -> decision);
    }

    private ScriptedApprovalChannel enqueueAnswer(Function<ProposalId, ApprovalDecision> answer) {
        Held waiting;
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("the scripted channel is closed");
            }
            waiting = held.pollFirst();
            if (waiting == null) {
                queued.addLast(answer);
                return this;
            }
        }
        waiting.future().complete(answer.apply(waiting.id()));
        return this;
    }

    /** Queues an approval of whichever request it answers (bound to that request's id). */
    public ScriptedApprovalChannel approveNext() {
        return enqueueAnswer(ApprovalDecision::approve);
    }

    /** Queues a human denial. */
    public ScriptedApprovalChannel denyNext(String reason) {
        return enqueue(ApprovalDecision.deny(reason));
    }

    @Override
    public CompletionStage<ApprovalDecision> request(ApprovalRequest request) {
        Objects.requireNonNull(request, "request");
        synchronized (this) {
            requests.add(request);
        }
        return answer(request.proposal());
    }

    @Override
    public CompletionStage<ApprovalDecision> requestWorkflow(WorkflowApprovalRequest request) {
        Objects.requireNonNull(request, "request");
        synchronized (this) {
            workflowRequests.add(request);
        }
        return answer(request.proposal());
    }

    @Override
    public CompletionStage<ApprovalDecision> requestActivation(ActivationApprovalRequest request) {
        Objects.requireNonNull(request, "request");
        synchronized (this) {
            activationRequests.add(request);
        }
        return answer(request.id());
    }

    private synchronized CompletionStage<ApprovalDecision> answer(ProposalId id) {
        if (closed) {
            return CompletableFuture.completedFuture(closedDenial());
        }
        Function<ProposalId, ApprovalDecision> next = queued.pollFirst();
        if (next != null) {
            return CompletableFuture.completedFuture(next.apply(id));
        }
        if (!holdWhenEmpty) {
            return CompletableFuture.completedFuture(new ApprovalDecision.Denied(
                    ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, "no scripted decision was queued"));
        }
        CompletableFuture<ApprovalDecision> future = new CompletableFuture<>();
        held.addLast(new Held(id, future));
        return future.minimalCompletionStage();
    }

    /** Every invocation request shown so far, oldest first. */
    public synchronized List<ApprovalRequest> requests() {
        return List.copyOf(requests);
    }

    /** Every workflow request shown so far, oldest first. */
    public synchronized List<WorkflowApprovalRequest> workflowRequests() {
        return List.copyOf(workflowRequests);
    }

    /** Every activation (first-use) request shown so far, oldest first. */
    public synchronized List<ActivationApprovalRequest> activationRequests() {
        return List.copyOf(activationRequests);
    }

    /** How many requests are held waiting for a decision. */
    public synchronized int heldCount() {
        return held.size();
    }

    /** Closes the channel: held and later requests are denied as unavailable. */
    @Override
    public void close() {
        List<Held> waiting;
        synchronized (this) {
            closed = true;
            waiting = new ArrayList<>(held);
            held.clear();
            queued.clear();
        }
        for (Held h : waiting) {
            h.future().complete(closedDenial());
        }
    }

    private static ApprovalDecision closedDenial() {
        return new ApprovalDecision.Denied(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, "the approval channel is closed");
    }
}
