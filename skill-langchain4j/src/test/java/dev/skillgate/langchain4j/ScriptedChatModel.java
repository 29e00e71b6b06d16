package dev.skillgate.langchain4j;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Function;

/** Stands in for the remote LLM: each turn is a scripted function of the request it receives. */
final class ScriptedChatModel implements ChatModel {
    private final Deque<Function<ChatRequest, AiMessage>> turns = new ArrayDeque<>();
    final List<ChatRequest> requests = new ArrayList<>();

    ScriptedChatModel then(Function<ChatRequest, AiMessage> turn) {
        turns.add(turn);
        return this;
    }

    @Override
    public synchronized ChatResponse doChat(ChatRequest request) {
        requests.add(request);
        Function<ChatRequest, AiMessage> turn = turns.poll();
        if (turn == null) {
            throw new AssertionError("the model was asked more often than scripted");
        }
        return ChatResponse.builder().aiMessage(turn.apply(request)).build();
    }
}
