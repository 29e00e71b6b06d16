package dev.skillgate.springai;

import dev.skillgate.engine.SkillGate;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.tools.ExecutableSkill;
import dev.skillgate.tools.SchemaReport;
import dev.skillgate.tools.SkillTools;
import dev.skillgate.tools.ToolBinding;
import dev.skillgate.tools.ToolResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.apiguardian.api.API;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.definition.ToolDefinition;

/**
 * Skillgate as a Spring AI {@link ToolCallbackProvider}: {@value SkillTools#ACTIVATE_SKILL},
 * {@value SkillTools#READ_SKILL_RESOURCE} and one {@link ToolCallback} per executable skill, named
 * after the skill, whose {@link ToolDefinition#inputSchema()} is the skill's {@code inputSchema}
 * text exactly as the captured manifest holds it.
 *
 * <pre>{@code
 * SkillgateToolCallbackProvider skills = SkillgateToolCallbackProvider.of(gate, ToolBinding.of(run, agent, context, workspace));
 * String answer = ChatClient.create(chatModel).prompt()
 *     .system(skills.systemPrompt())
 *     .user(question)
 *     .toolCallbacks(skills)
 *     .call().content();
 * }</pre>
 *
 * <p>Every call goes through {@link SkillTools}: the callback passes the model's argument text byte
 * for byte to {@code SkillGate.execute} with the host's binding. Spring AI's tool result is a string
 * with no error flag, so a refusal, denial, timeout or failure is returned as Skillgate's error JSON
 * ({@code {"error":{…,"codes":[…]}}}) — never thrown, so no {@code ToolExecutionExceptionProcessor}
 * setting can turn it into an exception that ends the loop, and never routed to any other execution
 * path. A {@link ToolContext} the application passes is ignored: the binding is the host's, fixed at
 * construction. Callbacks are listed afresh at each {@link #getToolCallbacks()} call. Not a sandbox.
 * One provider per host binding.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class SkillgateToolCallbackProvider implements ToolCallbackProvider {
    private final SkillTools tools;

    private SkillgateToolCallbackProvider(SkillTools tools) {
        this.tools = Objects.requireNonNull(tools, "tools");
    }

    /** The provider of {@code gate}'s skills for {@code binding}. */
    public static SkillgateToolCallbackProvider of(SkillGate gate, ToolBinding binding) {
        return new SkillgateToolCallbackProvider(SkillTools.of(gate, binding));
    }

    /** The provider of an existing toolset. */
    public static SkillgateToolCallbackProvider of(SkillTools tools) {
        return new SkillgateToolCallbackProvider(tools);
    }

    /** The {@code <available_skills>} block (empty without skills). */
    public String catalogPrompt() {
        return tools.catalogPrompt();
    }

    /** How the tools work plus the catalog, for the system message. */
    public String systemPrompt() {
        return tools.systemPrompt();
    }

    /**
     * How each executable skill's schema mapped: Spring AI carries the schema as text, so every skill
     * is offered with its schema unchanged and nothing is dropped.
     */
    public List<SchemaReport> schemaReports() {
        List<SchemaReport> out = new ArrayList<>();
        for (ExecutableSkill s : tools.executableSkills()) {
            out.add(new SchemaReport(s.name(), true, List.of(), List.<Diagnostic>of()));
        }
        return List.copyOf(out);
    }

    @Override
    public ToolCallback[] getToolCallbacks() {
        List<ToolCallback> out = new ArrayList<>();
        out.add(new GatedCallback(
                ToolDefinition.builder()
                        .name(SkillTools.ACTIVATE_SKILL)
                        .description("Returns a skill's instructions (its SKILL.md) once the user has approved"
                                + " them. Call it before using a skill.")
                        .inputSchema(SkillTools.ACTIVATE_SKILL_SCHEMA)
                        .build(),
                tools::activateCall));
        out.add(new GatedCallback(
                ToolDefinition.builder()
                        .name(SkillTools.READ_SKILL_RESOURCE)
                        .description(
                                "Reads one file of an activated skill, e.g. a reference its instructions" + " name.")
                        .inputSchema(SkillTools.READ_SKILL_RESOURCE_SCHEMA)
                        .build(),
                tools::readResourceCall));
        for (ExecutableSkill skill : tools.executableSkills()) {
            String name = skill.name();
            out.add(new GatedCallback(
                    ToolDefinition.builder()
                            .name(name)
                            .description(skill.toolDescription())
                            .inputSchema(skill.inputSchemaJson())
                            .build(),
                    args -> tools.execute(name, args)));
        }
        return out.toArray(ToolCallback[]::new);
    }

    /** One tool through Skillgate; never throws at the tool loop. */
    private record GatedCallback(ToolDefinition definition, Function<byte[], ToolResult> call) implements ToolCallback {
        @Override
        public ToolDefinition getToolDefinition() {
            return definition;
        }

        @Override
        public String call(String toolInput) {
            try {
                String input = toolInput == null ? "" : toolInput;
                return call.apply(input.getBytes(StandardCharsets.UTF_8)).text();
            } catch (RuntimeException e) {
                return SkillTools.failed(definition.name(), e).text();
            }
        }

        @Override
        public String call(String toolInput, ToolContext toolContext) {
            // The application's tool context never reaches Skillgate: the binding is the host's.
            return call(toolInput);
        }
    }

    @Override
    public String toString() {
        return "SkillgateToolCallbackProvider[" + tools + "]";
    }
}
