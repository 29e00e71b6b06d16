package dev.skillgate.runner;

import dev.skillgate.fixtures.NodeFixture;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.PortablePath;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/**
 * Runs one launch in a separate JVM for the tests that must kill or configure that JVM. Prints one
 * line per fact to stdout. Modes: {@code sleep <dataDir> <workspace>} starts a long-sleeping script
 * and blocks (the test kills this JVM); {@code print-env <dataDir> <workspace>} runs the
 * environment printer and prints what the script saw.
 */
public final class ForkedLaunchProbe {
    private ForkedLaunchProbe() {}

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        String mode = args[0];
        NodeRunner runner = NodeRunner.builder()
                .dataDirectory(Path.of(args[1]))
                .runtime(NodeRuntime.pinned(Path.of(args[3]), args[4]))
                .supervisor(PortableSupervisor.create())
                .acceptUnprovenCleanup(true)
                .build();
        TestSupport.StrictJsonCheck check = new TestSupport.StrictJsonCheck();
        Map<PortablePath, byte[]> bundle;
        PortablePath entry;
        if (mode.equals("sleep")) {
            // Reads its stdin, says so on stderr, then sleeps.
            entry = PortablePath.of("sleep.mjs");
            bundle = Map.of(
                    entry,
                    ("import {readFileSync} from 'node:fs'; readFileSync(0); process.stderr.write('.');"
                                    + " setTimeout(() => {}, 600000);")
                            .getBytes(StandardCharsets.UTF_8));
        } else {
            entry = NodeFixture.PRINT_ENV.portablePath();
            bundle = NodeFixture.PRINT_ENV.asBundle();
        }
        NodeRunRequest request = TestSupport.request(bundle, entry, "{}", Path.of(args[2]), check, 120_000, 65_536);
        boolean[] ready = {false};
        ExecutionHandle handle = runner.start(request, e -> {
            if (e instanceof ProgressEvent.Staged s) {
                out.println("STAGED " + s.stagingDirectory());
            } else if (e instanceof ProgressEvent.Started s) {
                out.println("STARTED " + s.pid());
            } else if (e instanceof ProgressEvent.OutputBytes b && b.stderrBytes() > 0 && !ready[0]) {
                ready[0] = true;
                out.println("READY");
            }
        });
        ExecutionEnvelope envelope = handle.envelope().toCompletableFuture().join();
        out.println("STATUS " + envelope.status());
        out.println("ERRORS " + envelope.errorCodes());
        for (String accepted : check.accepted) {
            out.println("OUTPUT " + accepted);
        }
        out.println("DONE");
    }
}
