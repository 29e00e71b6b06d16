package dev.skillgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.inspect.CaptureOutcome;
import dev.skillgate.inspect.CapturedFile;
import dev.skillgate.inspect.SkillArtifact;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.testkit.SkillBundle;
import dev.skillgate.testkit.TestNode;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

/**
 * An MCP client from the MCP SDK talking to the skill-mcp server in a child JVM over stdio (a real
 * transport), the server running a real gate: real {@code node} under the Linux supervisor, approvals
 * as MCP elicitations answered by this client.
 */
class SkillgateMcpServerTest {
    private static final String HOST = dev.skillgate.mcp.example.McpStdioHost.class.getName();

    @TempDir
    Path tmp;

    private final String marker = "sgmcp-" + UUID.randomUUID().toString().substring(0, 12);
    private Path skills;
    private Path workspace;
    private Path skillDir;
    private McpSyncClient client;
    private final Deque<Function<McpSchema.ElicitFormRequest, McpSchema.ElicitResult>> answers = new ArrayDeque<>();
    private final List<McpSchema.ElicitFormRequest> elicitations = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        Path base = Files.createDirectories(tmp.resolve(marker + " dir"));
        skills = Files.createDirectories(base.resolve("skills"));
        workspace = Files.createDirectories(base.resolve("workspace"));
        skillDir = Probe.write(SkillBundle.under(skills, Probe.NAME));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path node = TestNode.binary().orElseThrow();
        ServerParameters params = ServerParameters.builder(java)
                .args(
                        "-Xshare:auto",
                        "-cp",
                        System.getProperty("java.class.path"),
                        HOST,
                        skills.toString(),
                        base.resolve("data").toString(),
                        workspace.toString(),
                        node.toString(),
                        TestNode.version(node).orElseThrow())
                .build();
        StdioClientTransport transport = new StdioClientTransport(params, McpJsonDefaults.getMapper());
        transport.setStdErrorHandler(line -> System.err.println("mcp server: " + line));
        client = McpClient.sync(transport)
                .requestTimeout(Duration.ofSeconds(120))
                .initializationTimeout(Duration.ofSeconds(60))
                .capabilities(
                        McpSchema.ClientCapabilities.builder().elicitation().build())
                .elicitation(request -> {
                    synchronized (elicitations) {
                        elicitations.add(request);
                    }
                    Function<McpSchema.ElicitFormRequest, McpSchema.ElicitResult> answer = answers.poll();
                    return answer == null ? decline(request) : answer.apply(request);
                })
                .build();
        client.initialize();
    }

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.closeGracefully();
        }
        assertThat(Survivors.await(marker, Duration.ofSeconds(30)))
                .as("processes left behind")
                .isEmpty();
    }

    private static McpSchema.ElicitResult approve(McpSchema.ElicitFormRequest request) {
        return new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, Map.of("approve", true));
    }

    private static McpSchema.ElicitResult decline(McpSchema.ElicitFormRequest request) {
        return new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.DECLINE, null);
    }

    private McpSchema.CallToolResult call(String tool, Map<String, Object> arguments) {
        return client.callTool(new McpSchema.CallToolRequest(tool, arguments));
    }

    private static String text(McpSchema.CallToolResult result) {
        return ((McpSchema.TextContent) result.content().get(0)).text();
    }

    private static byte[] bytes(McpSchema.ReadResourceResult read) {
        McpSchema.ResourceContents c = read.contents().get(0);
        if (c instanceof McpSchema.TextResourceContents t) {
            return t.text().getBytes(StandardCharsets.UTF_8);
        }
        return Base64.getDecoder().decode(((McpSchema.BlobResourceContents) c).blob());
    }

    private static String digest(McpSchema.Resource r) {
        return String.valueOf(r.meta().get(SkillgateMcpServer.DIGEST_META));
    }

    private Map<String, McpSchema.Resource> listing() {
        Map<String, McpSchema.Resource> out = new HashMap<>();
        for (McpSchema.Resource r : client.listResources().resources()) {
            out.put(r.uri(), r);
        }
        return out;
    }

    private String runs() throws IOException {
        Path ran = workspace.resolve("ran.txt");
        return Files.exists(ran) ? Files.readString(ran) : "";
    }

    @Test
    void everyListedDigestIsTheCapturesAndTheSha256OfTheBytesServed() throws Exception {
        Map<String, McpSchema.Resource> listed = listing();

        CaptureOutcome capture = SkillArtifact.capture(skillDir);
        try (SkillArtifact artifact = capture.artifact().orElseThrow()) {
            Map<String, String> captured = new HashMap<>();
            for (CapturedFile f : artifact.files()) {
                captured.put("skill://probe/" + f.path().value(), f.sha256().toString());
            }
            assertThat(listed.keySet()).isEqualTo(captured.keySet());
            assertThat(listed.keySet()).contains("skill://probe/SKILL.md", "skill://probe/scripts/probe.mjs");
            for (McpSchema.Resource r : listed.values()) {
                assertThat(digest(r)).isEqualTo(captured.get(r.uri())).startsWith("sha256:");
                byte[] served = bytes(client.readResource(new McpSchema.ReadResourceRequest(r.uri())));
                assertThat(Sha256Digest.hash(served).toString()).as(r.uri()).isEqualTo(digest(r));
                assertThat(r.size()).isEqualTo(served.length);
            }
        }
    }

    @Test
    void aSkillsToolCarriesItsInputSchemaExactly() {
        List<McpSchema.Tool> tools = client.listTools().tools();
        assertThat(tools.stream().map(McpSchema.Tool::name))
                .containsExactlyInAnyOrder("activate_skill", "read_skill_resource", "probe");
        McpSchema.Tool probe =
                tools.stream().filter(t -> t.name().equals("probe")).findFirst().orElseThrow();
        JsonMapper json = JsonMapper.builder().build();
        assertThat((Object) json.valueToTree(probe.inputSchema()))
                .isEqualTo((Object) json.readTree(Probe.INPUT_SCHEMA));
        assertThat(client.getServerInstructions()).contains("<available_skills>", "<name>\nprobe\n</name>");
    }

    @Test
    void activateThenAnApprovedRunReturnsTheCheckedOutputAndTheElicitationShowedEveryFact() throws Exception {
        answers.add(SkillgateMcpServerTest::approve);
        answers.add(SkillgateMcpServerTest::approve);
        Map<String, McpSchema.Resource> listed = listing();

        McpSchema.CallToolResult activated = call("activate_skill", Map.of("name", "probe"));
        McpSchema.CallToolResult ran = call("probe", Map.of("name", "Ada"));

        assertThat(activated.isError()).isFalse();
        assertThat(text(activated)).contains(Probe.BODY.trim());
        assertThat(ran.isError()).isFalse();
        assertThat(text(ran)).isEqualTo("{\"greeting\":\"Hello, Ada!\"}");
        assertThat(runs()).isEqualTo("Ada\n");
        assertThat(elicitations).hasSize(2);
        McpSchema.ElicitFormRequest run = elicitations.get(1);
        assertThat(run.message())
                .contains("runs as your user with your files and network; not a sandbox")
                .contains("revision:", "argv:", "timeout 20000 ms", "NOT enforced", "\"Ada\"", "input digest:");
        for (McpSchema.Resource r : listed.values()) {
            assertThat(run.message()).contains(digest(r));
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> facts = (Map<String, Object>) run.meta().get(McpElicitationApprovals.META_KEY);
        assertThat(facts).containsEntry("skill", "probe").containsEntry("isolation", "none");
    }

    @Test
    void declinedIsAToolErrorWithConsentDeniedAndNothingRan() throws Exception {
        answers.add(SkillgateMcpServerTest::decline);

        McpSchema.CallToolResult ran = call("probe", Map.of("name", "Ada"));

        assertThat(ran.isError()).isTrue();
        assertThat(text(ran)).contains("\"CONSENT_DENIED\"", "\"started\":false");
        assertThat(runs()).isEmpty();
    }

    @Test
    void invalidInputIsAToolErrorWithTheSchemaIssueAndNobodyIsAsked() throws Exception {
        McpSchema.CallToolResult ran = call("probe", Map.of("name", ""));

        assertThat(ran.isError()).isTrue();
        assertThat(text(ran)).contains("VALUE_MIN_LENGTH", "\"at\":\"/name\"");
        assertThat(elicitations).isEmpty();
        assertThat(runs()).isEmpty();
    }

    @Test
    void aChangedFileChangesItsDigestAndNeedsFreshApproval() throws Exception {
        answers.add(SkillgateMcpServerTest::approve);
        answers.add(SkillgateMcpServerTest::decline);
        String script = "skill://probe/scripts/probe.mjs";
        assertThat(call("probe", Map.of("name", "Ada")).isError()).isFalse();
        Map<String, McpSchema.Resource> before = listing();

        Probe.edit(skillDir);

        assertThatThrownBy(() -> client.readResource(new McpSchema.ReadResourceRequest(script)))
                .hasMessageContaining("changed since it was listed");
        Map<String, McpSchema.Resource> after = listing();
        byte[] now = Files.readAllBytes(skillDir.resolve("scripts/probe.mjs"));
        assertThat(digest(after.get(script)))
                .isNotEqualTo(digest(before.get(script)))
                .isEqualTo(Sha256Digest.hash(now).toString())
                .isEqualTo(Sha256Digest.hash(bytes(client.readResource(new McpSchema.ReadResourceRequest(script))))
                        .toString());
        assertThat(digest(after.get("skill://probe/SKILL.md"))).isEqualTo(digest(before.get("skill://probe/SKILL.md")));

        McpSchema.CallToolResult again = call("probe", Map.of("name", "Ada"));

        assertThat(elicitations).hasSize(2);
        assertThat(elicitations.get(1).message()).contains(digest(after.get(script)));
        assertThat(again.isError()).isTrue();
        assertThat(text(again)).contains("CONSENT_DENIED");
        assertThat(runs()).isEqualTo("Ada\n");
    }

    @Test
    void aSkillEditedAfterApprovalIsRefused() throws Exception {
        answers.add(request -> {
            Probe.edit(skillDir);
            return approve(request);
        });

        McpSchema.CallToolResult ran = call("probe", Map.of("name", "Ada"));

        assertThat(ran.isError()).isTrue();
        assertThat(text(ran)).contains("CAPTURE_REVISION_MISMATCH");
        assertThat(runs()).isEmpty();
    }
}
