package dev.skillgate.langchain4j;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import java.util.List;

/** A final model turn that repeats the last tool result, marked as error or ok. */
final class ScriptedChatModelEcho {
    private ScriptedChatModelEcho() {}

    static AiMessage echo(ChatRequest request) {
        List<ChatMessage> messages = request.messages();
        ToolExecutionResultMessage r = (ToolExecutionResultMessage) messages.get(messages.size() - 1);
        return AiMessage.from((Boolean.TRUE.equals(r.isError()) ? "error: " : "ok: ") + r.text());
    }
}
