package dev.skillgate.examples;

import dev.skillgate.consent.ConsoleApprovalChannel;
import dev.skillgate.engine.ExecutionRequest;
import dev.skillgate.engine.SkillGate;
import dev.skillgate.engine.SkillSummary;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.InputType;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.ToolClass;
import dev.skillgate.runner.NodeRuntime;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Set;

/**
 * The smallest useful host: lists the skills under a root, runs one with the human approving the
 * exact request on the terminal, and prints the checked result.
 *
 * <pre>
 * java -cp 'examples/target/classes:examples/target/lib/*' dev.skillgate.examples.ConsoleHost \
 *     examples/skills /usr/bin/node v20.20.2 word-stats '{"text":"the cat saw the other cat"}'
 * </pre>
 *
 * <p>Not a sandbox: an approved script runs with your files and network.
 */
public final class ConsoleHost {
    private ConsoleHost() {}

    public static void main(String[] args) throws Exception {
        System.exit(run(args, new InputStreamReader(System.in, StandardCharsets.UTF_8), System.out));
    }

    /** Runs the example; returns 0 on success, 1 otherwise. */
    public static int run(String[] args, Reader terminal, PrintStream out) throws Exception {
        if (args.length < 5 || args.length > 6) {
            out.println("usage: ConsoleHost SKILLS_DIR NODE_PATH NODE_VERSION SKILL INPUT_JSON [DATA_DIR]");
            return 2;
        }
        Path skills = Path.of(args[0]).toAbsolutePath();
        Path data = args.length == 6
                ? Path.of(args[5]).toAbsolutePath()
                : Path.of(System.getProperty("java.io.tmpdir"), "skillgate-console-host");

        try (SkillGate gate = SkillGate.builder()
                .dataDirectory(data)
                .skillRoot(skills)
                .nodeRuntime(NodeRuntime.pinned(Path.of(args[1]), args[2]))
                .approvalChannel(new ConsoleApprovalChannel(out, terminal))
                // What this agent offers; skills with a trust contract (release-notes) are checked against it.
                .agentContext(AgentContext.of(
                        "example-agent",
                        SemVer.parse("1.0.0"),
                        Set.of(InputType.TEXT, InputType.STRUCTURED_DATA),
                        Set.of(ToolClass.AGENT_NATIVE),
                        PermissionMode.READ_ONLY))
                .build()) {
            out.println("skills:");
            for (SkillSummary s : gate.catalog()) {
                out.println("  " + s.name() + " - " + s.description());
            }
            ExecutionEnvelope env = gate.execute(ExecutionRequest.of(
                    RunId.random(),
                    AgentId.of("console-host"),
                    args[3],
                    args[4],
                    Path.of("").toAbsolutePath()));
            out.println("status: " + env.status());
            env.output().ifPresent(o -> out.println("output: " + o));
            env.errors().forEach(e -> out.println("  " + e));
            return env.succeeded() ? 0 : 1;
        }
    }
}
