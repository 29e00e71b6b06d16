package dev.skillgate.benchmarks.launch;

import dev.skillgate.model.PortablePath;
import dev.skillgate.runner.internal.ModuleGuard;
import dev.skillgate.runner.internal.ProcessLiveness;
import dev.skillgate.runner.internal.Staging;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Not a test: the calling thread's CPU time (ThreadMXBean) of the launch-path pieces decisions
 * 0870–0872 changed, each beside the code it replaced (copied here), interleaved per block. Thread
 * start and hand-off are measured as process CPU (two threads take part). Usage: {@code bench
 * run-path [n]}.
 */
public final class RunPathHarness {
    private RunPathHarness() {}

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private static volatile Object sink;

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        Map<PortablePath, byte[]> files = new TreeMap<>();
        files.put(PortablePath.of("SKILL.md"), "---\nname: echo\n---\n".getBytes(StandardCharsets.UTF_8));
        files.put(PortablePath.of("execution.json"), "{\"schemaVersion\":1}".getBytes(StandardCharsets.UTF_8));
        files.put(PortablePath.of("scripts/echo.mjs"), "process.stdout.write('{}');".getBytes(StandardCharsets.UTF_8));
        String root = "/tmp/skillgate-engine-cpu-1051308896082916510/data-trusted/staging/"
                + "3ea94624883c050599b8b025257ea07b-69ea6bda-3020-49ba-b4b1-644140bfac0d/bundle";
        String entryArg = root + "/scripts/echo.mjs";
        PortablePath entry = PortablePath.of("scripts/echo.mjs");
        staging(Math.max(50, n / 10), files);
        ExecutorService pool =
                new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
                    Thread t = new Thread(null, r, "idle", 0, false);
                    t.setDaemon(true);
                    return t;
                });
        java.security.SecureRandom shared = new java.security.SecureRandom();
        for (int block = 0; block < 4; block++) {
            String load = new String(java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc/loadavg"))).trim();
            double tokenOld = cpu(n, () -> sink = ProcessLiveness.tokenOf(ProcessHandle.current()));
            double tokenNew = cpu(n, () -> sink = ProcessLiveness.currentJvmToken());
            double rngOld = cpu(n, () -> {
                byte[] b = new byte[16];
                new java.security.SecureRandom().nextBytes(b);
                sink = HexFormat.of().formatHex(b);
            });
            double rngNew = cpu(n, () -> sink = Staging.newAttempt());
            double urlOld = cpu(n, () -> sink = oldUrl(root, entryArg, entry, files));
            double urlNew = cpu(n, () -> sink = ModuleGuard.url(root, entryArg, entry, files));
            int m = Math.max(50, n / 4);
            double[] threadOld = processCpuAndWall(m, () -> {
                CompletableFuture<Void> done = new CompletableFuture<>();
                Thread t = new Thread(() -> done.complete(null), "skillgate-run-x");
                t.setDaemon(true);
                t.start();
                done.join();
            });
            double[] threadNew = processCpuAndWall(m, () -> {
                CompletableFuture<Void> done = new CompletableFuture<>();
                pool.execute(() -> {
                    Thread.currentThread().setName("skillgate-run-x");
                    done.complete(null);
                    Thread.currentThread().setName("idle");
                });
                done.join();
            });
            System.out.printf(
                    Locale.ROOT,
                    "block %d (load %s): µs of CPU per call, old → new: JVM start token %.1f → %.2f; attempt token"
                            + " %.1f → %.1f; guard URL %.1f → %.1f; run thread start+hand-off %.1f → %.1f"
                            + " (latency %.1f → %.1f µs)%n",
                    block,
                    load,
                    tokenOld,
                    tokenNew,
                    rngOld,
                    rngNew,
                    urlOld,
                    urlNew,
                    threadOld[0],
                    threadNew[0],
                    threadOld[1],
                    threadNew[1]);
        }
    }

    /**
     * The staging steps of one launch on this disk, each timed alone (wall, medians of {@code n}):
     * {@code Staging.stage} (run directory, first owner record, bundle), the durable owner record
     * ({@code recordSupervisor}: temp file, fsync, rename, directory fsync), the re-read of the
     * staged bytes ({@code verify}) and the removal. The last two lines bound what overlapping the
     * durable write with the re-read could save.
     */
    static void staging(int n, Map<PortablePath, byte[]> files) throws Exception {
        java.nio.file.Path base = java.nio.file.Files.createTempDirectory("skillgate-run-path-");
        java.nio.file.Path data = java.nio.file.Files.createDirectories(base.resolve("data"));
        dev.skillgate.model.Revision revision = dev.skillgate.model.Revision.compute(files);
        double[][] ms = new double[4][n];
        double[][] cpuMs = new double[4][n];
        try {
            for (int i = 0; i < n; i++) {
                long c0 = THREADS.getCurrentThreadCpuTime();
                long t0 = System.nanoTime();
                Staging.StagedRun run = Staging.stage(
                        data,
                        dev.skillgate.model.RunId.random(),
                        files,
                        new dev.skillgate.runner.internal.OwnerRecord.Owner(
                                ProcessHandle.current().pid(), ProcessLiveness.currentJvmToken()),
                        Staging.newAttempt());
                long t1 = System.nanoTime();
                long c1 = THREADS.getCurrentThreadCpuTime();
                run.recordSupervisor(new dev.skillgate.runner.SupervisorIdentity(
                        ProcessHandle.current().pid(), "1", run.record().attempt()));
                long t2 = System.nanoTime();
                long c2 = THREADS.getCurrentThreadCpuTime();
                if (run.verify(revision, files.size()).isPresent()) {
                    throw new IllegalStateException("staged bytes differ");
                }
                long t3 = System.nanoTime();
                long c3 = THREADS.getCurrentThreadCpuTime();
                if (run.remove().isPresent()) {
                    throw new IllegalStateException("not removed");
                }
                long t4 = System.nanoTime();
                long c4 = THREADS.getCurrentThreadCpuTime();
                cpuMs[0][i] = (c1 - c0) / 1e6;
                cpuMs[1][i] = (c2 - c1) / 1e6;
                cpuMs[2][i] = (c3 - c2) / 1e6;
                cpuMs[3][i] = (c4 - c3) / 1e6;
                ms[0][i] = (t1 - t0) / 1e6;
                ms[1][i] = (t2 - t1) / 1e6;
                ms[2][i] = (t3 - t2) / 1e6;
                ms[3][i] = (t4 - t3) / 1e6;
            }
        } finally {
            dev.skillgate.benchmarks.NodeHost.deleteTree(base);
        }
        String[] names = {"stage", "durable owner record", "re-read of the staged bytes", "removal"};
        for (int k = 0; k < 4; k++) {
            double[] v = ms[k].clone();
            Arrays.sort(v);
            double[] c = cpuMs[k].clone();
            Arrays.sort(c);
            System.out.printf(
                    Locale.ROOT,
                    "staging: %s %.3f ms wall median (p25 %.3f, p75 %.3f), %.3f ms of the thread's CPU median%n",
                    names[k],
                    v[n / 2],
                    v[n / 4],
                    v[3 * n / 4],
                    c[n / 2]);
        }
    }

    private static double cpu(int n, Runnable r) {
        long t0 = THREADS.getCurrentThreadCpuTime();
        for (int i = 0; i < n; i++) {
            r.run();
        }
        return (THREADS.getCurrentThreadCpuTime() - t0) / 1e3 / n;
    }

    private static double[] processCpuAndWall(int n, Runnable r) {
        long c0 = OS.getProcessCpuTime();
        long w0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            r.run();
        }
        return new double[] {(OS.getProcessCpuTime() - c0) / 1e3 / n, (System.nanoTime() - w0) / 1e3 / n};
    }

    /** {@code ModuleGuard.url} before decision 0872: the whole source re-encoded per launch. */
    private static String oldUrl(
            String realBundleRoot, String entryArgument, PortablePath entrypoint, Map<PortablePath, byte[]> files) {
        String table = ModuleGuard.table(realBundleRoot, entryArgument, entrypoint, files);
        String source = SOURCE.replace("/*@GUARD_TABLE@*/ null", table);
        return "data:text/javascript;base64,"
                + Base64.getEncoder().encodeToString(source.getBytes(StandardCharsets.UTF_8));
    }

    private static final String SOURCE = ModuleGuard.compactSource(load()) + "//# sourceURL=skillgate:module-guard\n";

    private static String load() {
        try (java.io.InputStream in =
                ModuleGuard.class.getResourceAsStream("/dev/skillgate/runner/internal/module-guard.mjs")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
