package dev.skillgate.benchmarks.memory;

import dev.skillgate.benchmarks.Machine;
import dev.skillgate.benchmarks.NodeHost;
import dev.skillgate.benchmarks.Stats;
import dev.skillgate.fixtures.NodeFixture;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionManifest;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Timeout;
import dev.skillgate.runner.NodeRunRequest;
import dev.skillgate.runner.NodeRunner;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.runner.OutputCheck;
import dev.skillgate.runner.ProgressEvent;
import dev.skillgate.runner.linux.LinuxSubreaperSupervisor;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Memory (SPEC §17): a script that writes 1 GiB to stdout must cost the JVM no more than the
 * configured output bound plus a constant. Measured on the runner with the Linux supervisor, in
 * this JVM, interleaved with the baseline of the same runner running a script that prints one small
 * JSON value:
 *
 * <ul>
 *   <li><b>heap growth to the peak</b> — the sum of the heap pools' peak usage between a reset
 *       (right after {@code System.gc()}) and the envelope, minus the usage at the reset; it
 *       includes garbage not yet collected, so it bounds from above what the run needed (exact to
 *       the byte with {@code -XX:+UseSerialGC}; G1 counts eden in 1 MiB regions);
 *   <li><b>retained</b> — heap in use after a collection with the envelope still referenced, minus
 *       the same before the run;
 *   <li>how many bytes the runner let through before it stopped the script ({@code OutputBytes}
 *       events) and how long that took.
 * </ul>
 *
 * <p>Run it with a small heap and the serial collector ({@code BENCH_JAVA_OPTS="-Xmx64m
 * -XX:+UseSerialGC"}, as {@code docs/performance.md} does): a runner that buffered the flood would
 * fail with {@code OutOfMemoryError} there.
 */
public final class MemoryHarness {
    private static final Path NODE = NodeHost.NODE;
    private static final long GIB = 1L << 30;

    private MemoryHarness() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        System.out.println("machine: " + Machine.describe());
        System.out.printf(
                Locale.ROOT,
                "max heap %d MiB; GC %s%n",
                Runtime.getRuntime().maxMemory() >> 20,
                ManagementFactory.getGarbageCollectorMXBeans().stream()
                        .map(b -> b.getName())
                        .reduce((a, b) -> a + ", " + b)
                        .orElse("?"));
        Path base = Files.createTempDirectory("skillgate-memory-");
        try {
            flood(base, rounds);
            CaptureMemory.report(base);
        } finally {
            NodeHost.deleteTree(base);
        }
    }

    private static void flood(Path base, int rounds) throws Exception {
        Path data = Files.createDirectories(base.resolve("data"));
        Path workspace = Files.createDirectories(base.resolve("workspace"));
        String version = NodeHost.version();
        NodeRunner runner = NodeRunner.builder()
                .dataDirectory(data)
                .runtime(NodeRuntime.pinned(NODE, version))
                .supervisor(
                        LinuxSubreaperSupervisor.builder().dataDirectory(data).build())
                .build();
        System.out.println();
        System.out.println(
                "| script | configured stdout bound | runs | heap growth to the peak during the run, median (max) |"
                        + " retained after the run (envelope held), max | stdout bytes let through | status | run time, median |");
        System.out.println("|---|---:|---:|---:|---:|---:|---|---:|");
        for (OutputLimit bound :
                List.of(new OutputLimit(4_096), OutputLimit.DEFAULT, new OutputLimit(OutputLimit.MAX_BYTES))) {
            List<Long> floodPeak = new ArrayList<>();
            List<Long> echoPeak = new ArrayList<>();
            List<Long> floodLive = new ArrayList<>();
            List<Long> echoLive = new ArrayList<>();
            List<Long> floodBytes = new ArrayList<>();
            List<Double> floodMs = new ArrayList<>();
            List<Double> echoMs = new ArrayList<>();
            String floodStatus = "";
            for (int round = -1; round < rounds; round++) {
                for (boolean isFlood : new boolean[] {round % 2 == 0, round % 2 != 0}) {
                    NodeFixture fixture = isFlood ? NodeFixture.FLOOD_STDOUT : NodeFixture.ECHO_MJS;
                    String input = isFlood ? "{\"bytes\":" + GIB + "}" : "{\"small\":true}";
                    Measured m = measure(runner, fixture, input, bound, workspace);
                    if (round < 0) {
                        continue;
                    }
                    if (isFlood) {
                        floodPeak.add(m.peakHeap);
                        floodLive.add(m.retained);
                        floodBytes.add(m.stdoutBytes);
                        floodMs.add(m.millis);
                        floodStatus = m.envelope.status().name();
                        if (m.envelope.status() != ExecutionStatus.OUTPUT_LIMIT) {
                            throw new IllegalStateException("a flood must end as OUTPUT_LIMIT: " + m.envelope);
                        }
                    } else {
                        echoPeak.add(m.peakHeap);
                        echoLive.add(m.retained);
                        echoMs.add(m.millis);
                        if (m.envelope.status() != ExecutionStatus.SUCCEEDED) {
                            throw new IllegalStateException("the baseline must succeed: " + m.envelope);
                        }
                    }
                }
            }
            row("baseline: one small JSON value", bound, echoPeak, echoLive, List.of(0L), "SUCCEEDED", echoMs);
            row("writes 1 GiB to stdout", bound, floodPeak, floodLive, floodBytes, floodStatus, floodMs);
            System.out.printf(
                    Locale.ROOT,
                    "| **flood − baseline** (medians) | %s | | **%+.0f KiB** | %+.0f KiB | | | |%n",
                    kib(bound.bytes()),
                    (Stats.median(floodPeak) - Stats.median(echoPeak)) / 1024.0,
                    (Stats.median(floodLive) - Stats.median(echoLive)) / 1024.0);
        }
    }

    private static void row(
            String label,
            OutputLimit bound,
            List<Long> peak,
            List<Long> live,
            List<Long> bytes,
            String status,
            List<Double> ms) {
        System.out.printf(
                Locale.ROOT,
                "| %s | %s | %d | %,.0f KiB (%,.0f) | %,.0f KiB | %,.0f | %s | %.0f ms |%n",
                label,
                kib(bound.bytes()),
                peak.size(),
                Stats.median(peak) / 1024.0,
                peak.stream().mapToLong(Long::longValue).max().orElse(0) / 1024.0,
                live.stream().mapToLong(Long::longValue).max().orElse(0) / 1024.0,
                Stats.median(bytes),
                status,
                Stats.median(ms));
    }

    private static String kib(int bytes) {
        return String.format(Locale.ROOT, "%d KiB", bytes / 1024);
    }

    record Measured(ExecutionEnvelope envelope, long peakHeap, long retained, long stdoutBytes, double millis) {}

    private static Measured measure(
            NodeRunner runner, NodeFixture fixture, String input, OutputLimit bound, Path workspace) {
        Map<PortablePath, byte[]> files = fixture.asBundle();
        ExecutionManifest manifest = new ExecutionManifest(
                1,
                fixture.portablePath(),
                List.of(fixture.portablePath()),
                "{\"type\":\"object\",\"properties\":{}}",
                "{}",
                Timeout.DEFAULT,
                bound);
        OutputCheck accept = stdout -> new OutputCheck.Valid(new String(stdout, StandardCharsets.UTF_8).strip());
        NodeRunRequest request = new NodeRunRequest(
                RunId.random(),
                manifest,
                files,
                Revision.compute(files),
                input.getBytes(StandardCharsets.UTF_8),
                workspace,
                accept);
        System.gc();
        try {
            Thread.sleep(50); // let the notification of that collection arrive before the reset
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<MemoryPoolMXBean> pools = heapPools();
        long before = heapUsed(pools);
        pools.forEach(MemoryPoolMXBean::resetPeakUsage);
        AtomicLong stdout = new AtomicLong();
        long t0 = System.nanoTime();
        ExecutionEnvelope envelope = runner.start(request, e -> {
                    if (e instanceof ProgressEvent.OutputBytes o) {
                        stdout.accumulateAndGet(o.stdoutBytes(), Math::max);
                    }
                })
                .envelope()
                .toCompletableFuture()
                .join();
        double ms = (System.nanoTime() - t0) / 1e6;
        long peak = pools.stream()
                .map(MemoryPoolMXBean::getPeakUsage)
                .mapToLong(MemoryUsage::getUsed)
                .sum();
        System.gc();
        long retained = heapUsed(pools) - before; // the envelope is still referenced here
        return new Measured(envelope, peak - before, retained, stdout.get(), ms);
    }

    private static long heapUsed(List<MemoryPoolMXBean> pools) {
        return pools.stream()
                .map(MemoryPoolMXBean::getUsage)
                .mapToLong(MemoryUsage::getUsed)
                .sum();
    }

    static List<MemoryPoolMXBean> heapPools() {
        return ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP)
                .toList();
    }
}
