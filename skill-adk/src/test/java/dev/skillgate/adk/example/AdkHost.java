package dev.skillgate.adk.example;

import com.google.adk.agents.LlmAgent;
import com.google.adk.events.Event;
import com.google.adk.events.ToolConfirmation;
import com.google.adk.models.BaseLlm;
import com.google.adk.models.BaseLlmConnection;
import com.google.adk.models.LlmRequest;
import com.google.adk.models.LlmResponse;
import com.google.adk.runner.InMemoryRunner;
import com.google.adk.sessions.Session;
import com.google.genai.types.Content;
import com.google.genai.types.FunctionCall;
import com.google.genai.types.FunctionResponse;
import com.google.genai.types.Part;
import dev.skillgate.adk.AdkApprovals;
import dev.skillgate.adk.SkillgateToolset;
import dev.skillgate.engine.SkillGate;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SemVer;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.tools.ToolBinding;
import io.reactivex.rxjava3.core.Flowable;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.json.JsonMapper;

/**
 * A Google ADK host: an {@code LlmAgent} on the {@code InMemoryRunner} with Skillgate's toolset;
 * the terminal is the application's UI for ADK's tool confirmations, which carry Skillgate's approval
 * requests. A scripted model stands in for the LLM (no network): it loads the skill, runs it with
 * {@code run_skill_script} and repeats the result.
 *
 * <p>Arguments: skills root, node binary, node version, skill name, input JSON.
 */
public final class AdkHost {
    private AdkHost() {}

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.in, System.out));
    }

    @SuppressWarnings("unchecked")
    static int run(String[] args, InputStream in, PrintStream out) throws Exception {
        Path workspace = Files.createTempDirectory("skillgate-adk-");
        Path dataDir = workspace.resolve("data");
        Path skillsRoot = Path.of(args[0]).toAbsolutePath();
        Path node = Path.of(args[1]);
        String nodeVersion = args[2];
        String skill = args[3];
        Map<String, Object> input = JsonMapper.builder().build().readValue(args[4], Map.class);
        BufferedReader terminal = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        ToolBinding binding = ToolBinding.of(
                RunId.random(),
                AgentId.of("adk-example"),
                AgentContext.of("adk-example", SemVer.parse("1.0.0"), Set.of(), Set.of(), PermissionMode.READ_ONLY),
                workspace);
        BaseLlm model = new ScriptedModel(skill, input);
        // snippet:begin adk
        AdkApprovals approvals = AdkApprovals.create(); // or withFallback(myApprovalUi)
        SkillGate gate = SkillGate.builder()
                .dataDirectory(dataDir)
                .skillRoot(skillsRoot)
                .nodeRuntime(NodeRuntime.pinned(node, nodeVersion))
                .approvalChannel(approvals)
                .build();
        SkillgateToolset skills = new SkillgateToolset(gate, binding, approvals);
        LlmAgent agent =
                LlmAgent.builder().name("assistant").model(model).tools(skills).build();
        InMemoryRunner runner = new InMemoryRunner(agent, "app");
        // Your UI: when the events contain an adk_request_confirmation call, show its toolConfirmation.hint
        // (Skillgate's full approval text) and answer with a FunctionResponse
        // {name: "adk_request_confirmation", id: <that call's id>, response: {confirmed: true|false}}.
        // snippet:end adk
        try (gate) {
            Session session =
                    runner.sessionService().createSession("app", "user").blockingGet();
            List<Event> events = runner.runAsync("user", session.id(), Content.fromParts(Part.fromText("Use " + skill)))
                    .toList()
                    .blockingGet();
            for (Optional<FunctionCall> ask = confirmation(events); ask.isPresent(); ask = confirmation(events)) {
                out.print(((ToolConfirmation) ask.get().args().orElseThrow().get("toolConfirmation")).hint());
                out.print("Confirm? [y/N] ");
                out.flush();
                String line = terminal.readLine();
                boolean yes = line != null
                        && (line.trim().equalsIgnoreCase("y") || line.trim().equalsIgnoreCase("yes"));
                out.println(yes ? "confirmed" : "declined");
                Content reply = Content.builder()
                        .role("user")
                        .parts(Part.builder()
                                .functionResponse(FunctionResponse.builder()
                                        .id(ask.get().id().orElseThrow())
                                        .name("adk_request_confirmation")
                                        .response(Map.of("confirmed", yes))
                                        .build())
                                .build())
                        .build();
                events = runner.runAsync("user", session.id(), reply).toList().blockingGet();
            }
            String answer = events.stream()
                    .flatMap(e -> e.content().flatMap(Content::parts).orElse(List.of()).stream())
                    .flatMap(p -> p.text().stream())
                    .reduce((a, b) -> b)
                    .orElse("");
            out.println("assistant: " + answer);
            skills.close();
            return answer.contains("SUCCEEDED") ? 0 : 3;
        }
    }

    private static Optional<FunctionCall> confirmation(List<Event> events) {
        return events.stream()
                .flatMap(e -> e.functionCalls().stream())
                .filter(fc -> fc.name().orElse("").equals("adk_request_confirmation"))
                .reduce((a, b) -> b);
    }

    /** Load, run, repeat the result; a tool response waiting for approval gets a short text. */
    private static final class ScriptedModel extends BaseLlm {
        private final String skill;
        private final Map<String, Object> input;
        private int turn;

        ScriptedModel(String skill, Map<String, Object> input) {
            super("scripted");
            this.skill = skill;
            this.input = input;
        }

        @Override
        public Flowable<LlmResponse> generateContent(LlmRequest request, boolean stream) {
            Optional<FunctionResponse> last = lastResponse(request);
            Map<String, Object> response =
                    last.flatMap(FunctionResponse::response).orElse(Map.of());
            Content reply;
            if ("AWAITING_APPROVAL".equals(response.get("status"))) {
                reply = text("waiting for your approval");
            } else if (turn == 0) {
                turn++;
                reply = call("load_skill", Map.of("skill_name", skill));
            } else if (turn == 1 && response.containsKey("instructions")) {
                turn++;
                reply = call("run_skill_script", Map.of("skill_name", skill, "input", input));
            } else {
                reply = text(String.valueOf(response));
            }
            return Flowable.just(LlmResponse.builder().content(reply).build());
        }

        @Override
        public BaseLlmConnection connect(LlmRequest request) {
            throw new UnsupportedOperationException("no live connection in the example");
        }

        private static Content call(String tool, Map<String, Object> args) {
            return Content.builder()
                    .role("model")
                    .parts(Part.builder()
                            .functionCall(FunctionCall.builder()
                                    .id("fc-" + tool)
                                    .name(tool)
                                    .args(args)
                                    .build())
                            .build())
                    .build();
        }

        private static Content text(String text) {
            return Content.builder().role("model").parts(Part.fromText(text)).build();
        }

        private static Optional<FunctionResponse> lastResponse(LlmRequest request) {
            List<Content> contents = request.contents();
            if (contents.isEmpty()) {
                return Optional.empty();
            }
            return contents.get(contents.size() - 1).parts().orElse(List.of()).stream()
                    .flatMap(p -> p.functionResponse().stream())
                    .reduce((a, b) -> b);
        }
    }
}
