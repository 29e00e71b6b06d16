package dev.skillgate.springai;

import static dev.skillgate.springai.ScriptedChatModel.call;
import static dev.skillgate.springai.ScriptedChatModel.lastResult;
import static org.assertj.core.api.Assertions.assertThat;

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
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.tool.ToolCallback;
import tools.jackson.databind.json.JsonMapper;

/**
 * Spring AI's own tool loop ({@code ChatClient} with its auto-registered {@code ToolCallingAdvisor})
 * with a scripted chat model standing in for the LLM, over a real gate: real {@code node} under the
 * Linux supervisor, the real audit log.
 */
class SkillgateToolCallbackProviderTest {
    private final AtomicReference<Path> skillDir = new AtomicReference<>();

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

    private static String ask(ScriptedChatModel model, SkillgateToolCallbackProvider provider, String question) {
        return ChatClient.create(model)
                .prompt()
                .system(provider.systemPrompt())
                .user(question)
                .toolCallbacks(provider)
                .call()
                .content();
    }

    @Test
    void catalogActivateApprovedRunReturnsTheCheckedOutput() throws Exception {
        Probe.write(skillgate);
        skillgate.approvals().approveNext().approveNext();
        SkillgateToolCallbackProvider provider =
                SkillgateToolCallbackProvider.of(skillgate.gate(), Probe.binding(skillgate));
        ScriptedChatModel model = new ScriptedChatModel()
                .then(p -> call("activate_skill", "{\"name\":\"probe\"}"))
                .then(p -> call("probe", "{\"name\":\"Ada\"}"))
                .then(ScriptedChatModel::echo);

        String answer = ask(model, provider, "greet Ada");

        assertThat(answer).isEqualTo("result: {\"greeting\":\"Hello, Ada!\"}");
        Prompt first = model.prompts.get(0);
        assertThat(((SystemMessage) first.getInstructions().get(0)).getText())
                .contains("<available_skills>", "<name>\nprobe\n</name>");
        List<ToolCallback> offered = ((ToolCallingChatOptions) first.getOptions()).getToolCallbacks();
        assertThat(offered.stream().map(t -> t.getToolDefinition().name()))
                .containsExactly("activate_skill", "read_skill_resource", "probe");
        JsonMapper json = JsonMapper.builder().build();
        assertThat((Object) json.readTree(offered.get(2).getToolDefinition().inputSchema()))
                .isEqualTo((Object) json.readTree(Probe.INPUT_SCHEMA));
        assertThat(lastResult(model.prompts.get(1)).responseData()).contains(Probe.BODY.trim());
        assertThat(Probe.runs(skillgate)).isEqualTo("Ada\n");
        assertThat(skillgate.gate().supervisor().toString()).contains("linux-subreaper");
        assertThat(skillgate.approvals().requests()).hasSize(1);
    }

    @Test
    void deniedIsAToolErrorWithConsentDeniedAndNothingRan() throws Exception {
        Probe.write(skillgate);
        skillgate.approvals().approveNext().denyNext("no");
        SkillgateToolCallbackProvider provider =
                SkillgateToolCallbackProvider.of(skillgate.gate(), Probe.binding(skillgate));
        ScriptedChatModel model = new ScriptedChatModel()
                .then(p -> call("activate_skill", "{\"name\":\"probe\"}"))
                .then(p -> call("probe", "{\"name\":\"Ada\"}"))
                .then(ScriptedChatModel::echo);

        String answer = ask(model, provider, "greet Ada");

        assertThat(answer).contains("\"error\"", "\"CONSENT_DENIED\"", "\"started\":false");
        assertThat(Probe.runs(skillgate)).isEmpty();
    }

    @Test
    void invalidInputIsAToolErrorWithTheSchemaIssueAndNobodyIsAsked() throws Exception {
        Probe.write(skillgate);
        SkillgateToolCallbackProvider provider =
                SkillgateToolCallbackProvider.of(skillgate.gate(), Probe.binding(skillgate));
        ScriptedChatModel model = new ScriptedChatModel()
                .then(p -> call("probe", "{\"name\":\"way too long a name for this\"}"))
                .then(ScriptedChatModel::echo);

        String answer = ask(model, provider, "greet");

        assertThat(answer).contains("VALUE_MAX_LENGTH", "\"at\":\"/name\"");
        assertThat(skillgate.approvals().requests()).isEmpty();
        assertThat(Probe.runs(skillgate)).isEmpty();
    }

    @Test
    void aSkillEditedAfterApprovalIsRefused() throws Exception {
        skillDir.set(Probe.write(editing));
        SkillgateToolCallbackProvider provider =
                SkillgateToolCallbackProvider.of(editing.gate(), Probe.binding(editing));
        ScriptedChatModel model = new ScriptedChatModel()
                .then(p -> call("probe", "{\"name\":\"Ada\"}"))
                .then(ScriptedChatModel::echo);

        String answer = ask(model, provider, "greet Ada");

        assertThat(answer).contains("CAPTURE_REVISION_MISMATCH");
        assertThat(Probe.runs(editing)).isEmpty();
    }

    @Test
    void aFailingScriptIsAToolErrorWithoutItsOutputAndTheLoopGoesOn() throws Exception {
        Probe.write(skillgate);
        skillgate.approvals().approveNext().approveNext();
        SkillgateToolCallbackProvider provider =
                SkillgateToolCallbackProvider.of(skillgate.gate(), Probe.binding(skillgate));
        ScriptedChatModel model = new ScriptedChatModel()
                .then(p -> call("probe", "{\"name\":\"fail\"}"))
                .then(p -> call("probe", "{\"name\":\"Bo\"}"))
                .then(ScriptedChatModel::echo);

        String answer = ask(model, provider, "fail, then greet Bo");

        String failed = lastResult(model.prompts.get(1)).responseData();
        assertThat(failed).contains("EXEC_NONZERO_EXIT").doesNotContain(Probe.SECRET);
        assertThat(answer).isEqualTo("result: {\"greeting\":\"Hello, Bo!\"}");
        assertThat(Probe.runs(skillgate)).isEqualTo("fail\nBo\n");
    }
}
