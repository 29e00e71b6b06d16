package dev.skillgate.benchmarks.ratios;

import dev.skillgate.benchmarks.Machine;
import dev.skillgate.benchmarks.PairedRounds;
import dev.skillgate.benchmarks.Stats;
import dev.skillgate.benchmarks.corpus.Bundles;
import dev.skillgate.benchmarks.jmh.CaptureBenchmark;
import dev.skillgate.inspect.CaptureOutcome;
import dev.skillgate.inspect.SkillArtifact;
import dev.skillgate.inspect.internal.CaptureHashExecutor;
import dev.skillgate.inspect.internal.ReaderCore;
import dev.skillgate.inspect.internal.RevisionPipeline;
import dev.skillgate.model.PortablePath;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Capture + revision of the maximal bundle (SPEC §17: ≥ 0.80 of raw {@code MessageDigest} SHA-256
 * throughput over the same bytes; 64 declared files, 4 MiB with {@code SKILL.md} and {@code
 * execution.json}, on disk in the page cache). The one harness for this target (decision 0334); the
 * JMH {@code CaptureBenchmark} measures the same operations as a cross-check.
 *
 * <p>What is compared, in rounds that alternate the order of the operations:
 *
 * <ul>
 *   <li><b>capture</b> — {@link SkillArtifact#capture} until the artifact with its revision exists,
 *       then {@code close()} (clearing 4 MiB, ~0.2 ms; a capture's caller always pays it);
 *   <li><b>raw SHA-256</b> (the baseline) — one {@code MessageDigest} over the same 66 byte arrays in
 *       memory, called twice in a row and timed the second time, so that it runs on data in the CPU
 *       caches, as the capture's own hash does (it hashes each file right after reading it);
 *   <li><b>one-thread capture</b> — the same capture with its revision hashed on the capturing
 *       thread (what a capture does when no second core takes the hash);
 *   <li><b>capture before decision 0820</b> — the same capture with the verification pass on the
 *       capturing thread alone (the worker does not help once it has hashed), so that the change is
 *       paired with its baseline in the same rounds;
 *   <li><b>raw SHA-256, data not in the CPU caches</b> — for context only: one call after streaming
 *       64 MiB of other memory. It runs ~30% slower than the baseline here, and it is what an
 *       earlier harness (in skill-inspect) used as its baseline, which made its ratio look better.
 * </ul>
 *
 * <p>A capture overlaps its reads and verification with the hash on a second thread (decision
 * 0300), so its time depends on whether the host leaves this process a second core. The rounds run
 * in blocks of about one second; before and after each block a short probe measures how many cores
 * two hashing threads get (2 × time alone ÷ time together), and the ratio is also reported for
 * blocks where a second core was free (≥ 1.7 both times) and where it was not (≤ 1.3 both times).
 * The CPU time of the whole process (every thread: capture, worker, JIT, GC) is taken around each
 * capture too, which the load of other processes disturbs far less than the wall clock.
 */
public final class CaptureRatio {
    /** Blocks whose probes both reach this many cores count as "a second core free". */
    static final double TWO_CORES = 1.7;

    /** Blocks whose probes are both at most this count as "one core". */
    static final double ONE_CORE = 1.3;

    private static final long BLOCK_NANOS = 1_000_000_000L;
    private static final int EVICT_BYTES = 64 << 20;
    private static volatile long sink;
    private static final CpuClock CPU = new CpuClock();

    private CaptureRatio() {}

    /** {@code benchmarks/bench capture [seconds]}: this comparison alone, with the machine line. */
    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 30;
        System.out.println("machine: " + Machine.describe());
        System.out.println();
        System.out.println(
                "| measurement | figure, median (p25–p75) | baseline (same rounds), median | ratio per round,"
                        + " median (p25–p75) | SPEC §17 target | met |");
        System.out.println("|---|---:|---:|---:|---|---|");
        Path base = Files.createTempDirectory("skillgate-capture-");
        try {
            print(base, seconds);
        } finally {
            Bundles.deleteTree(base);
        }
    }

    /**
     * How many cores two threads that both hash really get: 2 × (time alone) ÷ (time of both at
     * once); 2.00 means two free cores.
     */
    static double cores(List<byte[]> contents, int passes) throws InterruptedException {
        Runnable work = () -> {
            for (int i = 0; i < passes; i++) {
                sink += TargetRatios.digest(contents)[0];
            }
        };
        work.run();
        long t0 = System.nanoTime();
        work.run();
        long alone = System.nanoTime() - t0;
        Thread other = new Thread(work, "skillgate-bench-cores");
        long t1 = System.nanoTime();
        other.start();
        work.run();
        other.join();
        long both = System.nanoTime() - t1;
        return 2.0 * alone / both;
    }

    static void print(Path base, double seconds) throws Exception {
        Map<PortablePath, byte[]> files = Bundles.maximal("maximal");
        Path dir = Bundles.write(base.resolve("maximal"), files);
        List<byte[]> contents = List.copyOf(files.values());
        long bytes = contents.stream().mapToLong(b -> b.length).sum();
        OneThreadCapture oneThread = new OneThreadCapture(false);
        OneThreadCapture before0820 = new OneThreadCapture(true);
        byte[] evict = new byte[EVICT_BYTES];

        List<Double> capture = new ArrayList<>();
        List<Double> digest = new ArrayList<>();
        List<Double> sequential = new ArrayList<>();
        List<Double> cold = new ArrayList<>();
        List<Double> ratio = new ArrayList<>();
        List<Double> ratioTwoCores = new ArrayList<>();
        List<Double> ratioOneCore = new ArrayList<>();
        List<Double> probes = new ArrayList<>();
        List<Double> old = new ArrayList<>();
        List<Double> newOverOld = new ArrayList<>();
        List<Double> newOverOldTwoCores = new ArrayList<>();
        List<Double> ratioOldTwoCores = new ArrayList<>();
        List<Double> cpuNew = new ArrayList<>();
        List<Double> cpuOld = new ArrayList<>();
        List<Double> cpuOne = new ArrayList<>();

        long warmEnd = System.nanoTime() + (long) (seconds * 0.25e9);
        int round = 0;
        while (System.nanoTime() < warmEnd) {
            round(dir, contents, oneThread, before0820, evict, round++);
        }
        long workerBefore = RevisionPipeline.workerHashes();
        long helpedBefore = ReaderCore.SharedVerification.checkedByHelpers();
        long end = System.nanoTime() + (long) (seconds * 0.75e9);
        int measured = 0;
        while (System.nanoTime() < end || measured < 20) {
            double before = cores(contents, 3);
            CPU.refresh();
            List<double[]> block = new ArrayList<>();
            long blockEnd = System.nanoTime() + BLOCK_NANOS;
            while (System.nanoTime() < blockEnd) {
                block.add(round(dir, contents, oneThread, before0820, evict, round++));
            }
            double after = cores(contents, 3);
            probes.add(before);
            probes.add(after);
            for (double[] r : block) {
                capture.add(r[0]);
                digest.add(r[1]);
                sequential.add(r[2]);
                cold.add(r[3]);
                double kept = r[1] / r[0];
                ratio.add(kept);
                old.add(r[4]);
                newOverOld.add(r[0] / r[4]);
                cpuNew.add(r[5]);
                cpuOld.add(r[6]);
                cpuOne.add(r[7]);
                if (Math.min(before, after) >= TWO_CORES) {
                    ratioTwoCores.add(kept);
                    ratioOldTwoCores.add(r[1] / r[4]);
                    newOverOldTwoCores.add(r[0] / r[4]);
                } else if (Math.max(before, after) <= ONE_CORE) {
                    ratioOneCore.add(kept);
                }
                measured++;
            }
        }
        long workerHashed = RevisionPipeline.workerHashes() - workerBefore;
        long helped = ReaderCore.SharedVerification.checkedByHelpers() - helpedBefore;
        double mib = bytes / 1048576.0;
        double digestMs = Stats.median(digest) / 1e6;
        TargetRatios.row(
                String.format(
                        Locale.ROOT,
                        "capture + revision + `close()` of a maximal bundle (66 files, 4 MiB, page cache), ms; %d"
                                + " rounds; revision hashed by the worker in %d of the %d captures with a worker (this one and the one before 0820); cores two hashing"
                                + " threads got (probes around each 1 s block): median %.2f (p25–p75 %.2f–%.2f)",
                        capture.size(),
                        workerHashed,
                        2 * capture.size(),
                        Stats.median(probes),
                        Stats.percentile(probes, 25),
                        Stats.percentile(probes, 75)),
                Stats.medianWithQuartiles(TargetRatios.millis(capture), "%.2f"),
                String.format(
                        Locale.ROOT,
                        "%.2f (raw `MessageDigest` SHA-256 of the same bytes in memory, in the CPU caches, %,.0f"
                                + " MiB/s)",
                        digestMs,
                        mib / (digestMs / 1e3)),
                Stats.medianWithQuartiles(ratio, "%.2f") + " of the raw rate",
                "≥ 0.80 of raw `MessageDigest` throughput",
                Stats.median(ratio) >= 0.80);
        TargetRatios.row(
                "the same, only rounds in blocks where a second core was free (both probes ≥ " + TWO_CORES + ")",
                ratioTwoCores.size() + " rounds",
                "the same rounds",
                ratioTwoCores.isEmpty()
                        ? "— (no such block)"
                        : Stats.medianWithQuartiles(ratioTwoCores, "%.2f") + " of the raw rate",
                "≥ 0.80",
                ratioTwoCores.isEmpty() ? null : Stats.median(ratioTwoCores) >= 0.80);
        TargetRatios.row(
                "the same, only rounds in blocks where it was not (both probes ≤ " + ONE_CORE + ")",
                ratioOneCore.size() + " rounds",
                "the same rounds",
                ratioOneCore.isEmpty()
                        ? "— (no such block)"
                        : Stats.medianWithQuartiles(ratioOneCore, "%.2f") + " of the raw rate",
                "≥ 0.80",
                ratioOneCore.isEmpty() ? null : Stats.median(ratioOneCore) >= 0.80);
        TargetRatios.row(
                "one-thread capture (revision hashed on the capturing thread) + `close()`, ms",
                Stats.medianWithQuartiles(TargetRatios.millis(sequential), "%.2f"),
                String.format(Locale.ROOT, "%.2f (the same raw SHA-256)", digestMs),
                Stats.medianWithQuartiles(PairedRounds.ratios(digest, sequential), "%.2f") + " of the raw rate",
                "(context: no second core)",
                null);
        TargetRatios.row(
                "capture before decision 0820 (verification on the capturing thread alone) + `close()`, ms; in"
                        + " the blocks with a second core free: "
                        + (ratioOldTwoCores.isEmpty()
                                ? "—"
                                : Stats.medianWithQuartiles(ratioOldTwoCores, "%.2f") + " of the raw rate"),
                Stats.medianWithQuartiles(TargetRatios.millis(old), "%.2f"),
                String.format(Locale.ROOT, "%.2f (the same raw SHA-256)", digestMs),
                Stats.medianWithQuartiles(PairedRounds.ratios(digest, old), "%.2f") + " of the raw rate",
                "(the paired baseline of the change)",
                null);
        TargetRatios.row(
                "capture ÷ capture before 0820, wall time, per round; the worker verified " + helped + " of the "
                        + 67L * capture.size() + " verification entries (66 files + 1 absent path per capture);"
                        + " per round with a second core free: "
                        + (newOverOldTwoCores.isEmpty() ? "—" : Stats.medianWithQuartiles(newOverOldTwoCores, "%.3f")),
                Stats.medianWithQuartiles(newOverOld, "%.3f"),
                "1.000",
                "—",
                "(below 1: faster)",
                null);
        TargetRatios.row(
                "CPU time per capture (capturing thread + hash workers), ms: capture / before 0820 / one-thread",
                Stats.medianWithQuartiles(TargetRatios.millis(cpuNew), "%.2f") + " / "
                        + Stats.medianWithQuartiles(TargetRatios.millis(cpuOld), "%.2f") + " / "
                        + Stats.medianWithQuartiles(TargetRatios.millis(cpuOne), "%.2f"),
                String.format(Locale.ROOT, "%.2f (raw SHA-256, wall)", digestMs),
                "—",
                "(context: CPU, not wall)",
                null);
        double coldMs = Stats.median(cold) / 1e6;
        TargetRatios.row(
                "raw SHA-256 of the same bytes, not in the CPU caches (one call after streaming 64 MiB of other"
                        + " memory), ms",
                Stats.medianWithQuartiles(TargetRatios.millis(cold), "%.2f")
                        + String.format(Locale.ROOT, " (%,.0f MiB/s)", mib / (coldMs / 1e3)),
                String.format(Locale.ROOT, "%.2f (the same raw SHA-256, in the caches)", digestMs),
                String.format(
                        Locale.ROOT,
                        "capture ÷ this: %.2f (not the target's baseline)",
                        Stats.median(PairedRounds.ratios(cold, capture))),
                "(context: an earlier harness's baseline)",
                null);
    }

    /**
     * One round: the four operations, their order rotating with {@code round}; returns nanoseconds
     * of capture, baseline, one-thread capture and the cold digest.
     */
    private static double[] round(
            Path dir,
            List<byte[]> contents,
            OneThreadCapture oneThread,
            OneThreadCapture before0820,
            byte[] evict,
            int round)
            throws Exception {
        double[] t = new double[8];
        for (int k = 0; k < 5; k++) {
            int op = (k + round) % 5;
            switch (op) {
                case 0 -> {
                    long c0 = CPU.now();
                    long t0 = System.nanoTime();
                    try (SkillArtifact a = CaptureBenchmark.capture(dir)) {
                        sink += a.revision().hashCode();
                    }
                    t[0] = System.nanoTime() - t0;
                    t[5] = CPU.now() - c0;
                }
                case 4 -> {
                    long c0 = CPU.now();
                    long t0 = System.nanoTime();
                    try (SkillArtifact a = before0820.capture(dir)) {
                        sink += a.revision().hashCode();
                    }
                    t[4] = System.nanoTime() - t0;
                    t[6] = CPU.now() - c0;
                }
                case 1 -> {
                    sink += TargetRatios.digest(contents)[
                            0]; // brings the bytes into the caches, as a capture's reads do
                    long t0 = System.nanoTime();
                    sink += TargetRatios.digest(contents)[0];
                    t[1] = System.nanoTime() - t0;
                }
                case 2 -> {
                    long c0 = CPU.now();
                    long t0 = System.nanoTime();
                    try (SkillArtifact a = oneThread.capture(dir)) {
                        sink += a.revision().hashCode();
                    }
                    t[2] = System.nanoTime() - t0;
                    t[7] = CPU.now() - c0;
                }
                case 3 -> {
                    long acc = 0;
                    for (int i = 0; i < evict.length; i += 64) {
                        acc += evict[i];
                    }
                    sink += acc;
                    long t0 = System.nanoTime();
                    sink += TargetRatios.digest(contents)[0];
                    t[3] = System.nanoTime() - t0;
                }
                default -> throw new IllegalStateException();
            }
        }
        return t;
    }

    /**
     * CPU time of this thread plus the capture hash workers, in nanoseconds ({@code ThreadMXBean}'s
     * per-thread clocks; the process clock of {@code OperatingSystemMXBean} ticks in 10 ms here).
     * The workers are looked up by name before each block.
     */
    static final class CpuClock {
        private final java.lang.management.ThreadMXBean threads =
                java.lang.management.ManagementFactory.getThreadMXBean();
        private long[] workers = new long[0];

        void refresh() {
            List<Long> ids = new ArrayList<>();
            for (java.lang.management.ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
                if (info != null && info.getThreadName().startsWith(CaptureHashExecutor.THREAD_NAME_PREFIX)) {
                    ids.add(info.getThreadId());
                }
            }
            workers = ids.stream().mapToLong(Long::longValue).toArray();
        }

        long now() {
            long sum = threads.getCurrentThreadCpuTime();
            for (long id : workers) {
                sum += Math.max(0, threads.getThreadCpuTime(id));
            }
            return sum;
        }
    }

    /**
     * A capture reached through skill-inspect's package-private {@code Capturer} (the benchmarks run
     * on the class path, decision 0280): with no hash executor, exactly what a capture does when no
     * worker takes its hash; or, {@code before0820}, with the shared executor and the verification
     * pass on the capturing thread alone.
     */
    static final class OneThreadCapture {
        private final Method capture;
        private final Object manifestStep;
        private final boolean before0820;

        OneThreadCapture(boolean before0820) throws ReflectiveOperationException {
            this.before0820 = before0820;
            Class<?> capturer = Class.forName("dev.skillgate.inspect.Capturer");
            capture = capturer.getDeclaredMethod("capture", Path.class, Function.class, Optional.class, boolean.class);
            capture.setAccessible(true);
            var step = capturer.getDeclaredField("DEFAULT_MANIFEST_STEP");
            step.setAccessible(true);
            manifestStep = step.get(null);
        }

        SkillArtifact capture(Path dir) throws ReflectiveOperationException {
            CaptureOutcome outcome = before0820
                    ? (CaptureOutcome) capture.invoke(null, dir, manifestStep, CaptureHashExecutor.shared(), false)
                    : (CaptureOutcome) capture.invoke(null, dir, manifestStep, Optional.empty(), true);
            return outcome.artifact()
                    .orElseThrow(() -> new IllegalStateException("capture failed: " + outcome.problem()));
        }
    }
}
