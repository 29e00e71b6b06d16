package dev.skillgate.benchmarks.launch;

import dev.skillgate.benchmarks.Stats;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Hand-written SVG charts for {@code docs/} (no plotting dependency): box plots of a launch
 * distribution beside its baselines, and lines of throughput against concurrency. The text is
 * deterministic for the same numbers; every label is escaped.
 */
final class Svg {
    private static final String FONT = "font-family=\"sans-serif\" font-size=\"12\"";
    private static final String[] COLOURS = {"#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860"};

    private Svg() {}

    /** The benchmarks' {@code docs/} directory: {@code <bench home>/../docs}. */
    static Path docs() {
        return Path.of(System.getProperty("skillgate.bench.home", "benchmarks"))
                .toAbsolutePath()
                .resolveSibling("docs")
                .normalize();
    }

    static void write(Path file, String svg) throws IOException {
        Files.writeString(file, svg, StandardCharsets.UTF_8);
        System.out.println("wrote " + file);
    }

    /**
     * Horizontal box plots, one per series (ms): whiskers p5–p95, box p25–p75, a bar at the median
     * and its value written beside it.
     */
    static String boxPlots(String title, String subtitle, Map<String, List<Double>> series) {
        int labelWidth = 430;
        int plotWidth = 520;
        int row = 34;
        int top = 56;
        int height = top + row * series.size() + 50;
        int width = labelWidth + plotWidth + 90;
        double max = 0;
        for (List<Double> v : series.values()) {
            max = Math.max(max, Stats.percentile(v, 95));
        }
        double step = niceStep(max / 6);
        double axisMax = Math.ceil(max * 1.05 / step) * step;
        StringBuilder s = header(width, height, title, subtitle);
        int y0 = top;
        int y1 = top + row * series.size();
        for (double t = 0; t <= axisMax + 1e-9; t += step) {
            double x = labelWidth + t / axisMax * plotWidth;
            s.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>%n",
                    x,
                    y0 - 6,
                    x,
                    y1));
            s.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" %s>%s</text>%n",
                    x,
                    y1 + 16,
                    FONT,
                    trim(t)));
        }
        s.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" %s>ms per call (whiskers p5–p95, box p25–p75, bar: median)</text>%n",
                labelWidth + plotWidth / 2,
                y1 + 36,
                FONT));
        int i = 0;
        for (Map.Entry<String, List<Double>> e : series.entrySet()) {
            List<Double> v = e.getValue();
            double yMid = top + row * i + row / 2.0;
            String colour = COLOURS[i % COLOURS.length];
            double p5 = x(Stats.percentile(v, 5), axisMax, labelWidth, plotWidth);
            double p25 = x(Stats.percentile(v, 25), axisMax, labelWidth, plotWidth);
            double p50 = x(Stats.median(v), axisMax, labelWidth, plotWidth);
            double p75 = x(Stats.percentile(v, 75), axisMax, labelWidth, plotWidth);
            double p95 = x(Stats.percentile(v, 95), axisMax, labelWidth, plotWidth);
            s.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" %s>%s</text>%n",
                    labelWidth - 10,
                    yMid + 4,
                    FONT,
                    escape(e.getKey())));
            s.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>%n",
                    p5,
                    yMid,
                    p95,
                    yMid,
                    colour));
            s.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\" fill-opacity=\"0.35\" stroke=\"%s\"/>%n",
                    p25,
                    yMid - 10,
                    Math.max(1, p75 - p25),
                    20,
                    colour,
                    colour));
            s.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>%n",
                    p50,
                    yMid - 10,
                    p50,
                    yMid + 10,
                    colour));
            s.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%.1f\" %s>%.1f</text>%n",
                    p95 + 6,
                    yMid + 4,
                    FONT,
                    Stats.median(v)));
            i++;
        }
        return s.append("</svg>\n").toString();
    }

    /**
     * Lines of a value against a categorical x axis (the callers), one line per series; {@code
     * notes} are written above the last series' points (the ratios).
     */
    static String lines(
            String title,
            String subtitle,
            String yLabel,
            List<Integer> xs,
            Map<String, List<Double>> series,
            List<String> notes) {
        int left = 70;
        int plotWidth = 560;
        int top = 60;
        int plotHeight = 300;
        int width = left + plotWidth + 260;
        int height = top + plotHeight + 60;
        double max = 0;
        for (List<Double> v : series.values()) {
            for (double d : v) {
                max = Math.max(max, d);
            }
        }
        double step = niceStep(max / 5);
        double axisMax = Math.ceil(max * 1.1 / step) * step;
        StringBuilder s = header(width, height, title, subtitle);
        for (double t = 0; t <= axisMax + 1e-9; t += step) {
            double y = top + plotHeight - t / axisMax * plotHeight;
            s.append(String.format(
                    Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>%n",
                    left,
                    y,
                    left + plotWidth,
                    y));
            s.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" %s>%s</text>%n",
                    left - 6,
                    y + 4,
                    FONT,
                    trim(t)));
        }
        s.append(String.format(
                Locale.ROOT,
                "<text x=\"16\" y=\"%d\" transform=\"rotate(-90 16 %d)\" text-anchor=\"middle\" %s>%s</text>%n",
                top + plotHeight / 2,
                top + plotHeight / 2,
                FONT,
                escape(yLabel)));
        double dx = plotWidth / (double) xs.size();
        for (int k = 0; k < xs.size(); k++) {
            s.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" %s>%d</text>%n",
                    left + dx * (k + 0.5),
                    top + plotHeight + 18,
                    FONT,
                    xs.get(k)));
        }
        s.append(String.format(
                Locale.ROOT,
                "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" %s>concurrent callers</text>%n",
                left + plotWidth / 2,
                top + plotHeight + 40,
                FONT));
        int i = 0;
        double[] lastY = new double[xs.size()];
        for (Map.Entry<String, List<Double>> e : series.entrySet()) {
            String colour = COLOURS[i % COLOURS.length];
            StringBuilder points = new StringBuilder();
            for (int k = 0; k < xs.size(); k++) {
                double x = left + dx * (k + 0.5);
                double y = top + plotHeight - e.getValue().get(k) / axisMax * plotHeight;
                lastY[k] = y;
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
                s.append(String.format(
                        Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>%n", x, y, colour));
            }
            s.append(String.format(
                    Locale.ROOT,
                    "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>%n",
                    points.toString().trim(),
                    colour));
            s.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>%n",
                    left + plotWidth + 20,
                    top + 20 * i,
                    colour));
            s.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\" %s>%s</text>%n",
                    left + plotWidth + 38,
                    top + 20 * i + 11,
                    FONT,
                    escape(e.getKey())));
            i++;
        }
        for (int k = 0; k < Math.min(notes.size(), xs.size()); k++) {
            s.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" %s>%s</text>%n",
                    left + dx * (k + 0.5),
                    lastY[k] - 10,
                    FONT,
                    escape(notes.get(k))));
        }
        return s.append("</svg>\n").toString();
    }

    private static StringBuilder header(int width, int height, String title, String subtitle) {
        StringBuilder s = new StringBuilder();
        s.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">%n",
                width,
                height,
                width,
                height));
        s.append(String.format(
                Locale.ROOT, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>%n", width, height));
        s.append(String.format(
                Locale.ROOT,
                "<text x=\"12\" y=\"22\" font-family=\"sans-serif\" font-size=\"15\" font-weight=\"bold\">%s</text>%n",
                escape(title)));
        s.append(String.format(
                Locale.ROOT,
                "<text x=\"12\" y=\"40\" font-family=\"sans-serif\" font-size=\"11\" fill=\"#555\">%s</text>%n",
                escape(subtitle)));
        return s;
    }

    private static double x(double value, double axisMax, int left, int width) {
        return left + Math.min(value, axisMax) / axisMax * width;
    }

    static double niceStep(double raw) {
        if (raw <= 0) {
            return 1;
        }
        double p = Math.pow(10, Math.floor(Math.log10(raw)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * p >= raw) {
                return m * p;
            }
        }
        return 10 * p;
    }

    private static String trim(double t) {
        return t == Math.rint(t) ? String.format(Locale.ROOT, "%d", (long) t) : String.format(Locale.ROOT, "%.1f", t);
    }

    static String escape(String text) {
        return text.replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("\"", "&quot;")
                .replace("`", "");
    }
}
