package dev.skillgate.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.internal.JsonSchemaElementJsonUtils;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.skillgate.consent.ActivationApprovalRequest;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.testkit.SkillGateExtension;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.json.JsonMapper;

/**
 * LangChain4j's own tool loop ({@code AiServices}) with a scripted chat model standing in for the
 * LLM, over a real gate: real {@code node} under the Linux supervisor, the real audit log.
 */
class SkillgateToolProviderTest {
    interface Assistant {
        String chat(String message);
    }

    private final AtomicReference<Path> skillDir = new AtomicReference<>();

    /** Approves activations; edits the skill, then approves, on an execution request. */
    private final ApprovalChannel editThenApprove = new ApprovalChannel() {
        @Override
        public CompletionStage<ApprovalDecision> request(ApprovalRequest request) {
            Probe.edit(skillDir.get());
            return CompletableFuture.completedFuture(request.approve());
        }

        @Override
        public CompletionStage<ApprovalDecision> requestActivation(ActivationApprovalRequest request) {
            return CompletableFuture.completedFuture(request.approve());
        }
    };

    @RegisterExtension
    final SkillGateExtension skillgate = new SkillGateExtension();

    @RegisterExtension
    final SkillGateExtension editing = SkillGateExtension.builder()
            .customize(b -> b.approvalChannel(editThenApprove))
            .build();

    private Assistant assistant(ScriptedChatModel model, SkillgateToolProvider provider) {
        return AiServices.builder(Assistant.class)
                .chatModel(model)
                .systemMessageProvider(id -> provider.systemPrompt())
                .toolProvider(provider)
                .build();
    }

    private static AiMessage call(String tool, String arguments) {
        return AiMessage.from(ToolExecutionRequest.builder()
                .id("call-" + tool)
                .name(tool)
                .arguments(arguments)
                .build());
    }

    private static ToolExecutionResultMessage lastResult(ChatRequest request) {
        List<ChatMessage> messages = request.messages();
        return (ToolExecutionResultMessage) messages.get(messages.size() - 1);
    }

    @Test
    void catalogActivateApprovedRunReturnsTheCheckedOutput() throws Exception {
        Probe.write(skillgate);
        skillgate.approvals().approveNext().approveNext();
        SkillgateToolProvider provider = SkillgateToolProvider.of(skillgate.gate(), Probe.binding(skillgate));
        ScriptedChatModel model = new ScriptedChatModel()
                .then(r -> call("activate_skill", "{\"name\":\"probe\"}"))
                .then(r -> call("probe", "{\"name\":\"Ada\"}"))
                .then(ScriptedChatModelEcho::echo);

        String answer = assistant(model, provider).chat("greet Ada");

        assertThat(answer).isEqualTo("ok: {\"greeting\":\"Hello, Ada!\"}");
        ChatRequest first = model.requests.get(0);
        String system = ((SystemMessage) first.messages().get(0)).text();
        assertThat(system).contains("<available_skills>", "<name>\nprobe\n</name>");
        List<String> tools =
                first.toolSpecifications().stream().map(ToolSpecification::name).toList();
        assertThat(tools).containsExactly("activate_skill", "read_skill_resource", "probe");
        // allowed-tools in the frontmatter granted nothing: no other tool appeared.
        ToolSpecification probe = first.toolSpecifications().get(2);
        JsonMapper json = JsonMapper.builder().build();
        assertThat((Object) json.valueToTree(JsonSchemaElementJsonUtils.toMap(probe.parameters())))
                .isEqualTo((Object) json.readTree(Probe.INPUT_SCHEMA));
        ToolExecutionResultMessage activated = lastResult(model.requests.get(1));
        assertThat(activated.isError()).isNotEqualTo(Boolean.TRUE);
        assertThat(activated.text()).contains(Probe.BODY.trim());
        assertThat(Probe.runs(skillgate)).isEqualTo("Ada\n");
        assertThat(skillgate.gate().supervisor().toString()).contains("linux-subreaper");
        assertThat(skillgate.approvals().requests()).hasSize(1);
        assertThat(skillgate.approvals().requests().get(0).invocation().prettyText())
                .contains("\"Ada\"");
    }

    @Test
    void deniedIsAToolErrorWithConsentDeniedAndNothingRan() throws Exception {
        Probe.write(skillgate);
        skillgate.approvals().approveNext().denyNext("no");
        SkillgateToolProvider provider = SkillgateToolProvider.of(skillgate.gate(), Probe.binding(skillgate));
        ScriptedChatModel model = new ScriptedChatModel()
                .then(r -> call("activate_skill", "{\"name\":\"probe\"}"))
                .then(r -> call("probe", "{\"name\":\"Ada\"}"))
                .then(ScriptedChatModelEcho::echo);

        String answer = assistant(model, provider).chat("greet Ada");

        assertThat(answer).startsWith("error: ").contains("\"CONSENT_DENIED\"", "\"started\":false");
        assertThat(Probe.runs(skillgate)).isEmpty();
    }

    @Test
    void invalidInputIsAToolErrorWithTheSchemaIssueAndNobodyIsAsked() throws Exception {
        Probe.write(skillgate);
        SkillgateToolProvider provider = SkillgateToolProvider.of(skillgate.gate(), Probe.binding(skillgate));
        ScriptedChatModel model = new ScriptedChatModel()
                .then(r -> call("probe", "{\"name\":\"\"}"))
                .then(ScriptedChatModelEcho::echo);

        String answer = assistant(model, provider).chat("greet nobody");

        assertThat(answer).startsWith("error: ").contains("VALUE_MIN_LENGTH", "\"at\":\"/name\"");
        assertThat(skillgate.approvals().requests()).isEmpty();
        assertThat(Probe.runs(skillgate)).isEmpty();
    }

    @Test
    void aSkillEditedAfterApprovalIsRefused() throws Exception {
        skillDir.set(Probe.write(editing));
        SkillgateToolProvider provider = SkillgateToolProvider.of(editing.gate(), Probe.binding(editing));
        ScriptedChatModel model = new ScriptedChatModel()
                .then(r -> call("probe", "{\"name\":\"Ada\"}"))
                .then(ScriptedChatModelEcho::echo);

        String answer = assistant(model, provider).chat("greet Ada");

        assertThat(answer).startsWith("error: ").contains("CAPTURE_REVISION_MISMATCH");
        assertThat(Probe.runs(editing)).isEmpty();
    }

    @Test
    void aFailingScriptIsAToolErrorWithoutItsOutput() throws Exception {
        Probe.write(skillgate);
        skillgate.approvals().approveNext();
        SkillgateToolProvider provider = SkillgateToolProvider.of(skillgate.gate(), Probe.binding(skillgate));
        ScriptedChatModel model = new ScriptedChatModel()
                .then(r -> call("probe", "{\"name\":\"fail\"}"))
                .then(ScriptedChatModelEcho::echo);

        String answer = assistant(model, provider).chat("fail");

        assertThat(answer).startsWith("error: ").contains("EXEC_NONZERO_EXIT").doesNotContain(Probe.SECRET);
        assertThat(Probe.runs(skillgate)).isEqualTo("fail\n");
    }

    @Test
    void resourcesNeedAnActivationAndTheModelCannotLeaveTheSkill() throws Exception {
        Probe.write(skillgate);
        skillgate.approvals().approveNext();
        SkillgateToolProvider provider = SkillgateToolProvider.of(skillgate.gate(), Probe.binding(skillgate));
        ScriptedChatModel model = new ScriptedChatModel()
                .then(r -> call("read_skill_resource", "{\"name\":\"probe\",\"path\":\"references/GUIDE.md\"}"))
                .then(r -> call("activate_skill", "{\"name\":\"probe\"}"))
                .then(r -> call("read_skill_resource", "{\"name\":\"probe\",\"path\":\"../../data/policy\"}"))
                .then(r -> call("read_skill_resource", "{\"name\":\"probe\",\"path\":\"references/GUIDE.md\"}"))
                .then(r -> call("read_skill_resource", "{\"name\":\"probe\",\"path\":\"x\",\"workspace\":\"/\"}"))
                .then(ScriptedChatModelEcho::echo);

        String answer = assistant(model, provider).chat("read");

        assertThat(lastResult(model.requests.get(1)).text()).contains("SKILL_NOT_ACTIVATED");
        assertThat(lastResult(model.requests.get(3)).text()).contains("PATH_TRAVERSAL");
        assertThat(lastResult(model.requests.get(4)).text()).isEqualTo("Greet politely.\n");
        // A parameter the schema does not have (here: an attempt to pick the workspace) is refused.
        assertThat(answer).contains("VALUE_ADDITIONAL_PROPERTY");
    }
}
