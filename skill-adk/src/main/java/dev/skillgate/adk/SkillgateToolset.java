package dev.skillgate.adk;

import com.google.adk.agents.ReadonlyContext;
import com.google.adk.models.LlmRequest;
import com.google.adk.tools.BaseTool;
import com.google.adk.tools.BaseToolset;
import com.google.adk.tools.ToolContext;
import com.google.genai.types.FunctionDeclaration;
import dev.skillgate.consent.ActivationApprovalRequest;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.engine.SkillGate;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.tools.ApprovalFacts;
import dev.skillgate.tools.ExecutableSkill;
import dev.skillgate.tools.SkillTools;
import dev.skillgate.tools.ToolBinding;
import dev.skillgate.tools.ToolResult;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Flowable;
import io.reactivex.rxjava3.core.Single;
import io.reactivex.rxjava3.schedulers.Schedulers;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.apiguardian.api.API;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * Skillgate as a Google ADK toolset: the tools ADK's own {@code SkillToolset} prompt names — {@value
 * #LIST_SKILLS}, {@value #LOAD_SKILL}, {@value #LOAD_SKILL_RESOURCE} and the {@value
 * #RUN_SKILL_SCRIPT} that ADK for Java does not ship — backed by Skillgate, plus one tool per
 * executable skill whose parameters are the skill's {@code inputSchema} exactly
 * ({@code FunctionDeclaration.parametersJsonSchema}, numbers as written).
 *
 * <pre>{@code
 * AdkApprovals approvals = AdkApprovals.create();
 * SkillGate gate = SkillGate.builder()...approvalChannel(approvals).build();
 * LlmAgent agent = LlmAgent.builder().name("assistant").model(model)
 *     .tools(new SkillgateToolset(gate, ToolBinding.of(run, agent, context, workspace), approvals))
 *     .build();
 * }</pre>
 *
 * <p>{@value #LOAD_SKILL} returns the approved {@code SKILL.md} text of the capture ({@code
 * SkillGate.activate}); {@value #RUN_SKILL_SCRIPT} ({@code skill_name}, {@code input}) and the
 * per-skill tools run {@code SkillGate.execute} — never a shell, never a fallback. When the engine
 * asks for approval, the tool requests ADK's confirmation of its own call (hint: the full approval
 * text; payload: the same facts) and returns {@code AWAITING_APPROVAL}; ADK re-invokes it with the
 * user's answer, and it returns the outcome (see {@link AdkApprovals}). Refusals, denials, timeouts
 * and failures are function responses with {@code error_code} and Skillgate's error object, never
 * exceptions. The model cannot choose the run, agent, context, workspace, limits or policy. Not a
 * sandbox. One toolset per host binding.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class SkillgateToolset implements BaseToolset {
    /** Lists the skills ({@code <available_skills>}). */
    public static final String LIST_SKILLS = "list_skills";

    /** Returns a skill's approved instructions. */
    public static final String LOAD_SKILL = "load_skill";

    /** Reads one file of an activated skill. */
    public static final String LOAD_SKILL_RESOURCE = "load_skill_resource";

    /** Runs an executable skill's script with an input (validated against that skill's schema). */
    public static final String RUN_SKILL_SCRIPT = "run_skill_script";

    /** Most tool calls waiting for the user's confirmation at once; the oldest is denied beyond it. */
    public static final int MAX_WAITING = 256;

    private static final JsonMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
            .build();

    private final SkillTools tools;
    private final AdkApprovals approvals;
    private final Map<String, Confirming> confirming = new ConcurrentHashMap<>();
    private final ExecutorService activations = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "skillgate-adk-activation");
        t.setDaemon(true);
        return t;
    });

    /** A tool call whose approval request was shown; ADK will re-invoke it with the answer. */
    private record Confirming(AdkApprovals.Waiting waiting, CompletableFuture<ToolResult> outcome, long since) {}

    /**
     * The toolset of {@code gate} for {@code binding}; {@code approvals} must be the gate's approval
     * channel.
     */
    public SkillgateToolset(SkillGate gate, ToolBinding binding, AdkApprovals approvals) {
        this.tools = SkillTools.of(gate, binding);
        this.approvals = Objects.requireNonNull(approvals, "approvals");
    }

    /** The {@code <available_skills>} block (empty without skills). */
    public String catalogPrompt() {
        return tools.catalogPrompt();
    }

    @Override
    public Flowable<BaseTool> getTools(ReadonlyContext readonlyContext) {
        List<BaseTool> out = new ArrayList<>();
        List<ExecutableSkill> executable = tools.executableSkills();
        out.add(tool(
                LIST_SKILLS,
                "Lists the available skills with their names and descriptions.",
                "{\"type\":\"object\",\"properties\":{}}",
                (args, ctx) -> Map.of("skills_xml", tools.catalogPrompt())));
        out.add(tool(
                LOAD_SKILL,
                "Loads a skill's SKILL.md instructions once the user has approved them.",
                "{\"type\":\"object\",\"properties\":{\"skill_name\":{\"type\":\"string\",\"description\":\"The"
                        + " skill's name\"}},\"required\":[\"skill_name\"]}",
                (args, ctx) -> {
                    String name = String.valueOf(args.get("skill_name"));
                    return gated(
                            LOAD_SKILL,
                            AdkApprovals.activationKey(name),
                            ctx,
                            () -> CompletableFuture.supplyAsync(() -> tools.activate(name), activations),
                            r -> Map.of("skill_name", name, "instructions", r.text()));
                }));
        out.add(tool(
                LOAD_SKILL_RESOURCE,
                "Reads one file of a loaded skill, e.g. references/*.md or assets/*.",
                "{\"type\":\"object\",\"properties\":{\"skill_name\":{\"type\":\"string\"},\"path\":{\"type\":"
                        + "\"string\",\"description\":\"Relative to the skill directory\"}},\"required\":"
                        + "[\"skill_name\",\"path\"]}",
                (args, ctx) -> {
                    String name = String.valueOf(args.get("skill_name"));
                    String path = String.valueOf(args.get("path"));
                    return response(
                            LOAD_SKILL_RESOURCE,
                            tools.readResource(name, path),
                            r -> Map.of("skill_name", name, "path", path, "content", r.text()));
                }));
        out.add(tool(RUN_SKILL_SCRIPT, runDescription(executable), runSchema(executable), (args, ctx) -> {
            String skill = String.valueOf(args.get("skill_name"));
            Object input = args.get("input");
            if (!(input instanceof Map<?, ?> map)) {
                return response(
                        RUN_SKILL_SCRIPT,
                        ToolResult.Failure.refused(
                                RUN_SKILL_SCRIPT, ErrorCode.JSON_ROOT_NOT_OBJECT, "/input", "input is an object"),
                        r -> Map.of());
            }
            @SuppressWarnings("unchecked")
            Map<String, ?> typed = (Map<String, ?>) map;
            return run(skill, typed, ctx);
        }));
        for (ExecutableSkill s : executable) {
            String name = s.name();
            out.add(tool(name, s.toolDescription(), s.inputSchemaJson(), (args, ctx) -> run(name, args, ctx)));
        }
        return Flowable.fromIterable(out);
    }

    /** Adds Skillgate's instructions and the catalog to the model request. */
    @Override
    public Completable processLlmRequest(LlmRequest.Builder llmRequestBuilder, ToolContext toolContext) {
        return Completable.fromAction(() -> {
            String prompt = tools.systemPrompt();
            if (!prompt.isEmpty()) {
                llmRequestBuilder.appendInstructions(List.of(prompt.replace(SkillTools.ACTIVATE_SKILL, LOAD_SKILL)
                        .replace(SkillTools.READ_SKILL_RESOURCE, LOAD_SKILL_RESOURCE)));
            }
        });
    }

    private Map<String, Object> run(String skill, Map<String, ?> input, ToolContext ctx) {
        Optional<byte[]> bytes = SkillTools.argumentBytes(input);
        if (bytes.isEmpty()) {
            return response(
                    skill,
                    ToolResult.Failure.refused(skill, ErrorCode.JSON_SYNTAX, "", "the input is not plain JSON values"),
                    r -> Map.of());
        }
        String key =
                AdkApprovals.executionKey(skill, Sha256Digest.hash(bytes.get()).toString());
        return gated(
                skill,
                key,
                ctx,
                () -> tools.executeAsync(skill, bytes.get())
                        .map(p -> p.outcome()
                                .thenApply(env -> SkillTools.result(skill, env))
                                .toCompletableFuture())
                        .orElseGet(() -> CompletableFuture.completedFuture(ToolResult.Failure.refused(
                                skill, ErrorCode.SKILL_NOT_FOUND, "", "not a valid skill name"))),
                r -> outputOf(r.text()));
    }

    /**
     * One gated call: a re-invocation with the user's confirmation answers the waiting approval and
     * returns the outcome; a first invocation starts the call and returns its outcome, or — when the
     * engine asks for approval — requests ADK's confirmation and returns {@code AWAITING_APPROVAL}.
     */
    private Map<String, Object> gated(
            String tool,
            String key,
            ToolContext ctx,
            Supplier<CompletableFuture<ToolResult>> start,
            java.util.function.Function<ToolResult, Map<String, Object>> success) {
        Optional<String> callId = ctx == null ? Optional.empty() : ctx.functionCallId();
        if (ctx != null && ctx.toolConfirmation().isPresent()) {
            Confirming c = callId.map(confirming::remove).orElse(null);
            if (c == null) {
                return response(
                        tool,
                        ToolResult.Failure.refused(
                                tool,
                                ErrorCode.UNKNOWN_PROPOSAL,
                                "",
                                "no approval of this call is waiting (it expired, or the process restarted)"),
                        success);
            }
            boolean confirmed = ctx.toolConfirmation().get().confirmed();
            c.waiting()
                    .answer
                    .complete(
                            confirmed
                                    ? AdkApprovals.approvalOf(c.waiting().asked.getNow(null))
                                    : ApprovalDecision.deny("declined in the ADK confirmation"));
            return response(tool, c.outcome().join(), success);
        }
        AdkApprovals.Waiting w = approvals.register(key);
        CompletableFuture<ToolResult> outcome;
        try {
            outcome = start.get();
        } catch (RuntimeException e) {
            approvals.unregister(key, w);
            return response(tool, SkillTools.failed(tool, e), success);
        }
        CompletableFuture.anyOf(w.asked, outcome).join();
        approvals.unregister(key, w);
        if (!w.asked.isDone()) {
            return response(tool, outcome.join(), success);
        }
        Object request = w.asked.join();
        if (callId.isEmpty()) {
            w.answer.complete(new ApprovalDecision.Denied(
                    ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, "the ADK call has no id to confirm"));
            return response(tool, outcome.join(), success);
        }
        evictIfFull();
        confirming.put(callId.get(), new Confirming(w, outcome, System.nanoTime()));
        String hint;
        Map<String, Object> payload;
        if (request instanceof ApprovalRequest r) {
            hint = ApprovalFacts.text(r);
            payload = ApprovalFacts.values(r);
        } else {
            ActivationApprovalRequest r = (ActivationApprovalRequest) request;
            hint = ApprovalFacts.text(r);
            payload = ApprovalFacts.values(r);
        }
        ctx.requestConfirmation(hint, payload);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("status", "AWAITING_APPROVAL");
        out.put("message", "The user must approve this exact call; it runs only after they confirm.");
        return out;
    }

    private void evictIfFull() {
        while (confirming.size() >= MAX_WAITING) {
            confirming.entrySet().stream()
                    .min((a, b) ->
                            Long.compare(a.getValue().since(), b.getValue().since()))
                    .ifPresent(oldest -> {
                        if (confirming.remove(oldest.getKey(), oldest.getValue())) {
                            oldest.getValue()
                                    .waiting()
                                    .answer
                                    .complete(new ApprovalDecision.Denied(
                                            ErrorCode.CONSENT_CHANNEL_UNAVAILABLE,
                                            "too many calls waiting for confirmation"));
                        }
                    });
        }
    }

    private static Map<String, Object> response(
            String tool, ToolResult result, java.util.function.Function<ToolResult, Map<String, Object>> success) {
        if (!result.isError()) {
            try {
                return success.apply(result);
            } catch (RuntimeException e) {
                result = SkillTools.failed(tool, e);
            }
        }
        ToolResult.Failure f = (ToolResult.Failure) result;
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("status", f.status().name());
        out.put("error_code", f.codes().get(0).name());
        out.put("error", plain(f.text()));
        return out;
    }

    private static Map<String, Object> outputOf(String json) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("status", "SUCCEEDED");
        out.put("output", plain(json));
        return out;
    }

    private static Object plain(String json) {
        try {
            return JSON.readValue(json, Object.class);
        } catch (RuntimeException e) {
            return json;
        }
    }

    private static String runDescription(List<ExecutableSkill> executable) {
        StringBuilder d = new StringBuilder("Runs a skill's script after the user approves this exact input."
                + " input must satisfy that skill's inputSchema:");
        for (ExecutableSkill s : executable) {
            d.append("\n- ").append(s.name()).append(": ").append(s.inputSchemaJson());
        }
        return d.toString();
    }

    private static String runSchema(List<ExecutableSkill> executable) {
        Map<String, Object> skill = new LinkedHashMap<>();
        skill.put("type", "string");
        skill.put("enum", executable.stream().map(ExecutableSkill::name).toList());
        Map<String, Object> input = new LinkedHashMap<>();
        input.put("type", "object");
        input.put("description", "The skill's input, exactly as its inputSchema requires");
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("skill_name", skill);
        props.put("input", input);
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", props);
        schema.put("required", List.of("skill_name", "input"));
        return JSON.writeValueAsString(schema);
    }

    /** A tool call's body. */
    @FunctionalInterface
    private interface Body {
        Map<String, Object> call(Map<String, Object> args, ToolContext ctx);
    }

    private static BaseTool tool(String name, String description, String schemaJson, Body body) {
        return new GatedTool(name, description, schemaJson, body);
    }

    /** An ADK tool whose body runs off the caller's thread and never throws at the runner. */
    private static final class GatedTool extends BaseTool {
        private final Object schema;
        private final Body body;

        GatedTool(String name, String description, String schemaJson, Body body) {
            super(name, description);
            this.schema = plain(schemaJson);
            this.body = body;
        }

        @Override
        public Optional<FunctionDeclaration> declaration() {
            return Optional.of(FunctionDeclaration.builder()
                    .name(name())
                    .description(description())
                    .parametersJsonSchema(schema)
                    .build());
        }

        @Override
        public Single<Map<String, Object>> runAsync(Map<String, Object> args, ToolContext toolContext) {
            Map<String, Object> safeArgs = args == null ? Map.of() : args;
            return Single.fromCallable(() -> {
                        try {
                            return body.call(safeArgs, toolContext);
                        } catch (RuntimeException e) {
                            return response(name(), SkillTools.failed(name(), e), r -> Map.of());
                        }
                    })
                    .subscribeOn(Schedulers.io());
        }
    }

    /** Denies every call still waiting for a confirmation and stops the activation threads. */
    @Override
    public void close() {
        for (Confirming c : confirming.values()) {
            c.waiting()
                    .answer
                    .complete(new ApprovalDecision.Denied(
                            ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, "the toolset was closed"));
        }
        confirming.clear();
        activations.shutdownNow();
    }

    @Override
    public String toString() {
        return "SkillgateToolset[" + tools + "]";
    }
}
