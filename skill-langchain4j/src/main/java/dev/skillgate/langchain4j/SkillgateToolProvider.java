package dev.skillgate.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProvider;
import dev.langchain4j.service.tool.ToolProviderRequest;
import dev.langchain4j.service.tool.ToolProviderResult;
import dev.skillgate.engine.SkillGate;
import dev.skillgate.langchain4j.internal.Lc4jSchemas;
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

/**
 * Skillgate as a LangChain4j {@link ToolProvider}: {@value SkillTools#ACTIVATE_SKILL}, {@value
 * SkillTools#READ_SKILL_RESOURCE} and one tool per executable skill, named after the skill, whose
 * parameters are the skill's {@code inputSchema} (root fields typed, every property the exact JSON of
 * its subschema; see {@link #schemaReports()}).
 *
 * <pre>{@code
 * SkillgateToolProvider skills = SkillgateToolProvider.of(gate, ToolBinding.of(run, agent, context, workspace));
 * Assistant assistant = AiServices.builder(Assistant.class)
 *     .chatModel(model)
 *     .systemMessageProvider(id -> skills.systemPrompt())
 *     .toolProvider(skills)
 *     .build();
 * }</pre>
 *
 * <p>Every call goes through {@link SkillTools}: the executor passes the model's argument text
 * byte for byte to {@code SkillGate.execute} with the host's binding, so the human approves exactly
 * what the model sent; a refusal, denial, timeout or failure comes back as a {@link
 * ToolExecutionResult} with {@code isError} set and Skillgate's codes, never as an exception and
 * never through any other execution path. The model cannot name the run, agent, context, workspace,
 * limits or policy. Tools are listed afresh at each AI-service call (a skill edited since is a new
 * revision the human approves again). Not a sandbox. One provider per host binding.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class SkillgateToolProvider implements ToolProvider {
    private final SkillTools tools;

    private SkillgateToolProvider(SkillTools tools) {
        this.tools = Objects.requireNonNull(tools, "tools");
    }

    /** The provider of {@code gate}'s skills for {@code binding}. */
    public static SkillgateToolProvider of(SkillGate gate, ToolBinding binding) {
        return new SkillgateToolProvider(SkillTools.of(gate, binding));
    }

    /** The provider of an existing toolset. */
    public static SkillgateToolProvider of(SkillTools tools) {
        return new SkillgateToolProvider(tools);
    }

    /** The {@code <available_skills>} block (empty without skills). */
    public String catalogPrompt() {
        return tools.catalogPrompt();
    }

    /** How the tools work plus the catalog, for the system message. */
    public String systemPrompt() {
        return tools.systemPrompt();
    }

    /** How each executable skill's schema mapped; a skill whose schema did not is not offered. */
    public List<SchemaReport> schemaReports() {
        List<SchemaReport> out = new ArrayList<>();
        for (ExecutableSkill s : tools.executableSkills()) {
            out.add(Lc4jSchemas.map(s.name(), s.inputSchemaJson()).report());
        }
        return List.copyOf(out);
    }

    @Override
    public ToolProviderResult provideTools(ToolProviderRequest request) {
        ToolProviderResult.Builder result = ToolProviderResult.builder();
        result.add(
                ToolSpecification.builder()
                        .name(SkillTools.ACTIVATE_SKILL)
                        .description("Returns a skill's instructions (its SKILL.md) once the user has approved"
                                + " them. Call it before using a skill.")
                        .parameters(builtIn(SkillTools.ACTIVATE_SKILL_SCHEMA))
                        .build(),
                executor(SkillTools.ACTIVATE_SKILL, args -> tools.activateCall(args)));
        result.add(
                ToolSpecification.builder()
                        .name(SkillTools.READ_SKILL_RESOURCE)
                        .description(
                                "Reads one file of an activated skill, e.g. a reference its instructions" + " name.")
                        .parameters(builtIn(SkillTools.READ_SKILL_RESOURCE_SCHEMA))
                        .build(),
                executor(SkillTools.READ_SKILL_RESOURCE, args -> tools.readResourceCall(args)));
        for (ExecutableSkill skill : tools.executableSkills()) {
            Lc4jSchemas.Mapping mapping = Lc4jSchemas.map(skill.name(), skill.inputSchemaJson());
            if (mapping.schema().isEmpty()) {
                continue;
            }
            String name = skill.name();
            result.add(
                    ToolSpecification.builder()
                            .name(name)
                            .description(skill.toolDescription())
                            .parameters(mapping.schema().get())
                            .build(),
                    executor(name, args -> tools.execute(name, args)));
        }
        return result.build();
    }

    private static JsonObjectSchema builtIn(String schemaJson) {
        return Lc4jSchemas.map("built-in", schemaJson).schema().orElseThrow();
    }

    private static ToolExecutor executor(String tool, Function<byte[], ToolResult> call) {
        return new GatedExecutor(tool, call);
    }

    /** Runs one tool through Skillgate; never throws at the agent loop. */
    private record GatedExecutor(String tool, Function<byte[], ToolResult> call) implements ToolExecutor {
        @Override
        public String execute(ToolExecutionRequest request, Object memoryId) {
            return run(request).text();
        }

        @Override
        public ToolExecutionResult executeWithContext(ToolExecutionRequest request, InvocationContext context) {
            ToolResult r = run(request);
            return ToolExecutionResult.builder()
                    .isError(r.isError())
                    .resultText(r.text())
                    .build();
        }

        private ToolResult run(ToolExecutionRequest request) {
            try {
                String arguments = request == null || request.arguments() == null ? "" : request.arguments();
                return call.apply(arguments.getBytes(StandardCharsets.UTF_8));
            } catch (RuntimeException e) {
                return SkillTools.failed(tool, e);
            }
        }
    }

    @Override
    public String toString() {
        return "SkillgateToolProvider[" + tools + "]";
    }
}
