package dev.skillgate.springai.example;

import dev.skillgate.consent.ConsoleApprovalChannel;
import dev.skillgate.engine.SkillGate;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SemVer;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.springai.SkillgateToolCallbackProvider;
import dev.skillgate.tools.ToolBinding;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;

/**
 * A Spring AI host: a {@code ChatClient} with Skillgate's tool callbacks and the terminal as the
 * approval UI. A scripted model stands in for the LLM (no network): it activates the skill, calls its
 * tool with the given input and repeats the result.
 *
 * <p>Arguments: skills root, node binary, node version, skill name, input JSON.
 */
public final class SpringAiHost {
    private SpringAiHost() {}

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.in, System.out));
    }

    static int run(String[] args, InputStream in, PrintStream out) throws Exception {
        Path workspace = Files.createTempDirectory("skillgate-spring-ai-");
        String skill = args[3];
        try (ConsoleApprovalChannel terminal =
                        new ConsoleApprovalChannel(out, new InputStreamReader(in, StandardCharsets.UTF_8));
                SkillGate gate = SkillGate.builder()
                        .dataDirectory(workspace.resolve("data"))
                        .skillRoot(Path.of(args[0]).toAbsolutePath())
                        .nodeRuntime(NodeRuntime.pinned(Path.of(args[1]), args[2]))
                        .approvalChannel(terminal)
                        .build()) {
            AgentContext context = AgentContext.of(
                    "spring-ai-example", SemVer.parse("1.0.0"), Set.of(), Set.of(), PermissionMode.READ_ONLY);
            ToolBinding binding = ToolBinding.of(RunId.random(), AgentId.of("spring-ai-example"), context, workspace);
            ChatModel chatModel = new ScriptedModel(skill, args[4]);
            // snippet:begin spring-ai
            SkillgateToolCallbackProvider skills = SkillgateToolCallbackProvider.of(gate, binding);
            String answer = ChatClient.create(chatModel)
                    .prompt()
                    .system(skills.systemPrompt())
                    .user("Use the " + skill + " skill.")
                    .toolCallbacks(skills) // ToolDefinition.inputSchema = the skill's schema text
                    .call()
                    .content();
            // snippet:end spring-ai
            out.println("assistant: " + answer);
            return answer != null && answer.contains("\"error\"") ? 3 : 0;
        }
    }

    /** Activate, call, repeat the result: what a real model would be asked to do. */
    private static final class ScriptedModel implements ChatModel {
        private final String skill;
        private final String input;
        private int turn;

        ScriptedModel(String skill, String input) {
            this.skill = skill;
            this.input = input;
        }

        @Override
        public ChatResponse call(Prompt prompt) {
            AssistantMessage reply = switch (turn++) {
                case 0 -> call("activate_skill", "{\"name\":\"" + skill + "\"}");
                case 1 ->
                    last(prompt).contains("\"error\"")
                            ? AssistantMessage.builder().content(last(prompt)).build()
                            : call(skill, input);
                default -> AssistantMessage.builder().content(last(prompt)).build();
            };
            return new ChatResponse(List.of(new Generation(reply)));
        }

        @Override
        public ChatOptions getOptions() {
            return ToolCallingChatOptions.builder().build();
        }

        private static AssistantMessage call(String tool, String arguments) {
            return AssistantMessage.builder()
                    .content("")
                    .toolCalls(List.of(new AssistantMessage.ToolCall(tool, "function", tool, arguments)))
                    .build();
        }

        private static String last(Prompt prompt) {
            List<Message> messages = prompt.getInstructions();
            ToolResponseMessage m = (ToolResponseMessage) messages.get(messages.size() - 1);
            return m.getResponses().get(0).responseData();
        }
    }
}
