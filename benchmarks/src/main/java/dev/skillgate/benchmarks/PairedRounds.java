package dev.skillgate.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Interleaved measurement of a few operations in one thread: rounds of about 10 ms per operation,
 * every operation once per round, the order rotating from round to round, after a quarter of the
 * time spent warming up. A ratio is taken per round, so two operations are always compared under
 * the same machine load — on a shared 2-core machine that matters more than anything else.
 *
 * <p>Not a replacement for JMH (no forks, no dead-code protection beyond folding every result into
 * a sink): the operations measured here return values the JIT cannot drop.
 */
public final class PairedRounds {
    private static volatile long sink;

    private PairedRounds() {}

    /** An operation that returns something derived from its work. */
    @FunctionalInterface
    public interface Op {
        Object run() throws Exception;
    }

    /** Per-operation nanoseconds per call, one sample per round, in the order of {@code ops}. */
    public static Map<String, List<Double>> measure(Map<String, Op> ops, double seconds) throws Exception {
        Objects.requireNonNull(ops, "ops");
        List<String> names = new ArrayList<>(ops.keySet());
        Map<String, Integer> calls = new LinkedHashMap<>();
        for (String name : names) {
            calls.put(name, calibrate(ops.get(name)));
        }
        long warmEnd = System.nanoTime() + (long) (seconds * 0.25e9);
        while (System.nanoTime() < warmEnd) {
            for (String name : names) {
                time(ops.get(name), calls.get(name));
            }
        }
        Map<String, List<Double>> samples = new LinkedHashMap<>();
        names.forEach(n -> samples.put(n, new ArrayList<>()));
        long end = System.nanoTime() + (long) (seconds * 0.75e9);
        int round = 0;
        while (System.nanoTime() < end || round < 10) {
            for (int k = 0; k < names.size(); k++) {
                String name = names.get((k + round) % names.size());
                int n = calls.get(name);
                samples.get(name).add(time(ops.get(name), n) / (double) n);
            }
            round++;
        }
        return samples;
    }

    /** Per-round ratios {@code a[i] / b[i]}. */
    public static List<Double> ratios(List<Double> a, List<Double> b) {
        List<Double> r = new ArrayList<>(a.size());
        for (int i = 0; i < a.size(); i++) {
            r.add(a.get(i) / b.get(i));
        }
        return r;
    }

    private static int calibrate(Op op) throws Exception {
        int n = 1;
        while (time(op, n) < 10_000_000L && n < (1 << 24)) {
            n *= 2;
        }
        return n;
    }

    private static long time(Op op, int n) throws Exception {
        long acc = 0;
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            acc += System.identityHashCode(op.run());
        }
        long elapsed = System.nanoTime() - t0;
        sink += acc;
        return elapsed;
    }
}
