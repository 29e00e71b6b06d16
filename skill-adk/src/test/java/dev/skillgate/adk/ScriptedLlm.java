package dev.skillgate.adk;

import com.google.adk.models.BaseLlm;
import com.google.adk.models.BaseLlmConnection;
import com.google.adk.models.LlmRequest;
import com.google.adk.models.LlmResponse;
import com.google.genai.types.Content;
import com.google.genai.types.FunctionCall;
import com.google.genai.types.FunctionResponse;
import com.google.genai.types.Part;
import io.reactivex.rxjava3.core.Flowable;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Stands in for the remote LLM: each turn is a scripted function of the request. A request whose
 * last tool response is {@code AWAITING_APPROVAL} is answered with a short text and uses no turn.
 */
final class ScriptedLlm extends BaseLlm {
    private final Deque<Function<LlmRequest, Content>> turns = new ArrayDeque<>();
    final List<LlmRequest> requests = new ArrayList<>();
    private int calls;

    ScriptedLlm() {
        super("scripted");
    }

    ScriptedLlm then(Function<LlmRequest, Content> turn) {
        turns.add(turn);
        return this;
    }

    @Override
    public synchronized Flowable<LlmResponse> generateContent(LlmRequest request, boolean stream) {
        requests.add(request);
        Content reply;
        Optional<FunctionResponse> last = lastResponse(request);
        if (last.isPresent()
                && "AWAITING_APPROVAL"
                        .equals(last.get().response().orElse(Map.of()).get("status"))) {
            reply = text("waiting for your approval");
        } else {
            Function<LlmRequest, Content> turn = turns.poll();
            if (turn == null) {
                throw new AssertionError("the model was asked more often than scripted");
            }
            reply = turn.apply(request);
        }
        return Flowable.just(LlmResponse.builder().content(reply).build());
    }

    @Override
    public BaseLlmConnection connect(LlmRequest request) {
        throw new UnsupportedOperationException("no live connection in tests");
    }

    static Content call(String tool, Map<String, Object> args) {
        return Content.builder()
                .role("model")
                .parts(Part.builder()
                        .functionCall(FunctionCall.builder()
                                .id("fc-" + tool + "-" + System.nanoTime())
                                .name(tool)
                                .args(args)
                                .build())
                        .build())
                .build();
    }

    static Content text(String text) {
        return Content.builder().role("model").parts(Part.fromText(text)).build();
    }

    /** The last function response in the request's contents. */
    static Optional<FunctionResponse> lastResponse(LlmRequest request) {
        List<Content> contents = request.contents();
        for (int i = contents.size() - 1; i >= 0; i--) {
            List<Part> parts = contents.get(i).parts().orElse(List.of());
            for (int j = parts.size() - 1; j >= 0; j--) {
                if (parts.get(j).functionResponse().isPresent()) {
                    return parts.get(j).functionResponse();
                }
            }
            if (parts.stream().anyMatch(p -> p.text().isPresent())
                    && "user".equals(contents.get(i).role().orElse(""))) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** A final turn that repeats the last tool response. */
    static Content echo(LlmRequest request) {
        return text("result: "
                + lastResponse(request).flatMap(FunctionResponse::response).orElse(Map.of()));
    }
}
