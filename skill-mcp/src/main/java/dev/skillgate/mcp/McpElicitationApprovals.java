package dev.skillgate.mcp;

import dev.skillgate.consent.ActivationApprovalRequest;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.ProposalId;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.mcp.internal.FormElicitation;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.tools.ApprovalFacts;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.apiguardian.api.API;

/**
 * An {@link ApprovalChannel} that asks the human through MCP elicitation, on the session whose tool
 * call caused the request: the elicitation's message is the full approval text (the console's:
 * revision, every file with size and SHA-256, the input and its digest, the argv, the workspace, the
 * runtime, the limits, what is and is not enforced, the full-trust warning), its {@code _meta}
 * carries the same facts as values, and its form asks one boolean, {@value #APPROVE_FIELD}.
 *
 * <p>Only {@code accept} with {@value #APPROVE_FIELD} exactly {@code true} approves. {@code decline},
 * {@code cancel}, any other content, an elicitation error, a client without elicitation support, or
 * a request no tool call of this server caused go to the host's fallback channel when one was given,
 * else are denials ({@code CONSENT_DENIED} for a human's decline or cancel, {@code
 * CONSENT_CHANNEL_UNAVAILABLE} otherwise). The engine bounds the wait ({@code CONSENT_TIMEOUT}).
 *
 * <p>Give the same instance to {@code SkillGate.Builder.approvalChannel} and to {@link
 * SkillgateMcpServer.Builder#elicitation}. What it cannot guarantee: that the MCP client shows the
 * whole message to a human, rather than a model answering it — a client that auto-accepts
 * elicitations approves everything; use a host channel for such clients.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class McpElicitationApprovals implements ApprovalChannel, AutoCloseable {
    /** The one field of the elicitation form. */
    public static final String APPROVE_FIELD = "approve";

    /** The {@code _meta} key holding the approval facts as values. */
    public static final String META_KEY = "dev.skillgate/approval";

    private final Optional<ApprovalChannel> fallback;
    private final Map<String, Deque<McpSyncServerExchange>> callers = new ConcurrentHashMap<>();
    private final ExecutorService asking;

    private McpElicitationApprovals(Optional<ApprovalChannel> fallback) {
        this.fallback = fallback;
        this.asking = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "skillgate-mcp-elicitation");
            t.setDaemon(true);
            return t;
        });
    }

    /** Elicitation only: what cannot be elicited is denied. */
    public static McpElicitationApprovals create() {
        return new McpElicitationApprovals(Optional.empty());
    }

    /** Elicitation where the client supports it, else the host's own channel. */
    public static McpElicitationApprovals withFallback(ApprovalChannel hostChannel) {
        return new McpElicitationApprovals(Optional.of(Objects.requireNonNull(hostChannel, "hostChannel")));
    }

    @Override
    public CompletionStage<ApprovalDecision> request(ApprovalRequest request) {
        String key = executionKey(
                request.skill().value(), request.binding().invocationDigest().toString());
        Optional<McpSyncServerExchange> exchange = caller(key);
        if (exchange.isEmpty()) {
            return fallback.map(f -> f.request(request))
                    .orElseGet(() -> unavailable("no MCP session asked for this run"));
        }
        return ask(
                        exchange.get(),
                        request.proposal(),
                        ApprovalFacts.text(request),
                        ApprovalFacts.values(request),
                        "Approve this exact run")
                .thenCompose(d -> d.isPresent() ? CompletableFuture.completedFuture(d.get()) : fallbackFor(request));
    }

    @Override
    public CompletionStage<ApprovalDecision> requestActivation(ActivationApprovalRequest request) {
        Optional<McpSyncServerExchange> exchange =
                caller(activationKey(request.skill().value()));
        if (exchange.isEmpty()) {
            return fallback.map(f -> f.requestActivation(request))
                    .orElseGet(() -> unavailable("no MCP session asked for this activation"));
        }
        return ask(
                        exchange.get(),
                        request.id(),
                        ApprovalFacts.text(request),
                        ApprovalFacts.values(request),
                        "Allow the agent to use these exact instructions")
                .thenCompose(d -> d.isPresent()
                        ? CompletableFuture.completedFuture(d.get())
                        : fallback.map(f -> f.requestActivation(request))
                                .orElseGet(() -> unavailable("the MCP client cannot elicit")));
    }

    private CompletionStage<ApprovalDecision> fallbackFor(ApprovalRequest request) {
        return fallback.map(f -> f.request(request)).orElseGet(() -> unavailable("the MCP client cannot elicit"));
    }

    /** Empty when the client cannot elicit (so a fallback may ask instead). */
    private CompletionStage<Optional<ApprovalDecision>> ask(
            McpSyncServerExchange exchange, ProposalId shown, String message, Map<String, Object> facts, String title) {
        McpSchema.ClientCapabilities caps = exchange.getClientCapabilities();
        if (caps == null || caps.elicitation() == null) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        Map<String, Object> approve = new LinkedHashMap<>();
        approve.put("type", "boolean");
        approve.put("title", title);
        approve.put("description", "true approves exactly what the message shows; anything else denies");
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", Map.of(APPROVE_FIELD, approve));
        schema.put("required", List.of(APPROVE_FIELD));
        McpSchema.ElicitRequest elicit = new FormElicitation(message, schema, Map.of(META_KEY, facts));
        try {
            return CompletableFuture.supplyAsync(() -> Optional.of(decide(exchange, elicit, shown)), asking);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(Optional.of(closed()));
        }
    }

    private static ApprovalDecision decide(
            McpSyncServerExchange exchange, McpSchema.ElicitRequest elicit, ProposalId shown) {
        McpSchema.ElicitResult result;
        try {
            result = exchange.createElicitation(elicit);
        } catch (RuntimeException e) {
            return new ApprovalDecision.Denied(
                    ErrorCode.CONSENT_CHANNEL_UNAVAILABLE,
                    "the elicitation failed (" + e.getClass().getSimpleName() + ")");
        }
        if (result == null || result.action() == null) {
            return new ApprovalDecision.Denied(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, "the elicitation had no answer");
        }
        return switch (result.action()) {
            case ACCEPT ->
                result.content() != null && Boolean.TRUE.equals(result.content().get(APPROVE_FIELD))
                        ? ApprovalDecision.approve(shown)
                        : ApprovalDecision.deny("not approved in the elicitation form");
            case DECLINE -> ApprovalDecision.deny("declined in the MCP client");
            case CANCEL -> ApprovalDecision.deny("cancelled in the MCP client");
        };
    }

    private static CompletionStage<ApprovalDecision> unavailable(String why) {
        return CompletableFuture.completedFuture(
                new ApprovalDecision.Denied(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, why));
    }

    private static ApprovalDecision closed() {
        return new ApprovalDecision.Denied(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, "the elicitation channel is closed");
    }

    private Optional<McpSyncServerExchange> caller(String key) {
        Deque<McpSyncServerExchange> q = callers.get(key);
        return q == null ? Optional.empty() : Optional.ofNullable(q.peekFirst());
    }

    /** Registers the session of a tool call for the approval requests it causes; close the registration after the call. */
    Registration register(String key, McpSyncServerExchange exchange) {
        Deque<McpSyncServerExchange> q = callers.computeIfAbsent(key, k -> new ConcurrentLinkedDeque<>());
        q.addLast(exchange);
        return () -> {
            q.removeFirstOccurrence(exchange);
            callers.computeIfPresent(key, (k, v) -> v.isEmpty() ? null : v);
        };
    }

    static String executionKey(String skill, String invocationDigest) {
        return "run " + skill + " " + invocationDigest;
    }

    static String activationKey(String skill) {
        return "activate " + skill;
    }

    /** A tool call's registration. */
    interface Registration extends AutoCloseable {
        @Override
        void close();
    }

    /** Stops asking: requests from now on are denials; an elicitation already sent still answers. */
    @Override
    public void close() {
        asking.shutdownNow();
    }

    @Override
    public String toString() {
        return "McpElicitationApprovals[fallback=" + fallback.isPresent() + "]";
    }
}
