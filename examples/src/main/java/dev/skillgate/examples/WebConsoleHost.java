package dev.skillgate.examples;

import dev.skillgate.console.ApprovalConsole;
import dev.skillgate.engine.ExecutionRequest;
import dev.skillgate.engine.SkillGate;
import dev.skillgate.engine.SkillGateAdmin;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.RunId;
import dev.skillgate.runner.NodeRuntime;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A host with the web console: serves the approval and settings page on {@code 127.0.0.1}, asks to
 * run one skill, and runs it when the person clicks approve in the page; the envelope is shown on
 * the page and printed here. Each Enter on the terminal asks again (with trusted-revision mode saved
 * on the settings page, the next run does not ask); end of input stops the host.
 *
 * <pre>
 * java -cp 'examples/target/classes:examples/target/lib/*' dev.skillgate.examples.WebConsoleHost \
 *     examples/skills /usr/bin/node v20.20.2 word-stats '{"text":"the cat saw the other cat"}'
 * </pre>
 *
 * <p>The address printed once carries the console's per-start token: it is for the person at this
 * terminal, not for a log. Not a sandbox: an approved script runs with your files and network.
 */
public final class WebConsoleHost {
    private WebConsoleHost() {}

    public static void main(String[] args) throws Exception {
        System.exit(run(
                args,
                new InputStreamReader(System.in, StandardCharsets.UTF_8),
                System.out,
                uri -> System.out.println("open this address in your browser (it holds this start's token): " + uri)));
    }

    /**
     * Runs the example; {@code open} receives the launch address. Returns 0 when the last run
     * succeeded, 1 otherwise, 2 on bad arguments.
     */
    public static int run(String[] args, Reader terminal, PrintStream out, Consumer<URI> open) throws IOException {
        if (args.length < 5 || args.length > 6) {
            out.println("usage: WebConsoleHost SKILLS_DIR NODE_PATH NODE_VERSION SKILL INPUT_JSON [DATA_DIR]");
            return 2;
        }
        Path skills = Path.of(args[0]).toAbsolutePath();
        Path data = args.length == 6
                ? Path.of(args[5]).toAbsolutePath()
                : Path.of(System.getProperty("java.io.tmpdir"), "skillgate-web-console-host");
        Duration window = Duration.ofMinutes(5);
        AtomicReference<SkillGate> gateRef = new AtomicReference<>();
        try (SkillGateAdmin admin = SkillGateAdmin.open(data);
                ApprovalConsole console = ApprovalConsole.builder(admin)
                        .answerWindow(window)
                        .catalog(() -> gateRef.get() == null
                                ? List.of()
                                : gateRef.get().catalog())
                        .start();
                SkillGate gate = SkillGate.builder()
                        .admin(admin)
                        .skillRoot(skills)
                        .nodeRuntime(NodeRuntime.pinned(Path.of(args[1]), args[2]))
                        .approvalChannel(console.channel())
                        .approvalTimeout(window)
                        .build()) {
            gateRef.set(gate);
            open.accept(console.launchUri());
            BufferedReader lines = new BufferedReader(terminal);
            int code;
            do {
                out.println("asking to run " + args[3] + " (approve or deny it in the page)");
                ExecutionEnvelope env = gate.execute(ExecutionRequest.of(
                        RunId.random(),
                        AgentId.of("web-console-host"),
                        args[3],
                        args[4],
                        Path.of("").toAbsolutePath()));
                console.showOutcome(env);
                out.println("status: " + env.status());
                env.output().ifPresent(o -> out.println("output: " + o));
                env.errors().forEach(e -> out.println("  " + e));
                code = env.succeeded() ? 0 : 1;
                out.println("Enter runs it again; end of input (Ctrl-D) stops");
            } while (lines.readLine() != null);
            return code;
        }
    }
}
