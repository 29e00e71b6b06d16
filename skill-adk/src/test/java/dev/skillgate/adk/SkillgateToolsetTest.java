package dev.skillgate.adk;

import static dev.skillgate.adk.ScriptedLlm.call;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.adk.agents.LlmAgent;
import com.google.adk.events.Event;
import com.google.adk.runner.InMemoryRunner;
import com.google.adk.sessions.Session;
import com.google.genai.types.Content;
import com.google.genai.types.FunctionCall;
import com.google.genai.types.FunctionResponse;
import com.google.genai.types.Part;
import dev.skillgate.testkit.SkillGateExtension;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * ADK's own runner ({@code InMemoryRunner}, {@code LlmAgent}) and its tool-confirmation flow, with a
 * scripted model standing in for the LLM, over a real gate: real {@code node} under the Linux
 * supervisor; the test plays the application's UI that answers ADK's {@code adk_request_confirmation}.
 */
class SkillgateToolsetTest {
    private final AdkApprovals approvals = AdkApprovals.create();

    @RegisterExtension
    final SkillGateExtension skillgate = SkillGateExtension.builder()
            .customize(b -> b.approvalChannel(approvals))
            .build();

    private final AtomicReference<InMemoryRunner> runner = new AtomicReference<>();
    private Session session;

    private InMemoryRunner start(ScriptedLlm model) {
        SkillgateToolset toolset = new SkillgateToolset(skillgate.gate(), Probe.binding(skillgate), approvals);
        LlmAgent agent = LlmAgent.builder()
                .name("assistant")
                .model(model)
                .instruction("Use skills.")
                .tools(toolset)
                .build();
        InMemoryRunner r = new InMemoryRunner(agent, "skillgate-test");
        session = r.sessionService().createSession("skillgate-test", "user").blockingGet();
        runner.set(r);
        return r;
    }

    private List<Event> say(String text) {
        return runner.get()
                .runAsync("user", session.id(), Content.fromParts(Part.fromText(text)))
                .toList()
                .blockingGet();
    }

    /** ADK's confirmation request in these events, if any. */
    private static Optional<FunctionCall> confirmation(List<Event> events) {
        return events.stream()
                .flatMap(e -> e.functionCalls().stream())
                .filter(fc -> fc.name().orElse("").equals("adk_request_confirmation"))
                .reduce((a, b) -> b);
    }

    /** The application's UI answers ADK's confirmation request. */
    private List<Event> answer(FunctionCall confirmationCall, boolean confirmed) {
        Content reply = Content.builder()
                .role("user")
                .parts(Part.builder()
                        .functionResponse(FunctionResponse.builder()
                                .id(confirmationCall.id().orElseThrow())
                                .name("adk_request_confirmation")
                                .response(Map.of("confirmed", confirmed))
                                .build())
                        .build())
                .build();
        return runner.get().runAsync("user", session.id(), reply).toList().blockingGet();
    }

    private static String finalText(List<Event> events) {
        return events.stream()
                .flatMap(e -> e.content().flatMap(Content::parts).orElse(List.of()).stream())
                .flatMap(p -> p.text().stream())
                .reduce((a, b) -> b)
                .orElse("");
    }

    @SuppressWarnings("unchecked")
    private static String hint(FunctionCall confirmationCall) {
        Object tc = confirmationCall.args().orElseThrow().get("toolConfirmation");
        if (tc instanceof com.google.adk.events.ToolConfirmation t) {
            return t.hint();
        }
        return String.valueOf(((Map<String, Object>) tc).get("hint"));
    }

    @Test
    void loadThenAnApprovedRunReturnsTheCheckedOutputThroughAdksConfirmation() throws Exception {
        Probe.write(skillgate);
        ScriptedLlm model = new ScriptedLlm()
                .then(r -> call("load_skill", Map.of("skill_name", "probe")))
                .then(r -> call("probe", Map.of("name", "Ada")))
                .then(ScriptedLlm::echo);
        start(model);

        List<Event> first = say("greet Ada");
        FunctionCall activation = confirmation(first).orElseThrow();
        assertThat(hint(activation))
                .contains("first-use approval", "probe", "Call the probe tool with a name; it greets.");
        List<Event> second = answer(activation, true);
        FunctionCall run = confirmation(second).orElseThrow();
        assertThat(hint(run))
                .contains("runs as your user with your files and network; not a sandbox")
                .contains("\"Ada\"", "scripts/probe.mjs", "sha256:", "argv:");
        assertThat(Probe.runs(skillgate)).isEmpty();
        List<Event> third = answer(run, true);

        assertThat(finalText(third)).contains("SUCCEEDED", "Hello, Ada!");
        assertThat(Probe.runs(skillgate)).isEqualTo("Ada\n");
        assertThat(skillgate.gate().supervisor().toString()).contains("linux-subreaper");
        String instructions = model.requests.get(0).getSystemInstructions().toString();
        assertThat(instructions).contains("<available_skills>", "<name>\nprobe\n</name>");
        assertThat(model.requests.get(0).tools().keySet())
                .containsExactlyInAnyOrder(
                        "list_skills", "load_skill", "load_skill_resource", "run_skill_script", "probe");
    }

    @Test
    void runSkillScriptIsSkillgateBackedAndADeclineIsConsentDeniedWithNothingRun() throws Exception {
        Probe.write(skillgate);
        ScriptedLlm model = new ScriptedLlm()
                .then(r -> call("run_skill_script", Map.of("skill_name", "probe", "input", Map.of("name", "Ada"))))
                .then(ScriptedLlm::echo);
        start(model);

        FunctionCall run = confirmation(say("greet Ada")).orElseThrow();
        List<Event> after = answer(run, false);

        assertThat(finalText(after)).contains("CONSENT_DENIED", "REFUSED");
        assertThat(Probe.runs(skillgate)).isEmpty();
    }

    @Test
    void invalidInputIsAToolErrorWithTheSchemaIssueAndNobodyIsAsked() throws Exception {
        Probe.write(skillgate);
        ScriptedLlm model =
                new ScriptedLlm().then(r -> call("probe", Map.of("name", ""))).then(ScriptedLlm::echo);
        start(model);

        List<Event> events = say("greet nobody");

        assertThat(confirmation(events)).isEmpty();
        assertThat(finalText(events)).contains("VALUE_MIN_LENGTH", "/name");
        assertThat(Probe.runs(skillgate)).isEmpty();
    }

    @Test
    void aSkillEditedAfterApprovalIsRefused() throws Exception {
        Path dir = Probe.write(skillgate);
        ScriptedLlm model = new ScriptedLlm()
                .then(r -> call("probe", Map.of("name", "Ada")))
                .then(ScriptedLlm::echo);
        start(model);

        FunctionCall run = confirmation(say("greet Ada")).orElseThrow();
        Probe.edit(dir);
        List<Event> after = answer(run, true);

        assertThat(finalText(after)).contains("CAPTURE_REVISION_MISMATCH");
        assertThat(Probe.runs(skillgate)).isEmpty();
    }
}
