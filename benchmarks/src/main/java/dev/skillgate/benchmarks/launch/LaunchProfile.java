package dev.skillgate.benchmarks.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a launch's time goes, from a JDK Flight Recorder recording of a few launches: every
 * {@code fsync}/{@code fdatasync} ({@code jdk.FileForce}, no threshold) and every process start
 * ({@code jdk.ProcessStart}), grouped by the library method that asked for them. Waits for a child
 * process are not CPU samples, so counting syscalls that block is more telling than a CPU profile.
 */
final class LaunchProfile {
    private LaunchProfile() {}

    /** Runs {@code launch} {@code n} times under a recording and prints the per-launch breakdown. */
    static void print(String what, int n, Callable<Long> launch, Path dir) throws Exception {
        Path file = dir.resolve("launch-profile.jfr");
        List<Long> wall = new ArrayList<>();
        try (Recording r = new Recording()) {
            r.enable("jdk.FileForce").withThreshold(Duration.ZERO).withStackTrace();
            r.enable("jdk.ProcessStart").withStackTrace();
            r.start();
            for (int i = 0; i < n; i++) {
                wall.add(launch.call());
            }
            r.stop();
            r.dump(file);
        }
        Map<String, double[]> forces = new TreeMap<>();
        Map<String, Integer> starts = new TreeMap<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            String site = site(e);
            if (e.getEventType().getName().equals("jdk.FileForce")) {
                double[] agg = forces.computeIfAbsent(site, k -> new double[2]);
                agg[0]++;
                agg[1] += e.getDuration().toNanos() / 1e6;
            } else if (e.getEventType().getName().equals("jdk.ProcessStart")) {
                String command = String.valueOf(e.getString("command"));
                String started = command.contains("--version")
                        ? "node --version (runtime verification)"
                        : command.contains("/supervisor/")
                                ? "the Linux supervisor's helper (the spare for the next launch)"
                                : command.length() > 60 ? command.substring(0, 60) + "…" : command;
                starts.merge(started, 1, Integer::sum);
            }
        }
        double total = wall.stream().mapToLong(Long::longValue).sum() / 1e6;
        System.out.printf(
                Locale.ROOT, "%nProfile (JFR) of %d more %s, %.1f ms each on average:%n%n", n, what, total / n);
        System.out.println("| per launch | count | total ms | called from |");
        System.out.println("|---|---:|---:|---|");
        double forceMs = 0;
        for (Map.Entry<String, double[]> e : forces.entrySet()) {
            forceMs += e.getValue()[1];
            System.out.printf(
                    Locale.ROOT,
                    "| `fsync`/`fdatasync` | %.1f | %.2f | %s |%n",
                    e.getValue()[0] / n,
                    e.getValue()[1] / n,
                    e.getKey());
        }
        for (Map.Entry<String, Integer> e : starts.entrySet()) {
            System.out.printf(Locale.ROOT, "| process start | %.1f | | %s |%n", e.getValue() / (double) n, e.getKey());
        }
        System.out.printf(Locale.ROOT, "%nAll fsyncs together: %.2f ms per launch.%n", forceMs / n);
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // a leftover recording in the harness's temporary directory is removed with it
        }
    }

    /** The first frame in Skillgate's code that led to the event. */
    private static String site(RecordedEvent e) {
        if (e.getStackTrace() == null) {
            return "?";
        }
        for (RecordedFrame f : e.getStackTrace().getFrames()) {
            String type = f.getMethod().getType().getName();
            if (type.startsWith("dev.skillgate.") && !type.startsWith("dev.skillgate.benchmarks.")) {
                return "`" + type.substring(type.lastIndexOf('.') + 1) + "."
                        + f.getMethod().getName() + "`";
            }
        }
        return "?";
    }
}
