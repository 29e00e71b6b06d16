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
import dev.skillgate.tools.SchemaReport;
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
        Path skillsRoot = Path.of(args[0]).toAbsolutePath();
        Path node = Path.of(args[1]);
        String nodeVersion = args[2];
        String skill = args[3];
        Path workspace = Files.createTempDirectory("skillgate-langchain4j-");
        Path dataDir = workspace.resolve("data");
        try (ConsoleApprovalChannel myApprovalUi =
                new ConsoleApprovalChannel(out, new InputStreamReader(in, StandardCharsets.UTF_8))) {
            // snippet:begin gate-and-binding
            SkillGate gate = SkillGate.builder()
                    .dataDirectory(dataDir)
                    .skillRoot(skillsRoot)
                    .nodeRuntime(NodeRuntime.pinned(node, nodeVersion)) // absolute path, exact version
                    .approvalChannel(myApprovalUi) // MCP/ADK: see below
                    .build();
            ToolBinding binding = ToolBinding.of(
                    RunId.random(),
                    AgentId.of("support-bot"),
                    AgentContext.of("support-bot", SemVer.parse("1.4.0"), Set.of(), Set.of(), PermissionMode.READ_ONLY),
                    workspace);
            // snippet:end gate-and-binding
            try (gate) {
                ChatModel chatModel = new ScriptedModel(skill, args[4]);
                // snippet:begin langchain4j
                SkillgateToolProvider skills = SkillgateToolProvider.of(gate, binding);
                Assistant assistant = AiServices.builder(Assistant.class)
                        .chatModel(chatModel)
                        .systemMessageProvider(
                                memoryId -> skills.systemPrompt()) // how the tools work + <available_skills>
                        .toolProvider(skills) // activate_skill, read_skill_resource, one tool per skill
                        .build();
                String answer = assistant.chat("Use the " + skill + " skill.");
                List<SchemaReport> reports = skills.schemaReports(); // per skill: offered? annotations dropped?
                // snippet:end langchain4j
                out.println("assistant: " + answer);
                out.println("schema reports: " + reports.size());
                return answer.startsWith("error") ? 3 : 0;
            }
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
