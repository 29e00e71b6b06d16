package dev.skillgate.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.inspect.AgentContext;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SemVer;
import dev.skillgate.testkit.SkillGateExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The framework-neutral surface over a real gate: what the model can and cannot make it do. */
class SkillToolsTest {
    private static final AgentContext CONTEXT =
            AgentContext.of("tools-test", SemVer.parse("1.0.0"), Set.of(), Set.of(), PermissionMode.READ_ONLY);

    private static final String SCHEMA = "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\","
            + "\"maximum\":1.0000000000000000001}},\"required\":[\"n\"],\"additionalProperties\":false}";

    @RegisterExtension
    final SkillGateExtension skillgate = new SkillGateExtension();

    private SkillTools tools() {
        return SkillTools.of(
                skillgate.gate(),
                ToolBinding.of(RunId.random(), AgentId.of("tools-test"), CONTEXT, skillgate.workspace()));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void onlyExecutableSkillsBecomeToolsAndTheirSchemaIsTheCapturedText() {
        skillgate
                .bundle("runner")
                .description("Runs <b>things</b> & more")
                .script("scripts/run.mjs", "process.stdout.write('{}')")
                .inputSchema(SCHEMA)
                .write();
        skillgate.bundle("prompt-only").description("Only words.").noManifest().write();
        // Issue 18: a user-only skill reached the model-facing block; now neither block nor tool.
        skillgate
                .bundle("user-only")
                .frontmatterLine("disable-model-invocation: true")
                .script("scripts/run.mjs", "process.stdout.write('{}')")
                .inputSchema(SCHEMA)
                .write();

        SkillTools tools = tools();
        assertThat(skillgate.gate().catalog())
                .filteredOn(s -> s.name().equals("user-only"))
                .singleElement()
                .satisfies(s -> assertThat(s.modelInvocationDisabled()).isTrue());
        assertThat(tools.catalogPrompt()).doesNotContain("user-only");

        assertThat(tools.executableSkills()).singleElement().satisfies(s -> {
            assertThat(s.name()).isEqualTo("runner");
            assertThat(s.inputSchemaJson()).contains("1.0000000000000000001");
        });
        assertThat(tools.catalogPrompt())
                .startsWith("<available_skills>")
                .contains("Runs &lt;b&gt;things&lt;/b&gt; &amp; more", "<name>\nprompt-only\n</name>");
        assertThat(tools.systemPrompt()).contains("activate_skill", tools.catalogPrompt());
    }

    @Test
    void theBuiltInToolsCheckTheirArgumentsStrictly() {
        SkillTools tools = tools();

        assertThat(tools.activateCall(utf8("{\"name\":\"a\",\"name\":\"b\"}")).codes())
                .containsExactly(ErrorCode.JSON_DUPLICATE_KEY);
        assertThat(tools.activateCall(utf8("{\"name\":\"x\",\"workspace\":\"/\"}"))
                        .codes())
                .containsExactly(ErrorCode.VALUE_ADDITIONAL_PROPERTY);
        assertThat(tools.activateCall(utf8("{\"name\":\"../x\"}")).codes())
                .isNotEmpty()
                .allSatisfy(c -> assertThat(c.name()).startsWith("NAME_"));
        assertThat(tools.readResourceCall(utf8("[]")).codes()).containsExactly(ErrorCode.JSON_ROOT_NOT_OBJECT);
        assertThat(tools.activate("missing").codes()).contains(ErrorCode.SKILL_NOT_FOUND);
    }

    @Test
    void resourcesAreReadOnlyForActivatedSkillsAndNeverOutsideThem() {
        skillgate
                .bundle("notes")
                .description("Notes.")
                .noManifest()
                .resource("references/A.md", "alpha\n")
                .write();
        skillgate.approvals().approveNext();
        SkillTools tools = tools();

        assertThat(tools.readResource("notes", "references/A.md").codes())
                .containsExactly(ErrorCode.SKILL_NOT_ACTIVATED);
        assertThat(tools.activate("notes").isError()).isFalse();
        assertThat(tools.readResource("notes", "references/A.md").text()).isEqualTo("alpha\n");
        assertThat(tools.readResource("notes", "../notes/SKILL.md").codes()).containsExactly(ErrorCode.PATH_TRAVERSAL);
        assertThat(tools.readResource("notes", "/etc/passwd").codes()).containsExactly(ErrorCode.PATH_ABSOLUTE);
        // A second toolset (another binding) has activated nothing.
        assertThat(tools().readResource("notes", "references/A.md").codes())
                .containsExactly(ErrorCode.SKILL_NOT_ACTIVATED);
    }

    @Test
    void aFailureIsJsonWithCodesAndPointersAndSaysWhetherAnythingStarted() {
        ToolResult.Failure refused = ToolResult.Failure.refused(
                "probe", List.of(Diagnostic.error(ErrorCode.VALUE_MIN_LENGTH, "/name", "too \"short\"")));
        ToolResult.Failure failed = new ToolResult.Failure(
                "probe", ExecutionStatus.FAILED, List.of(Diagnostic.error(ErrorCode.EXEC_NONZERO_EXIT, "", "exit 3")));

        assertThat(refused.text())
                .isEqualTo("{\"error\":{\"tool\":\"probe\",\"status\":\"REFUSED\",\"started\":false,\"codes\":"
                        + "[\"VALUE_MIN_LENGTH\"],\"issues\":[{\"code\":\"VALUE_MIN_LENGTH\",\"at\":\"/name\","
                        + "\"message\":\"too \\\"short\\\"\"}]}}");
        assertThat(failed.text()).contains("\"started\":true", "EXEC_NONZERO_EXIT");
        assertThatThrownBy(() -> ToolResult.Failure.refused("probe", List.of()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theBindingIsTheHostsAndArgumentsMustBePlainJson() {
        assertThatThrownBy(() -> ToolBinding.of(RunId.random(), AgentId.of("a"), CONTEXT, Path.of("relative")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ToolBinding.of(RunId.random(), AgentId.of("a"), CONTEXT, Path.of("/w"))
                        .withCallerDeadline(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(SkillTools.argumentBytes(Map.of("a", List.of(1, "x", true))))
                .hasValueSatisfying(
                        b -> assertThat(new String(b, StandardCharsets.UTF_8)).isEqualTo("{\"a\":[1,\"x\",true]}"));
        assertThat(SkillTools.argumentBytes(Map.of("a", new Object()))).isEmpty();
    }
}
