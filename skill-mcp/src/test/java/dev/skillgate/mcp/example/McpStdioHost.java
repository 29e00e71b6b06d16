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
        McpElicitationApprovals approvals = McpElicitationApprovals.create();
        SkillGate gate = SkillGate.builder()
                .dataDirectory(Path.of(args[1]))
                .skillRoot(Path.of(args[0]))
                .nodeRuntime(NodeRuntime.pinned(Path.of(args[3]), args[4]))
                .approvalChannel(approvals)
                .approvalTimeout(Duration.ofSeconds(60))
                .build();
        ToolBinding binding = ToolBinding.of(
                RunId.random(),
                AgentId.of("mcp-example"),
                AgentContext.of("mcp-example", SemVer.parse("1.0.0"), Set.of(), Set.of(), PermissionMode.READ_ONLY),
                Path.of(args[2]));
        SkillgateMcpServer server =
                SkillgateMcpServer.builder(gate, binding).elicitation(approvals).build();
        server.serve(new StdioServerTransportProvider(McpJsonDefaults.getMapper()));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            gate.close(Duration.ofSeconds(20));
            approvals.close();
            stopped.countDown();
        }));
        stopped.await();
    }
}
