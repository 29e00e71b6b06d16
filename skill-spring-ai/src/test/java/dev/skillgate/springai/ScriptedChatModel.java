package dev.skillgate.springai;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Function;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;

/** Stands in for the remote LLM: each turn is a scripted function of the prompt it receives. */
final class ScriptedChatModel implements ChatModel {
    private final Deque<Function<Prompt, AssistantMessage>> turns = new ArrayDeque<>();
    final List<Prompt> prompts = new ArrayList<>();

    ScriptedChatModel then(Function<Prompt, AssistantMessage> turn) {
        turns.add(turn);
        return this;
    }

    @Override
    public synchronized ChatResponse call(Prompt prompt) {
        prompts.add(prompt);
        Function<Prompt, AssistantMessage> turn = turns.poll();
        if (turn == null) {
            throw new AssertionError("the model was asked more often than scripted");
        }
        return new ChatResponse(List.of(new Generation(turn.apply(prompt))));
    }

    @Override
    public ChatOptions getOptions() {
        return ToolCallingChatOptions.builder().build();
    }

    static AssistantMessage call(String tool, String arguments) {
        return AssistantMessage.builder()
                .content("")
                .toolCalls(List.of(new AssistantMessage.ToolCall("call-" + tool, "function", tool, arguments)))
                .build();
    }

    /** The last tool response the model received. */
    static ToolResponseMessage.ToolResponse lastResult(Prompt prompt) {
        List<Message> messages = prompt.getInstructions();
        ToolResponseMessage m = (ToolResponseMessage) messages.get(messages.size() - 1);
        return m.getResponses().get(m.getResponses().size() - 1);
    }

    /** A final turn repeating the last tool result. */
    static AssistantMessage echo(Prompt prompt) {
        return AssistantMessage.builder()
                .content("result: " + lastResult(prompt).responseData())
                .build();
    }
}
