package dev.skillgate.mcp.example;

import dev.skillgate.engine.SkillGate;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.mcp.McpElicitationApprovals;
import dev.skillgate.mcp.SkillgateMcpServer;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SemVer;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.tools.ToolBinding;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/**
 * An MCP server over stdio for an MCP client to start (e.g. in its server configuration): the
 * skills of a root as {@code skill://} resources and tools, a real gate (the Linux supervisor, a
 * pinned node) whose approvals are MCP elicitations shown by the client. The end-to-end test's
 * client starts exactly this class as its child process.
 *
 * <p>Arguments: skills root, data directory, workspace, node binary, node version. stdout is the MCP
 * channel; nothing else writes to it.
 */
public final class McpStdioHost {
    private McpStdioHost() {}

    public static void main(String[] args) throws InterruptedException {
        Path skillsRoot = Path.of(args[0]);
        Path dataDir = Path.of(args[1]);
        Path node = Path.of(args[3]);
        String nodeVersion = args[4];
        ToolBinding binding = ToolBinding.of(
                RunId.random(),
                AgentId.of("mcp-example"),
                AgentContext.of("mcp-example", SemVer.parse("1.0.0"), Set.of(), Set.of(), PermissionMode.READ_ONLY),
                Path.of(args[2]));
        // snippet:begin mcp
        McpElicitationApprovals approvals = McpElicitationApprovals.create(); // or withFallback(myApprovalUi)
        SkillGate gate = SkillGate.builder()
                .dataDirectory(dataDir)
                .skillRoot(skillsRoot)
                .nodeRuntime(NodeRuntime.pinned(node, nodeVersion))
                .approvalChannel(approvals)
                .approvalTimeout(Duration.ofSeconds(60)) // how long an elicitation may stay unanswered
                .build();
        SkillgateMcpServer skills =
                SkillgateMcpServer.builder(gate, binding).elicitation(approvals).build();
        McpSyncServer server = skills.serve(new StdioServerTransportProvider(McpJsonDefaults.getMapper()));
        // any transport provider of the SDK works; skills.refresh() re-captures after you edit skills
        // snippet:end mcp
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            skills.close();
            gate.close(Duration.ofSeconds(20));
            approvals.close();
            stopped.countDown();
        }));
        stopped.await();
    }
}
