package dev.skillgate.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Optional;

/**
 * One line that says where and when a figure was measured: UTC time, CPU model and count, memory,
 * kernel, JVM, and the load average (the machine is shared; a figure taken under load is a lower
 * bound). Read from {@code /proc} where it exists; absent facts are left out, never guessed.
 */
public final class Machine {
    private Machine() {}

    /** The description, e.g. {@code 2026-12-01T10:00Z; Intel Xeon; 2 CPUs; 23 GiB; Linux 6.18; JDK 17.0.15; load 1.2 0.9 0.8}. */
    public static String describe() {
        StringBuilder s = new StringBuilder();
        s.append(Instant.now().truncatedTo(ChronoUnit.SECONDS)).append("; ");
        cpuModel().ifPresent(m -> s.append(m).append("; "));
        s.append(Runtime.getRuntime().availableProcessors()).append(" CPUs; ");
        memTotal().ifPresent(m -> s.append(m).append("; "));
        s.append(System.getProperty("os.name"))
                .append(' ')
                .append(System.getProperty("os.version"))
                .append("; ");
        s.append("JDK ")
                .append(System.getProperty("java.version"))
                .append(" (")
                .append(System.getProperty("java.vm.name"))
                .append(")");
        loadAverage().ifPresent(l -> s.append("; load average ").append(l));
        return s.toString();
    }

    /** The 1-, 5- and 15-minute load averages, when {@code /proc/loadavg} exists. */
    public static Optional<String> loadAverage() {
        return read("/proc/loadavg").map(l -> {
            String[] parts = l.trim().split("\\s+");
            return parts.length >= 3 ? parts[0] + " " + parts[1] + " " + parts[2] : l.trim();
        });
    }

    private static Optional<String> cpuModel() {
        return read("/proc/cpuinfo")
                .flatMap(text -> text.lines()
                        .filter(l -> l.startsWith("model name"))
                        .map(l -> l.substring(l.indexOf(':') + 1).trim())
                        .findFirst());
    }

    private static Optional<String> memTotal() {
        return read("/proc/meminfo")
                .flatMap(text -> text.lines()
                        .filter(l -> l.startsWith("MemTotal:"))
                        .map(l -> {
                            long kib = Long.parseLong(l.replaceAll("[^0-9]", ""));
                            return String.format(Locale.ROOT, "%.0f GiB RAM", kib / 1024.0 / 1024.0);
                        })
                        .findFirst());
    }

    private static Optional<String> read(String file) {
        try {
            return Optional.of(Files.readString(Path.of(file), StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
