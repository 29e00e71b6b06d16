package dev.skillgate.mcp;

import dev.skillgate.engine.SkillGate;
import dev.skillgate.engine.SkillSummary;
import dev.skillgate.inspect.BoundedReader;
import dev.skillgate.inspect.CaptureOutcome;
import dev.skillgate.inspect.CapturedFile;
import dev.skillgate.inspect.FileContent;
import dev.skillgate.inspect.ReadOutcome;
import dev.skillgate.inspect.SkillArtifact;
import dev.skillgate.model.Limits;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.tools.ExecutableSkill;
import dev.skillgate.tools.SkillTools;
import dev.skillgate.tools.ToolBinding;
import dev.skillgate.tools.ToolResult;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.McpSyncServerExchange;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpServerTransportProvider;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import org.apiguardian.api.API;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * Skillgate as an MCP server (MCP Java SDK), in the shape of SEP-2640 ("Skills over MCP") as far as
 * the SDK's public API lets a server serve it.
 *
 * <ul>
 *   <li><b>Resources</b>: every file of a skill's capture (SKILL.md, the manifest, the contract,
 *       every declared file) is the resource {@code skill://<skill>/<path>}; its listing carries the
 *       captured size (the MCP {@code size} field) and {@code _meta["dev.skillgate/digest"] =
 *       "sha256:<hex>"}, the capture's own digest, plus the capture's revision. A read re-reads the
 *       file through the bounded, link-refusing reader and serves it only when its SHA-256 still
 *       equals the listed digest; otherwise the listing is refreshed (a {@code
 *       notifications/resources/list_changed} follows) and the read fails, so a client never holds
 *       bytes that differ from the digest it was shown.
 *   <li><b>Tools</b>: {@value SkillTools#ACTIVATE_SKILL}, {@value SkillTools#READ_SKILL_RESOURCE}
 *       and one tool per executable skill whose {@code inputSchema} is the skill's (exact numbers).
 *       The SDK's own input validation is off: the engine validates every call against the captured
 *       schema, with Skillgate's codes. Results are {@code CallToolResult}s, {@code isError} set for
 *       every refusal, denial, timeout or failure, never a protocol error.
 *   <li><b>Approval</b>: through the gate's approval channel — the host's, or {@link
 *       McpElicitationApprovals} on the calling session. A changed file is a new revision: the
 *       engine asks again, showing the new digests.
 * </ul>
 *
 * <p>Not served, because the SDK (2.1.0) has no public API for custom request methods: {@code
 * skills/list}, {@code skills/get} and {@code resources/directory/read}; and the {@code
 * io.modelcontextprotocol/skills} extension capability is therefore not advertised (see {@link
 * #UNSERVED_SEP_2640_METHODS}). Files the manifest does not declare are not captured, so they are
 * not resources; {@value SkillTools#READ_SKILL_RESOURCE} reads them (unapproved, for activated
 * skills). The binding (run, agent, context, workspace) is the host's: the client cannot choose
 * it. Not a sandbox. One server per adapter; nothing static.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class SkillgateMcpServer implements AutoCloseable {
    /** SEP-2640 methods this server cannot serve through the SDK's public API. */
    public static final List<String> UNSERVED_SEP_2640_METHODS =
            List.of("skills/list", "skills/get", "resources/directory/read");

    /** The {@code _meta} key of a resource's SHA-256 digest ({@code sha256:<hex>}). */
    public static final String DIGEST_META = "dev.skillgate/digest";

    /** The {@code _meta} key of the revision of the capture a resource belongs to. */
    public static final String REVISION_META = "dev.skillgate/revision";

    /** The URI scheme of skill files. */
    public static final String SCHEME = "skill://";

    private static final JsonMapper SCHEMAS = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
            .build();

    private final SkillTools tools;
    private final SkillGate gate;
    private final Optional<McpElicitationApprovals> elicitation;
    private final String name;
    private final String version;
    private final Duration requestTimeout;

    private McpSyncServer server;
    private Map<String, Listed> listed = Map.of();
    private Map<String, String> toolSchemas = Map.of();
    private final Map<String, String> descriptions = new java.util.concurrent.ConcurrentHashMap<>();

    /** One listed file: where it lives and what the listing promised. */
    private record Listed(String uri, Path skillDir, String path, long size, Sha256Digest digest, String revision) {}

    private SkillgateMcpServer(Builder b) {
        this.gate = b.gate;
        this.tools = SkillTools.of(b.gate, b.binding);
        this.elicitation = Optional.ofNullable(b.elicitation);
        this.name = b.name;
        this.version = b.version;
        this.requestTimeout = b.requestTimeout;
    }

    /** A builder for {@code gate}'s skills under {@code binding}. */
    public static Builder builder(SkillGate gate, ToolBinding binding) {
        return new Builder(gate, binding);
    }

    /**
     * Builds and starts the MCP server on {@code transport} with the current skills.
     *
     * @throws IllegalStateException when this adapter already serves
     */
    public synchronized McpSyncServer serve(McpServerTransportProvider transport) {
        Objects.requireNonNull(transport, "transport");
        if (server != null) {
            throw new IllegalStateException("this adapter already serves; build another one per server");
        }
        // Everything is registered before the transport accepts the first request.
        Map<String, Listed> resources = captureListing();
        Map<String, String> schemas = toolSchemas();
        List<McpServerFeatures.SyncToolSpecification> toolSpecs = new java.util.ArrayList<>();
        for (Map.Entry<String, String> t : schemas.entrySet()) {
            toolSpec(t.getKey(), t.getValue()).ifPresent(toolSpecs::add);
        }
        server = McpServer.sync(transport)
                .serverInfo(name, version)
                .instructions(tools.systemPrompt())
                .capabilities(McpSchema.ServerCapabilities.builder()
                        .resources(false, true)
                        .tools(true)
                        .build())
                .validateToolInputs(false)
                .requestTimeout(requestTimeout)
                .resources(resources.values().stream()
                        .map(l -> new McpServerFeatures.SyncResourceSpecification(resource(l), reader(l)))
                        .toList())
                .tools(toolSpecs)
                .build();
        listed = resources;
        toolSchemas = schemas;
        return server;
    }

    /**
     * Re-captures every skill and updates the resources and tools: a changed, added or removed file
     * changes the listing, and clients are notified. Also runs before a read of a file whose bytes no
     * longer match their listing.
     */
    public synchronized void refresh() {
        if (server == null) {
            throw new IllegalStateException("not serving");
        }
        Map<String, Listed> now = captureListing();
        boolean changed = false;
        for (Listed old : listed.values()) {
            Listed current = now.get(old.uri());
            if (current == null || !current.equals(old)) {
                server.removeResource(old.uri());
                changed = true;
            }
        }
        for (Listed l : now.values()) {
            if (!l.equals(listed.get(l.uri()))) {
                server.addResource(new McpServerFeatures.SyncResourceSpecification(resource(l), reader(l)));
                changed = true;
            }
        }
        listed = now;
        if (changed) {
            server.notifyResourcesListChanged();
        }
        refreshTools();
    }

    /** The current listing, by URI. */
    public synchronized List<McpSchema.Resource> resources() {
        return listed.values().stream().map(SkillgateMcpServer::resource).toList();
    }

    private void refreshTools() {
        Map<String, String> now = toolSchemas();
        boolean changed = false;
        for (Map.Entry<String, String> old : toolSchemas.entrySet()) {
            if (!old.getValue().equals(now.get(old.getKey()))) {
                server.removeTool(old.getKey());
                changed = true;
            }
        }
        for (Map.Entry<String, String> t : now.entrySet()) {
            if (t.getValue().equals(toolSchemas.get(t.getKey()))) {
                continue;
            }
            Optional<McpServerFeatures.SyncToolSpecification> spec = toolSpec(t.getKey(), t.getValue());
            if (spec.isPresent()) {
                server.addTool(spec.get());
                changed = true;
            }
        }
        toolSchemas = now;
        if (changed) {
            server.notifyToolsListChanged();
        }
    }

    /** Tool name to schema text: the two built-in tools, then one per executable skill. */
    private Map<String, String> toolSchemas() {
        Map<String, String> now = new LinkedHashMap<>();
        now.put(SkillTools.ACTIVATE_SKILL, SkillTools.ACTIVATE_SKILL_SCHEMA);
        now.put(SkillTools.READ_SKILL_RESOURCE, SkillTools.READ_SKILL_RESOURCE_SCHEMA);
        descriptions.clear();
        for (ExecutableSkill s : tools.executableSkills()) {
            now.put(s.name(), s.inputSchemaJson());
            descriptions.put(s.name(), s.toolDescription());
        }
        return now;
    }

    /** The tool's specification; empty when its schema cannot be carried as a map (not offered). */
    private Optional<McpServerFeatures.SyncToolSpecification> toolSpec(String tool, String schemaJson) {
        Optional<Map<String, Object>> schema = schemaMap(schemaJson);
        if (schema.isEmpty()) {
            return Optional.empty();
        }
        String description = switch (tool) {
            case SkillTools.ACTIVATE_SKILL ->
                "Returns a skill's instructions (its SKILL.md) once the user has"
                        + " approved them. Call it before using a skill.";
            case SkillTools.READ_SKILL_RESOURCE ->
                "Reads one file of an activated skill that is not listed as a"
                        + " resource (an undeclared reference or asset).";
            default -> descriptions.getOrDefault(tool, tool);
        };
        return Optional.of(McpServerFeatures.SyncToolSpecification.builder()
                .tool(McpSchema.Tool.builder()
                        .name(tool)
                        .description(description)
                        .inputSchema(schema.get())
                        .build())
                .callHandler(handler(tool))
                .build());
    }

    private BiFunction<McpSyncServerExchange, McpSchema.CallToolRequest, McpSchema.CallToolResult> handler(
            String tool) {
        return (exchange, request) -> {
            ToolResult result;
            try {
                result = call(tool, exchange, request);
            } catch (RuntimeException e) {
                result = SkillTools.failed(tool, e);
            }
            return McpSchema.CallToolResult.builder()
                    .content(List.of(new McpSchema.TextContent(result.text())))
                    .isError(result.isError())
                    .build();
        };
    }

    private ToolResult call(String tool, McpSyncServerExchange exchange, McpSchema.CallToolRequest request) {
        Map<String, Object> arguments = request.arguments() == null ? Map.of() : request.arguments();
        Optional<byte[]> bytes = SkillTools.argumentBytes(arguments);
        if (bytes.isEmpty()) {
            return ToolResult.Failure.refused(
                    tool, dev.skillgate.model.ErrorCode.JSON_SYNTAX, "", "the arguments are not plain JSON values");
        }
        return switch (tool) {
            case SkillTools.ACTIVATE_SKILL -> {
                Object skill = arguments.get("name");
                try (McpElicitationApprovals.Registration r =
                        registration(McpElicitationApprovals.activationKey(String.valueOf(skill)), exchange)) {
                    yield tools.activateCall(bytes.get());
                }
            }
            case SkillTools.READ_SKILL_RESOURCE -> tools.readResourceCall(bytes.get());
            default -> {
                String key = McpElicitationApprovals.executionKey(
                        tool, Sha256Digest.hash(bytes.get()).toString());
                try (McpElicitationApprovals.Registration r = registration(key, exchange)) {
                    yield tools.execute(tool, bytes.get());
                }
            }
        };
    }

    private McpElicitationApprovals.Registration registration(String key, McpSyncServerExchange exchange) {
        return elicitation.map(e -> e.register(key, exchange)).orElse(() -> {});
    }

    private BiFunction<McpSyncServerExchange, McpSchema.ReadResourceRequest, McpSchema.ReadResourceResult> reader(
            Listed l) {
        return (exchange, request) -> {
            ReadOutcome<FileContent> read =
                    BoundedReader.forRoot(l.skillDir(), Limits.FILE_BYTES).readBytes(l.path(), Limits.FILE_BYTES);
            if (read.value().isEmpty()) {
                throw McpError.builder(McpSchema.ErrorCodes.RESOURCE_NOT_FOUND)
                        .message(l.uri() + " cannot be read: "
                                + read.diagnostic().map(d -> d.code().name()).orElse("READ_IO"))
                        .build();
            }
            byte[] bytes = read.value().get().bytes();
            Sha256Digest digest = Sha256Digest.hash(bytes);
            if (!digest.equals(l.digest())) {
                refresh();
                throw McpError.builder(McpSchema.ErrorCodes.INVALID_PARAMS)
                        .message(l.uri() + " changed since it was listed (listed " + l.digest() + ", now " + digest
                                + "); the resource list was refreshed: list again")
                        .build();
            }
            Map<String, Object> meta = Map.of(DIGEST_META, digest.toString(), REVISION_META, l.revision());
            McpSchema.ResourceContents contents = utf8(bytes)
                    .<McpSchema.ResourceContents>map(
                            text -> new McpSchema.TextResourceContents(l.uri(), mimeType(l.path()), text, meta))
                    .orElseGet(() -> new McpSchema.BlobResourceContents(
                            l.uri(), mimeType(l.path()), Base64.getEncoder().encodeToString(bytes), meta));
            return new McpSchema.ReadResourceResult(List.of(contents));
        };
    }

    private Map<String, Listed> captureListing() {
        Map<String, Listed> out = new LinkedHashMap<>();
        for (SkillSummary s : gate.catalog()) {
            Path dir = s.location().getParent();
            if (dir == null) {
                continue;
            }
            CaptureOutcome outcome;
            try {
                outcome = SkillArtifact.capture(dir);
            } catch (RuntimeException e) {
                continue;
            }
            if (outcome.artifact().isEmpty()) {
                continue;
            }
            try (SkillArtifact a = outcome.artifact().get()) {
                for (CapturedFile f : a.files()) {
                    String uri = SCHEME + s.name() + "/" + f.path().value();
                    out.put(
                            uri,
                            new Listed(
                                    uri,
                                    dir,
                                    f.path().value(),
                                    f.size(),
                                    f.sha256(),
                                    a.revision().toString()));
                }
            }
        }
        return out;
    }

    private static McpSchema.Resource resource(Listed l) {
        String path = l.path();
        return McpSchema.Resource.builder()
                .uri(l.uri())
                .name(path.substring(path.lastIndexOf('/') + 1))
                .mimeType(mimeType(path))
                .size(l.size())
                .meta(Map.of(DIGEST_META, l.digest().toString(), REVISION_META, l.revision()))
                .build();
    }

    private static String mimeType(String path) {
        if (path.endsWith(".md")) {
            return "text/markdown";
        }
        if (path.endsWith(".json")) {
            return "application/json";
        }
        if (path.endsWith(".mjs") || path.endsWith(".cjs") || path.endsWith(".js")) {
            return "text/javascript";
        }
        if (path.endsWith(".txt")) {
            return "text/plain";
        }
        return "application/octet-stream";
    }

    private static Optional<String> utf8(byte[] bytes) {
        try {
            return Optional.of(StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }

    /** The schema as a map with exact numbers (big decimals), or empty when it is not an object. */
    @SuppressWarnings("unchecked")
    static Optional<Map<String, Object>> schemaMap(String schemaJson) {
        try {
            Object value = SCHEMAS.readValue(schemaJson, Object.class);
            return value instanceof Map<?, ?> m ? Optional.of((Map<String, Object>) m) : Optional.empty();
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Closes the MCP server (the gate is the host's and stays open). */
    @Override
    public synchronized void close() {
        if (server != null) {
            server.closeGracefully();
        }
    }

    @Override
    public String toString() {
        return "SkillgateMcpServer[" + tools + "]";
    }

    /** Configures a {@link SkillgateMcpServer}. */
    public static final class Builder {
        private final SkillGate gate;
        private final ToolBinding binding;
        private McpElicitationApprovals elicitation;
        private String name = "skillgate";
        private String version = "0.1.0";
        private Duration requestTimeout = Duration.ofMinutes(6);

        private Builder(SkillGate gate, ToolBinding binding) {
            this.gate = Objects.requireNonNull(gate, "gate");
            this.binding = Objects.requireNonNull(binding, "binding");
        }

        /**
         * Routes the approval requests a tool call causes to that call's MCP session: the same
         * instance must be the gate's approval channel.
         */
        public Builder elicitation(McpElicitationApprovals approvals) {
            this.elicitation = Objects.requireNonNull(approvals, "approvals");
            return this;
        }

        /** The server's name and version as clients see them. */
        public Builder serverInfo(String name, String version) {
            this.name = Objects.requireNonNull(name, "name");
            this.version = Objects.requireNonNull(version, "version");
            return this;
        }

        /**
         * How long a request to the client (an elicitation) may take (default 6 minutes: longer than
         * the 5-minute consent window, which bounds the human's answer).
         */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** The adapter; call {@link SkillgateMcpServer#serve} to start it. */
        public SkillgateMcpServer build() {
            return new SkillgateMcpServer(this);
        }
    }
}
