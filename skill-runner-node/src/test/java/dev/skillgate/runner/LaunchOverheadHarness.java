package dev.skillgate.runner;

import dev.skillgate.fixtures.NodeFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A measurement harness, not a test (no timed assertions): interleaves a bare {@link ProcessBuilder}
 * spawn of {@code node echo.mjs} with {@code NodeRunner.run} of the same script through the portable
 * supervisor, and prints medians. Run: {@code java -cp <test classpath> dev.skillgate.runner.LaunchOverheadHarness 30}.
 */
public final class LaunchOverheadHarness {
    private LaunchOverheadHarness() {}

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        Path base = Files.createTempDirectory("skillgate-harness");
        Path scriptDir = Files.createDirectories(base.resolve("bare"));
        Path script = NodeFixture.ECHO_MJS.writeTo(scriptDir);
        Path workspace = Files.createDirectories(base.resolve("ws"));
        NodeRuntime runtime = TestSupport.runtime();
        List<Long> bare = new ArrayList<>();
        List<Long> runner = new ArrayList<>();
        List<Long> verify = new ArrayList<>();
        List<Long> toStaged = new ArrayList<>();
        List<Long> toStarted = new ArrayList<>();
        List<Long> toSettled = new ArrayList<>();
        for (int i = 0; i < n + 3; i++) {
            long t0 = System.nanoTime();
            ProcessBuilder pb = new ProcessBuilder(TestSupport.node().toString(), script.toString());
            pb.environment().clear();
            Process p = pb.start();
            p.getOutputStream().write("{}".getBytes(StandardCharsets.UTF_8));
            p.getOutputStream().close();
            p.getInputStream().readAllBytes();
            p.waitFor();
            long t1 = System.nanoTime();
            NodeRunner r = NodeRunner.builder()
                    .dataDirectory(Files.createTempDirectory(base, "data"))
                    .runtime(runtime)
                    .supervisor(PortableSupervisor.create())
                    .acceptUnprovenCleanup(true)
                    .build();
            long[] marks = new long[3];
            r.start(
                            TestSupport.request(
                                    NodeFixture.ECHO_MJS.asBundle(),
                                    NodeFixture.ECHO_MJS.portablePath(),
                                    "{}",
                                    workspace,
                                    new TestSupport.StrictJsonCheck(),
                                    30_000,
                                    65_536),
                            e -> {
                                if (e instanceof ProgressEvent.Staged) {
                                    marks[0] = System.nanoTime();
                                } else if (e instanceof ProgressEvent.Started) {
                                    marks[1] = System.nanoTime();
                                } else if (e instanceof ProgressEvent.Settled) {
                                    marks[2] = System.nanoTime();
                                }
                            })
                    .envelope()
                    .toCompletableFuture()
                    .join();
            long t2 = System.nanoTime();
            runtime.verify();
            long t3 = System.nanoTime();
            if (i >= 3) {
                bare.add(t1 - t0);
                runner.add(t2 - t1);
                verify.add(t3 - t2);
                toStaged.add(marks[0] - t1);
                toStarted.add(marks[1] - marks[0]);
                toSettled.add(marks[2] - marks[1]);
            }
        }
        System.out.printf(
                "n=%d bare median %.1f ms, runner(portable) median %.1f ms, runtime.verify median %.1f ms%n",
                n, median(bare), median(runner), median(verify));
        System.out.printf(
                "runner phases (median): start->staged %.1f ms, staged->started %.1f ms, started->settled %.1f ms%n",
                median(toStaged), median(toStarted), median(toSettled));
        TestSupport.deleteTree(base);
    }

    static double median(List<Long> xs) {
        List<Long> s = new ArrayList<>(xs);
        Collections.sort(s);
        return s.get(s.size() / 2) / 1e6;
    }
}
