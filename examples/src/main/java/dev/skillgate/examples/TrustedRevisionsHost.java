package dev.skillgate.examples;

import dev.skillgate.consent.ConsoleApprovalChannel;
import dev.skillgate.consent.ExecutionPolicy;
import dev.skillgate.engine.ExecutionRequest;
import dev.skillgate.engine.SkillGate;
import dev.skillgate.engine.SkillGateAdmin;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Timeout;
import dev.skillgate.runner.NodeRuntime;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * A host whose settings let the user trust one exact revision of a skill
 * ({@code TRUST_SELECTED_REVISIONS}): the first run is approved on the terminal; the host then
 * offers "always allow this exact version here", and if the user agrees, the following inputs run
 * without a prompt — until any byte of the skill changes, another agent or workspace asks, or the
 * user removes the scope.
 *
 * <pre>
 * java -cp 'examples/target/classes:examples/target/lib/*' dev.skillgate.examples.TrustedRevisionsHost \
 *     examples/skills /usr/bin/node v20.20.2 hello-world
 * </pre>
 *
 * <p>The agent-facing {@link SkillGate} cannot change policy; only the {@link SkillGateAdmin} the host
 * keeps for its settings can. Trusting a revision does not make it safe: not a sandbox.
 */
public final class TrustedRevisionsHost {
    private TrustedRevisionsHost() {}

    public static void main(String[] args) throws Exception {
        System.exit(run(args, new InputStreamReader(System.in, StandardCharsets.UTF_8), System.out));
    }

    /** Runs the example; returns 0 when every run succeeded. */
    public static int run(String[] args, Reader terminal, PrintStream out) throws Exception {
        if (args.length < 4 || args.length > 5) {
            out.println("usage: TrustedRevisionsHost SKILLS_DIR NODE_PATH NODE_VERSION SKILL [DATA_DIR]");
            return 2;
        }
        Path data = args.length == 5
                ? Path.of(args[4]).toAbsolutePath()
                : Path.of(System.getProperty("java.io.tmpdir"), "skillgate-trusted-host");
        Path workspace = Path.of("").toAbsolutePath();
        AgentId agent = AgentId.of("trusting-host");
        BufferedReader lines = new BufferedReader(terminal);

        try (SkillGateAdmin settings = SkillGateAdmin.open(data);
                SkillGate gate = SkillGate.builder()
                        .admin(settings)
                        .skillRoot(Path.of(args[0]).toAbsolutePath())
                        .nodeRuntime(NodeRuntime.pinned(Path.of(args[1]), args[2]))
                        .approvalChannel(new ConsoleApprovalChannel(out, lines))
                        .build()) {
            String skill = args[3];
            ExecutionEnvelope first = gate.execute(request(agent, skill, "Ada", workspace));
            out.println("first run: " + first.status()
                    + first.output().map(o -> " " + o).orElse(""));
            if (!first.succeeded()) {
                return 1;
            }
            Revision revision = first.revision().orElseThrow();
            out.print("Always allow " + skill + " at " + revision + " for " + agent + " in " + workspace + "? [y/N] ");
            out.flush();
            String answer = lines.readLine();
            if (answer != null && answer.trim().equalsIgnoreCase("y")) {
                settings.trustRevision(revision, agent, workspace, new Timeout(60_000), new OutputLimit(65_536));
            }
            out.println("policy: " + settings.currentPolicy().mode());
            boolean allOk = true;
            for (String name : List.of("Grace", "Edsger", "Barbara")) {
                ExecutionEnvelope env = gate.execute(request(agent, skill, name, workspace));
                out.println(name + ": " + env.status()
                        + env.output().map(o -> " " + o).orElse(""));
                allOk &= env.succeeded();
            }
            if (settings.currentPolicy().mode() == ExecutionPolicy.TRUST_SELECTED_REVISIONS) {
                out.println(
                        "receipts in the audit log: " + settings.trust().list().size() + " decision(s)");
            }
            return allOk ? 0 : 1;
        }
    }

    private static ExecutionRequest request(AgentId agent, String skill, String name, Path workspace) {
        return ExecutionRequest.of(RunId.random(), agent, skill, "{\"name\":\"" + name + "\"}", workspace);
    }
}
