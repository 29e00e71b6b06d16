package dev.skillgate.inspect;

import dev.skillgate.inspect.internal.ReaderCore;
import dev.skillgate.model.Limits;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Capture memory and throughput on a maximal bundle (64 declared files, 4 MiB in total with
 * SKILL.md and execution.json), SPEC §17. Not a test: run by hand (command in {@code
 * docs/performance.md}).
 *
 * <p>Memory: bytes allocated by the capturing thread ({@code ThreadMXBean.getThreadAllocatedBytes})
 * around one {@link SkillArtifact} capture, divided by the bundle size. Throughput: in the same run
 * and interleaved, the time of a capture (reads, verification pass, revision) against the time of a
 * plain {@code MessageDigest} SHA-256 over the same bytes already in memory; the ratio is digest
 * time / capture time (≥ 0.8 is the SPEC target). Also prints the phases of a capture measured
 * separately: the batched reads, the verification pass and the revision.
 */
public final class CaptureBenchmarkMain {
    private CaptureBenchmarkMain() {}

    public static void main(String[] args) throws Exception {
        int warmup = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        int passes = args.length > 1 ? Integer.parseInt(args[1]) : 101;
        Path root = Files.createTempDirectory("skillgate-capture-bench-");
        try {
            Path dir = MaximalBundle.write(root.resolve("maximal"), 0);
            Allocation threads = new Allocation();
            long thread = Thread.currentThread().getId();
            SkillArtifact probe = capture(dir);
            long size = probe.totalBytes();
            Map<PortablePath, byte[]> contents = probe.copyOfContents();
            List<byte[]> inMemory = new ArrayList<>(contents.values());
            probe.dispose();
            System.out.printf(
                    "bundle: %d files, %d bytes; warmup=%d passes=%d cpus=%d java=%s%n",
                    contents.size(),
                    size,
                    warmup,
                    passes,
                    Runtime.getRuntime().availableProcessors(),
                    System.getProperty("java.version"));

            for (int i = 0; i < warmup; i++) {
                capture(dir).dispose();
                digest(inMemory);
                phases(dir, contents);
            }

            long[] allocated = new long[passes];
            long[] captureNanos = new long[passes];
            long[] digestNanos = new long[passes];
            long[][] phaseNanos = new long[3][passes];
            for (int i = 0; i < passes; i++) {
                long before = threads.getThreadAllocatedBytes(thread);
                long start = System.nanoTime();
                SkillArtifact artifact = capture(dir);
                captureNanos[i] = System.nanoTime() - start;
                allocated[i] = threads.getThreadAllocatedBytes(thread) - before;
                artifact.dispose();

                start = System.nanoTime();
                digest(inMemory);
                digestNanos[i] = System.nanoTime() - start;

                long[] p = phases(dir, contents);
                for (int k = 0; k < 3; k++) {
                    phaseNanos[k][i] = p[k];
                }
            }
            double mib = size / (1024.0 * 1024.0);
            System.out.printf(
                    "allocated per capture: median %,d bytes (%.2fx bundle), min %,d (%.2fx), max %,d (%.2fx)%n",
                    median(allocated),
                    median(allocated) / (double) size,
                    min(allocated),
                    min(allocated) / (double) size,
                    max(allocated),
                    max(allocated) / (double) size);
            System.out.printf(
                    "capture+revision: median %.2f ms (%.0f MiB/s), best %.2f ms%n",
                    median(captureNanos) / 1e6, mib / (median(captureNanos) / 1e9), min(captureNanos) / 1e6);
            System.out.printf(
                    "raw MessageDigest SHA-256: median %.2f ms (%.0f MiB/s), best %.2f ms%n",
                    median(digestNanos) / 1e6, mib / (median(digestNanos) / 1e9), min(digestNanos) / 1e6);
            System.out.printf(
                    "ratio (digest time / capture time): median %.2f, best-to-best %.2f%n",
                    median(digestNanos) / (double) median(captureNanos), min(digestNanos) / (double) min(captureNanos));
            String[] names = {"batched reads", "verification pass", "revision"};
            for (int k = 0; k < 3; k++) {
                System.out.printf("  phase %s: median %.2f ms%n", names[k], median(phaseNanos[k]) / 1e6);
            }
        } finally {
            try (Stream<Path> walk = Files.walk(root)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /**
     * {@code com.sun.management.ThreadMXBean.getThreadAllocatedBytes} through reflection: the test
     * sources compile inside the module, which does not read {@code java.management}, and the
     * harness runs on the class path, where the call is allowed.
     */
    private static final class Allocation {
        private final Object bean;
        private final Method allocated;

        Allocation() throws ReflectiveOperationException {
            bean = Class.forName("java.lang.management.ManagementFactory")
                    .getMethod("getThreadMXBean")
                    .invoke(null);
            allocated =
                    Class.forName("com.sun.management.ThreadMXBean").getMethod("getThreadAllocatedBytes", long.class);
        }

        long getThreadAllocatedBytes(long thread) throws ReflectiveOperationException {
            return (long) allocated.invoke(bean, thread);
        }
    }

    private static SkillArtifact capture(Path dir) {
        return Captures.capture(dir).artifact().orElseThrow();
    }

    private static byte[] digest(List<byte[]> files) {
        MessageDigest digest = Sha256Digest.newMessageDigest();
        for (byte[] bytes : files) {
            digest.update(bytes);
        }
        return digest.digest();
    }

    /** The three phases of a capture timed one by one, on the same files. */
    private static long[] phases(Path dir, Map<PortablePath, byte[]> contents) throws Exception {
        ReaderCore reader = ReaderCore.open(dir, List.of(), Limits.CAPTURE_BYTES);
        List<ReaderCore.BatchRequest> requests = new ArrayList<>();
        for (PortablePath path : contents.keySet()) {
            requests.add(new ReaderCore.BatchRequest(path, Limits.FILE_BYTES, false));
        }
        long start = System.nanoTime();
        List<ReaderCore.BatchResult> results = reader.readBatch(requests);
        long read = System.nanoTime() - start;
        TreeMap<PortablePath, ReaderCore.BatchRead> captured = new TreeMap<>();
        for (int i = 0; i < requests.size(); i++) {
            captured.put(requests.get(i).path(), (ReaderCore.BatchRead) results.get(i));
        }
        start = System.nanoTime();
        reader.verifyBatch(captured, List.of(), java.nio.ByteBuffer.allocateDirect(Capturer.VERIFY_BUFFER_BYTES));
        long verify = System.nanoTime() - start;
        TreeMap<PortablePath, byte[]> bytes = new TreeMap<>();
        captured.forEach((p, r) -> bytes.put(p, r.bytes()));
        start = System.nanoTime();
        Revision.compute(bytes);
        long revision = System.nanoTime() - start;
        return new long[] {read, verify, revision};
    }

    private static long median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static long min(long[] values) {
        return Arrays.stream(values).min().orElseThrow();
    }

    private static long max(long[] values) {
        return Arrays.stream(values).max().orElseThrow();
    }
}
