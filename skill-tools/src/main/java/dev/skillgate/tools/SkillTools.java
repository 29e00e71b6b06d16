package dev.skillgate.tools;

import dev.skillgate.engine.Activation;
import dev.skillgate.engine.ExecutionRequest;
import dev.skillgate.engine.PendingExecution;
import dev.skillgate.engine.SkillGate;
import dev.skillgate.engine.SkillSummary;
import dev.skillgate.inspect.BoundedReader;
import dev.skillgate.inspect.CaptureOutcome;
import dev.skillgate.inspect.FileContent;
import dev.skillgate.inspect.ReadOutcome;
import dev.skillgate.inspect.SkillArtifact;
import dev.skillgate.inspect.SkillCatalog;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.SkillName;
import dev.skillgate.protocol.CompiledSchema;
import dev.skillgate.protocol.SchemaGate;
import dev.skillgate.protocol.SchemaRole;
import dev.skillgate.protocol.Validation;
import dev.skillgate.tools.internal.Json;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apiguardian.api.API;
import tools.jackson.databind.JsonNode;

/**
 * Skillgate as an agent's toolset, for one host binding: the {@code <available_skills>} catalog,
 * {@value #ACTIVATE_SKILL}, {@value #READ_SKILL_RESOURCE} and one tool per executable skill, each
 * call answered with a {@link ToolResult}.
 *
 * <p>What it guarantees: the model passes only a skill name, a resource path or the skill's own
 * input — the run, agent, agent context and workspace are the {@link ToolBinding}'s, and limits and
 * policy are the skill's manifest and the host's admin; activation returns the {@code SKILL.md}
 * text of the capture the human approved ({@link SkillGate#activate}); a skill's tool runs only
 * through {@link SkillGate#execute} (capture, schema, consent, supervisor — never a shell, never a
 * fallback); {@value #READ_SKILL_RESOURCE} reads through the bounded, link-refusing reader, and only
 * for a skill this toolset activated; every refusal, denial, timeout and failure is a {@link
 * ToolResult.Failure} with stable codes and no raw script output — nothing here throws at the agent
 * loop. Frontmatter fields such as {@code allowed-tools} are never read: they grant nothing.
 *
 * <p>What it does not do: confine a consented script (not a sandbox), or vouch for resources — files
 * the manifest does not declare are read from disk on demand and are not covered by any approval.
 * One instance per host binding; it keeps no static state. Thread-safe.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class SkillTools {
    /** The tool that returns a skill's approved instructions. */
    public static final String ACTIVATE_SKILL = "activate_skill";

    /** The tool that reads one file of an activated skill. */
    public static final String READ_SKILL_RESOURCE = "read_skill_resource";

    /** Largest resource returned, in bytes. */
    public static final int MAX_RESOURCE_BYTES = 256 * 1024;

    /** The parameters of {@value #ACTIVATE_SKILL}. */
    public static final String ACTIVATE_SKILL_SCHEMA = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":"
            + "\"string\",\"minLength\":1,\"maxLength\":64,\"description\":\"The skill's name, as the catalog"
            + " lists it\"}},\"required\":[\"name\"],\"additionalProperties\":false}";

    /** The parameters of {@value #READ_SKILL_RESOURCE}. */
    public static final String READ_SKILL_RESOURCE_SCHEMA = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":"
            + "\"string\",\"minLength\":1,\"maxLength\":64,\"description\":\"The skill's name\"},\"path\":"
            + "{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,\"description\":\"A file of the skill,"
            + " relative to its directory, e.g. references/GUIDE.md\"}},\"required\":[\"name\",\"path\"],"
            + "\"additionalProperties\":false}";

    private static final CompiledSchema ACTIVATE_ARGS = compile(ACTIVATE_SKILL_SCHEMA);
    private static final CompiledSchema READ_ARGS = compile(READ_SKILL_RESOURCE_SCHEMA);

    private final SkillGate gate;
    private final ToolBinding binding;
    private final Set<String> activated = ConcurrentHashMap.newKeySet();

    private SkillTools(SkillGate gate, ToolBinding binding) {
        this.gate = Objects.requireNonNull(gate, "gate");
        this.binding = Objects.requireNonNull(binding, "binding");
    }

    /** The toolset of {@code gate} for {@code binding}. */
    public static SkillTools of(SkillGate gate, ToolBinding binding) {
        return new SkillTools(gate, binding);
    }

    /** What the host bound. */
    public ToolBinding binding() {
        return binding;
    }

    /**
     * The {@code <available_skills>} block of the gate's loadable skills, as {@link SkillCatalog}
     * renders it (the standard's shape, every value escaped); empty when there are none. Inert.
     */
    public String catalogPrompt() {
        List<SkillCatalog.Entry> entries = new ArrayList<>();
        for (SkillSummary s : gate.catalog()) {
            entries.add(new SkillCatalog.Entry(s.name(), s.description(), s.location(), s.modelInvocationDisabled()));
        }
        return SkillCatalog.ofEntries(entries).prompt();
    }

    /**
     * A system-prompt section: how the tools work, then {@link #catalogPrompt()}; empty when there
     * are no skills.
     */
    public String systemPrompt() {
        String catalog = catalogPrompt();
        if (catalog.isEmpty()) {
            return "";
        }
        return "Skills extend what you can do. Call " + ACTIVATE_SKILL
                + " with a skill's name to read its instructions before you use it, and "
                + READ_SKILL_RESOURCE + " for a file its instructions name. A skill with a script is also a"
                + " tool named after the skill; the user approves each run with its exact input, and a"
                + " refusal comes back as an error with a code.\n" + catalog;
    }

    /**
     * The skills whose script can be offered as a tool, by name: captured now (inert), with an
     * accepted manifest and input schema. Skills that cannot be captured or have no usable manifest
     * are prompt skills only and are not listed; nor are skills that set {@code
     * disable-model-invocation: true}, which are left out of {@link #catalogPrompt()} too.
     */
    public List<ExecutableSkill> executableSkills() {
        List<ExecutableSkill> out = new ArrayList<>();
        for (SkillSummary s : gate.catalog()) {
            Path dir = s.location().getParent();
            if (dir == null || s.modelInvocationDisabled()) {
                continue; // disable-model-invocation: true is never offered to the model (decision 0635)
            }
            CaptureOutcome outcome;
            try {
                outcome = SkillArtifact.capture(dir);
            } catch (RuntimeException e) {
                continue;
            }
            Optional<SkillArtifact> artifact = outcome.artifact();
            if (artifact.isEmpty()) {
                continue;
            }
            try (SkillArtifact a = artifact.get()) {
                if (a.executionAvailable() && a.inputSchema().isPresent()) {
                    out.add(new ExecutableSkill(
                            s.name(), s.description(), a.inputSchema().get().json(), a.revision()));
                }
            }
        }
        return List.copyOf(out);
    }

    /**
     * {@value #ACTIVATE_SKILL}: the captured {@code SKILL.md} text, after the trust contract was
     * checked against the binding's agent context and the human approved these exact bytes once
     * (through the gate's approval channel). Never runs anything.
     */
    public ToolResult activate(String name) {
        Objects.requireNonNull(name, "name");
        List<Diagnostic> broken = SkillName.check(name);
        if (!broken.isEmpty()) {
            return ToolResult.Failure.refused(ACTIVATE_SKILL, broken);
        }
        try {
            Activation activation = gate.activate(binding.agent(), name, binding.agentContext());
            if (activation instanceof Activation.Activated a) {
                activated.add(name);
                return new ToolResult.Success(a.instructions());
            }
            return ToolResult.Failure.refused(ACTIVATE_SKILL, ((Activation.Refused) activation).reasons());
        } catch (RuntimeException e) {
            return failed(ACTIVATE_SKILL, e);
        }
    }

    /** {@link #activate(String)} with the model's raw arguments ({@code {"name": …}}), checked strictly first. */
    public ToolResult activateCall(byte[] arguments) {
        Objects.requireNonNull(arguments, "arguments");
        Validation<?> valid = ACTIVATE_ARGS.checkInvocation(arguments);
        if (!valid.isValid()) {
            return ToolResult.Failure.refused(ACTIVATE_SKILL, valid.issues());
        }
        Optional<JsonNode> args = tree(arguments);
        if (args.isEmpty()) {
            return ToolResult.Failure.refused(ACTIVATE_SKILL, ErrorCode.JSON_SYNTAX, "", "the arguments are not JSON");
        }
        return activate(args.get().get("name").asString());
    }

    /**
     * {@value #READ_SKILL_RESOURCE}: one file of a skill this toolset activated, as UTF-8 text, at
     * most {@value #MAX_RESOURCE_BYTES} bytes, through the bounded reader (relative portable path,
     * no link anywhere, regular files only). Not covered by any approval: it is read from disk now.
     */
    public ToolResult readResource(String name, String path) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(path, "path");
        List<Diagnostic> broken = SkillName.check(name);
        if (!broken.isEmpty()) {
            return ToolResult.Failure.refused(READ_SKILL_RESOURCE, broken);
        }
        if (!activated.contains(name)) {
            return ToolResult.Failure.refused(
                    READ_SKILL_RESOURCE,
                    ErrorCode.SKILL_NOT_ACTIVATED,
                    "",
                    "call " + ACTIVATE_SKILL + " for this skill first");
        }
        try {
            Optional<Path> dir = directoryOf(name);
            if (dir.isEmpty()) {
                return ToolResult.Failure.refused(
                        READ_SKILL_RESOURCE, ErrorCode.SKILL_NOT_FOUND, "", "no loadable skill has that name");
            }
            BoundedReader reader = BoundedReader.forRoot(dir.get(), MAX_RESOURCE_BYTES);
            ReadOutcome<FileContent> read = reader.readText(path, MAX_RESOURCE_BYTES);
            if (read.value().isPresent() && read.value().get().text().isPresent()) {
                return new ToolResult.Success(read.value().get().text().get());
            }
            Diagnostic why =
                    read.diagnostic().orElse(Diagnostic.error(ErrorCode.READ_IO, path, "the file could not be read"));
            return ToolResult.Failure.refused(READ_SKILL_RESOURCE, List.of(why));
        } catch (RuntimeException e) {
            return failed(READ_SKILL_RESOURCE, e);
        }
    }

    /** {@link #readResource(String, String)} with the model's raw arguments, checked strictly first. */
    public ToolResult readResourceCall(byte[] arguments) {
        Objects.requireNonNull(arguments, "arguments");
        Validation<?> valid = READ_ARGS.checkInvocation(arguments);
        if (!valid.isValid()) {
            return ToolResult.Failure.refused(READ_SKILL_RESOURCE, valid.issues());
        }
        Optional<JsonNode> args = tree(arguments);
        if (args.isEmpty()) {
            return ToolResult.Failure.refused(
                    READ_SKILL_RESOURCE, ErrorCode.JSON_SYNTAX, "", "the arguments are not JSON");
        }
        return readResource(
                args.get().get("name").asString(), args.get().get("path").asString());
    }

    /**
     * A skill's tool: runs its script through {@link SkillGate#execute} with exactly these invocation
     * bytes (the model's arguments, not re-serialised) and the binding's run, agent, agent context,
     * workspace and caller deadline; the checked output on success.
     */
    public ToolResult execute(String skill, byte[] invocation) {
        Objects.requireNonNull(skill, "skill");
        Objects.requireNonNull(invocation, "invocation");
        List<Diagnostic> broken = SkillName.check(skill);
        if (!broken.isEmpty()) {
            return ToolResult.Failure.refused(skill, broken);
        }
        try {
            return result(skill, gate.execute(request(skill, invocation)));
        } catch (RuntimeException e) {
            return failed(skill, e);
        }
    }

    /**
     * {@link #execute} started on the engine's own thread (for adapters whose framework confirms a
     * call across turns). Empty when {@code skill} is not a valid skill name.
     */
    public Optional<PendingExecution> executeAsync(String skill, byte[] invocation) {
        Objects.requireNonNull(skill, "skill");
        Objects.requireNonNull(invocation, "invocation");
        if (!SkillName.isValid(skill)) {
            return Optional.empty();
        }
        return Optional.of(gate.executeAsync(request(skill, invocation)));
    }

    /** The execution request of one tool call: the invocation bytes with everything else from the binding. */
    public ExecutionRequest request(String skill, byte[] invocation) {
        return new ExecutionRequest(
                binding.run(),
                binding.agent(),
                SkillName.of(skill),
                invocation,
                binding.workspace(),
                binding.callerDeadline(),
                Optional.of(binding.agentContext()));
    }

    /** The tool result of an envelope: the checked output, or the envelope's status and diagnostics. */
    public static ToolResult result(String tool, ExecutionEnvelope envelope) {
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(envelope, "envelope");
        if (envelope.succeeded()) {
            return new ToolResult.Success(envelope.output().orElseThrow());
        }
        return new ToolResult.Failure(tool, envelope.status(), envelope.errors());
    }

    /** The tool result of an unexpected exception: {@code TOOL_CALL_FAILED}, naming only its type. */
    public static ToolResult failed(String tool, Throwable error) {
        return ToolResult.Failure.refused(
                tool,
                ErrorCode.TOOL_CALL_FAILED,
                "",
                "the adapter failed closed (" + error.getClass().getSimpleName() + ")");
    }

    /** The model's arguments as exact invocation bytes: plain maps serialised once, compactly. */
    public static Optional<byte[]> argumentBytes(Map<String, ?> arguments) {
        if (arguments == null || !Json.isPlain(arguments, 0)) {
            return Optional.empty();
        }
        try {
            return Optional.of(Json.writeBytes(arguments));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    private Optional<Path> directoryOf(String name) {
        for (SkillSummary s : gate.catalog()) {
            if (s.name().equals(name)) {
                return Optional.ofNullable(s.location().getParent());
            }
        }
        return Optional.empty();
    }

    private static Optional<JsonNode> tree(byte[] arguments) {
        try {
            return Optional.of(Json.read(new String(arguments, StandardCharsets.UTF_8)));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    private static CompiledSchema compile(String schema) {
        return SchemaGate.compile(SchemaRole.INPUT, schema)
                .compiled()
                .orElseThrow(() -> new IllegalStateException("a built-in tool schema does not compile"));
    }

    @Override
    public String toString() {
        return "SkillTools[" + gate + ", run=" + binding.run() + ", agent=" + binding.agent() + "]";
    }
}
