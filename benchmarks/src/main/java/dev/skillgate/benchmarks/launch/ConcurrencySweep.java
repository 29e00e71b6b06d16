package dev.skillgate.benchmarks.launch;

import dev.skillgate.benchmarks.Machine;
import dev.skillgate.benchmarks.Stats;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Throughput against concurrency for {@link LaunchOverhead}: with 1, 2, 4 and 8 callers, each making
 * {@code ops / callers} calls back to back, the calls per second of bare spawns (the runner's
 * environment) and of trusted-revision {@code SkillGate.execute}s of the same script. Blocks are
 * paired: at every concurrency, three rounds of a bare block then an execute block (the order
 * alternating), and the ratio is taken per round, so both see the same machine load.
 */
final class ConcurrencySweep {
    static final List<Integer> CALLERS = List.of(1, 2, 4, 8);
    static final int ROUNDS = 3;

    private ConcurrencySweep() {}

    static void run(LaunchOverhead.Variant bare, LaunchOverhead.Variant execute, int ops, String when)
            throws Exception {
        Map<String, List<Double>> medians = new LinkedHashMap<>();
        medians.put("bare spawns/s", new ArrayList<>());
        medians.put("trusted executes/s", new ArrayList<>());
        List<String> notes = new ArrayList<>();
        System.out.println();
        System.out.printf(
                Locale.ROOT,
                "Concurrency sweep (%d calls per block, %d paired rounds per concurrency; load before: %s)%n",
                ops,
                ROUNDS,
                Machine.loadAverage().orElse("?"));
        System.out.println("| callers | bare spawns/s: median (min–max) | trusted executes/s: median (min–max)"
                + " | ratio, paired per round: median (min–max) | target ≥ 0.90× at 4 and 8 |");
        System.out.println("|---:|---:|---:|---:|---|");
        // Warm-up at the highest concurrency: the spare helper, the JIT, the page cache.
        throughput(bare, 8, Math.max(8, ops / 2));
        throughput(execute, 8, Math.max(8, ops / 2));
        for (int callers : CALLERS) {
            List<Double> b = new ArrayList<>();
            List<Double> e = new ArrayList<>();
            List<Double> r = new ArrayList<>();
            for (int round = 0; round < ROUNDS; round++) {
                double tb;
                double te;
                if (round % 2 == 0) {
                    tb = throughput(bare, callers, ops);
                    te = throughput(execute, callers, ops);
                } else {
                    te = throughput(execute, callers, ops);
                    tb = throughput(bare, callers, ops);
                }
                b.add(tb);
                e.add(te);
                r.add(te / tb);
            }
            medians.get("bare spawns/s").add(Stats.median(b));
            medians.get("trusted executes/s").add(Stats.median(e));
            notes.add(String.format(Locale.ROOT, "%.2f×", Stats.median(r)));
            boolean judged = callers >= 4;
            System.out.printf(
                    Locale.ROOT,
                    "| %d | %.1f (%.1f–%.1f) | %.1f (%.1f–%.1f) | %.2f× (%.2f–%.2f) | %s |%n",
                    callers,
                    Stats.median(b),
                    Stats.percentile(b, 0),
                    Stats.percentile(b, 100),
                    Stats.median(e),
                    Stats.percentile(e, 0),
                    Stats.percentile(e, 100),
                    Stats.median(r),
                    Stats.percentile(r, 0),
                    Stats.percentile(r, 100),
                    judged ? (Stats.median(r) >= 0.90 ? "**met**" : "**not met**") : "");
        }
        System.out.println("load after: " + Machine.loadAverage().orElse("?"));
        Svg.write(
                Svg.docs().resolve("performance-throughput.svg"),
                Svg.lines(
                        "Throughput against concurrency: calls per second (ratio above the executes)",
                        when,
                        "calls per second",
                        CALLERS,
                        medians,
                        notes));
    }

    /** Calls per second of {@code callers} threads making {@code ops} calls in all. */
    static double throughput(LaunchOverhead.Variant v, int callers, int ops) throws Exception {
        int each = Math.max(1, ops / callers);
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(callers);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int t = 0; t < callers; t++) {
            Thread th = new Thread(
                    () -> {
                        try {
                            start.await();
                            for (int i = 0; i < each; i++) {
                                v.once();
                            }
                        } catch (Throwable x) {
                            failure.compareAndSet(null, x);
                        } finally {
                            done.countDown();
                        }
                    },
                    "sweep-caller-" + t);
            th.setDaemon(true);
            th.start();
        }
        long t0 = System.nanoTime();
        start.countDown();
        done.await();
        long t1 = System.nanoTime();
        if (failure.get() != null) {
            throw new IllegalStateException("a sweep call failed", failure.get());
        }
        return each * callers / ((t1 - t0) / 1e9);
    }
}
