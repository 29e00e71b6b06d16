package dev.skillgate.mcp;

import dev.skillgate.engine.SkillGate;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.RunId;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.tools.ToolBinding;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * The MCP server the test's client starts as a child JVM over stdio: a real gate (Linux supervisor,
 * pinned node) whose approvals are MCP elicitations. Arguments: skills root, data directory,
 * workspace, node binary, node version. stdout is the MCP channel; nothing else writes to it.
 */
public final class McpStdioTestHost {
    private McpStdioTestHost() {}

    public static void main(String[] args) throws InterruptedException {
        McpElicitationApprovals approvals = McpElicitationApprovals.create();
        SkillGate gate = SkillGate.builder()
                .dataDirectory(Path.of(args[1]))
                .skillRoot(Path.of(args[0]))
                .nodeRuntime(NodeRuntime.pinned(Path.of(args[3]), args[4]))
                .approvalChannel(approvals)
                .approvalTimeout(Duration.ofSeconds(60))
                .build();
        ToolBinding binding = ToolBinding.of(RunId.random(), AgentId.of("mcp-test"), Probe.CONTEXT, Path.of(args[2]));
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
