package dev.skillgate.langchain4j.example;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.skillgate.consent.ConsoleApprovalChannel;
import dev.skillgate.engine.SkillGate;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.langchain4j.SkillgateToolProvider;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SemVer;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.tools.ToolBinding;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * A LangChain4j host: an {@code AiServices} assistant with Skillgate's tools and the terminal as the
 * approval UI. A scripted model stands in for the LLM (no network): it activates the skill, calls its
 * tool with the given input and repeats the result.
 *
 * <p>Arguments: skills root, node binary, node version, skill name, input JSON.
 */
public final class LangChain4jHost {
    interface Assistant {
        String chat(String message);
    }

    private LangChain4jHost() {}

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.in, System.out));
    }

    static int run(String[] args, InputStream in, PrintStream out) throws Exception {
        Path skills = Path.of(args[0]).toAbsolutePath();
        String skill = args[3];
        String input = args[4];
        Path work = Files.createTempDirectory("skillgate-langchain4j-");
        try (ConsoleApprovalChannel terminal =
                        new ConsoleApprovalChannel(out, new InputStreamReader(in, StandardCharsets.UTF_8));
                SkillGate gate = SkillGate.builder()
                        .dataDirectory(work.resolve("data"))
                        .skillRoot(skills)
                        .nodeRuntime(NodeRuntime.pinned(Path.of(args[1]), args[2]))
                        .approvalChannel(terminal)
                        .build()) {
            AgentContext context = AgentContext.of(
                    "langchain4j-example", SemVer.parse("1.0.0"), Set.of(), Set.of(), PermissionMode.READ_ONLY);
            ToolBinding binding = ToolBinding.of(RunId.random(), AgentId.of("langchain4j-example"), context, work);
            SkillgateToolProvider tools = SkillgateToolProvider.of(gate, binding);
            Assistant assistant = AiServices.builder(Assistant.class)
                    .chatModel(new ScriptedModel(skill, input))
                    .systemMessageProvider(id -> tools.systemPrompt())
                    .toolProvider(tools)
                    .build();
            String answer = assistant.chat("Use the " + skill + " skill.");
            out.println("assistant: " + answer);
            return answer.startsWith("error") ? 3 : 0;
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
        public ChatResponse doChat(ChatRequest request) {
            AiMessage reply = switch (turn++) {
                case 0 -> AiMessage.from(call("activate_skill", "{\"name\":\"" + skill + "\"}"));
                case 1 -> {
                    ToolExecutionResultMessage activated = last(request.messages());
                    yield Boolean.TRUE.equals(activated.isError())
                            ? AiMessage.from("error: " + activated.text())
                            : AiMessage.from(call(skill, input));
                }
                default -> {
                    ToolExecutionResultMessage result = last(request.messages());
                    yield AiMessage.from((Boolean.TRUE.equals(result.isError()) ? "error: " : "") + result.text());
                }
            };
            return ChatResponse.builder().aiMessage(reply).build();
        }

        private static ToolExecutionRequest call(String tool, String arguments) {
            return ToolExecutionRequest.builder()
                    .id(tool)
                    .name(tool)
                    .arguments(arguments)
                    .build();
        }

        private static ToolExecutionResultMessage last(List<ChatMessage> messages) {
            return (ToolExecutionResultMessage) messages.get(messages.size() - 1);
        }
    }
}
