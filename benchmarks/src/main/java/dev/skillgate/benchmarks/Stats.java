package dev.skillgate.benchmarks;

import java.util.Arrays;
import java.util.Collection;
import java.util.Locale;

/**
 * Order statistics for harness samples (JMH computes its own). Medians and quartiles, never means:
 * a shared 2-core machine produces outliers that a mean would carry into the figure.
 *
 * <p>Not a statistics library: no interpolation beyond nearest rank, no confidence intervals.
 */
public final class Stats {
    private Stats() {}

    /** The nearest-rank percentile {@code p} (0–100) of {@code values}; the input is not changed. */
    public static double percentile(Collection<? extends Number> values, double p) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("no samples");
        }
        double[] sorted = values.stream().mapToDouble(Number::doubleValue).toArray();
        Arrays.sort(sorted);
        int index = (int) Math.round((p / 100.0) * (sorted.length - 1));
        return sorted[index];
    }

    /** The median of {@code values}. */
    public static double median(Collection<? extends Number> values) {
        return percentile(values, 50);
    }

    /** {@code "median (p25–p75)"} formatted with {@code format} for each number. */
    public static String medianWithQuartiles(Collection<? extends Number> values, String format) {
        return String.format(Locale.ROOT, format, median(values))
                + " (" + String.format(Locale.ROOT, format, percentile(values, 25)) + "–"
                + String.format(Locale.ROOT, format, percentile(values, 75)) + ")";
    }
}
