package dev.skillgate.runner.linux.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Decision 0838's component figure: the calling thread's CPU for {@link HelperImage#start} and for
 * the check at rest, with the helper's bytes hashed and with a live witness vouching for them,
 * the two kinds interleaved (order alternating) beside one live witness, in blocks; then the number
 * of hashes in 40 launches of {@code ok.mjs} by 1, 4 and 8 concurrent callers (no spare). Not a test;
 * run with {@code java -cp ... dev.skillgate.runner.linux.internal.HelperHashHarness [per block]}.
 */
public final class HelperHashHarness {
    private HelperHashHarness() {}

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 150;
        Path dir = Files.createTempDirectory("skillgate-helper-hash-");
        SupervisorCore core = SupervisorCore.prepare(
                Files.createDirectories(dir.resolve("data")), Wire.POLICY_PREFER, HelperLauncher.direct(), false);
        HelperInstaller.Installed installed = core.installed().orElseThrow();
        Thread.sleep(HelperImage.SETTLE.toMillis() + 5);
        HelperImage.Started witness =
                (HelperImage.Started) HelperImage.start(installed, HelperLauncher.direct(), List.of());
        HelperImage.Witnesses one = new HelperImage.Witnesses() {
            @Override
            public Optional<HelperImage.Started> any() {
                return Optional.of(witness);
            }

            @Override
            public void add(HelperImage.Started started) {}
        };
        for (int block = 0; block < 4; block++) {
            long[][] cpu = new long[4][n]; // start hashed, start vouched, at rest hashed, at rest vouched
            for (int i = 0; i < n; i++) {
                for (int side = 0; side < 2; side++) {
                    boolean vouched = (i + side) % 2 == 1;
                    long c0 = threadCpu();
                    HelperImage.Start s = HelperImage.start(
                            installed, HelperLauncher.direct(), List.of(), vouched ? one : HelperImage.Witnesses.NONE);
                    long c1 = threadCpu();
                    Optional<HelperInstaller.Unavailable> atRest =
                            HelperImage.checkAtRest(installed, vouched ? Optional.of(witness) : Optional.empty());
                    long c2 = threadCpu();
                    if (!(s instanceof HelperImage.Started started) || atRest.isPresent()) {
                        throw new IllegalStateException("the helper was refused: " + s + " " + atRest);
                    }
                    started.process().getOutputStream().close();
                    started.process().waitFor();
                    cpu[vouched ? 1 : 0][i] = c1 - c0;
                    cpu[vouched ? 3 : 2][i] = c2 - c1;
                }
            }
            System.out.printf(
                    Locale.ROOT,
                    "block %d (%d each; load %s): start hashed %.3f ms, vouched %.3f ms; at rest hashed %.3f ms,"
                            + " vouched %.3f ms (medians of the calling thread's CPU)%n",
                    block,
                    n,
                    Files.readString(Path.of("/proc/loadavg")).trim(),
                    median(cpu[0]),
                    median(cpu[1]),
                    median(cpu[2]),
                    median(cpu[3]));
        }
        witness.process().getOutputStream().close();
        witness.process().waitFor();
        for (int callers : new int[] {1, 4, 8}) {
            System.out.printf(
                    Locale.ROOT,
                    "%d callers: 40 launches, %d hashes; load %s%n",
                    callers,
                    hashesOfLaunches(core, dir.resolve("runs-" + callers), callers, 40),
                    Files.readString(Path.of("/proc/loadavg")).trim());
        }
        System.exit(0);
    }

    static long hashesOfLaunches(SupervisorCore core, Path runs, int callers, int launches) throws Exception {
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(callers);
        try {
            long before = HelperImage.hashes();
            List<java.util.concurrent.Future<HelperRun.Report>> all = new java.util.ArrayList<>();
            for (int i = 0; i < launches; i++) {
                Path dir = Files.createDirectories(runs.resolve("r" + i));
                all.add(pool.submit(() -> TestRun.of(dir, "ok.mjs").run(core)));
            }
            for (java.util.concurrent.Future<HelperRun.Report> f : all) {
                if (f.get().result().outcome() != dev.skillgate.runner.SupervisionResult.Outcome.EXITED) {
                    throw new IllegalStateException(
                            "a launch failed: " + f.get().result().detail());
                }
            }
            return HelperImage.hashes() - before;
        } finally {
            pool.shutdown();
        }
    }

    private static final Object THREADS;
    private static final java.lang.reflect.Method THREAD_CPU;

    static {
        // ThreadMXBean by reflection: this module does not read java.management at compile time; the
        // harness runs on the class path, where every module is readable.
        try {
            Class<?> factory = Class.forName("java.lang.management.ManagementFactory");
            THREADS = factory.getMethod("getThreadMXBean").invoke(null);
            THREAD_CPU = Class.forName("java.lang.management.ThreadMXBean").getMethod("getCurrentThreadCpuTime");
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The calling thread's CPU time in nanoseconds ({@code CLOCK_THREAD_CPUTIME_ID}). */
    static long threadCpu() {
        try {
            return (Long) THREAD_CPU.invoke(THREADS);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    static double median(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2] / 1e6;
    }
}
