package dev.skillgate.inspect;

import dev.skillgate.inspect.internal.CaptureHashExecutor;
import dev.skillgate.inspect.internal.ReaderCore;
import dev.skillgate.inspect.internal.RevisionPipeline;
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
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Capture memory and throughput on a maximal bundle (64 declared files, 4 MiB in total with
 * SKILL.md and execution.json), SPEC §17. Not a test: run by hand (command in {@code
 * docs/performance.md}).
 *
 * <p>Memory: bytes allocated by the capturing thread and the revision hash workers ({@code
 * ThreadMXBean.getThreadAllocatedBytes}) around one {@link SkillArtifact} capture, divided by the
 * bundle size. Throughput: in the same run and interleaved, the time of a capture (reads,
 * verification pass, revision hashed next to them by a worker) against the time of a plain {@code
 * MessageDigest} SHA-256 over the same bytes already in memory; the ratio is digest time / capture
 * time (≥ 0.8 is the SPEC target). Also interleaved: the same capture with the revision hashed on
 * the capturing thread (no worker), to show what the overlap gains under the run's load. Prints
 * the phases of a capture measured separately (the batched reads, the verification pass, the
 * revision), how many captures a worker hashed, and how many cores two busy threads really got
 * before and after the run (the build machine's cores are shared).
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

            double coresBefore = effectiveCores(inMemory);
            for (int i = 0; i < warmup; i++) {
                capture(dir).dispose();
                captureOnOneThread(dir).dispose();
                digest(inMemory);
                phases(dir, contents);
            }

            long[] allocated = new long[passes];
            long[] captureNanos = new long[passes];
            long[] oneThreadNanos = new long[passes];
            long[] digestNanos = new long[passes];
            long[][] phaseNanos = new long[3][passes];
            long workerHashes = RevisionPipeline.workerHashes();
            for (int i = 0; i < passes; i++) {
                long[] ids = measuredThreads(thread);
                long before = threads.allocated(ids);
                long start = System.nanoTime();
                SkillArtifact artifact = capture(dir);
                captureNanos[i] = System.nanoTime() - start;
                allocated[i] = threads.allocated(ids) - before;
                artifact.dispose();

                start = System.nanoTime();
                digest(inMemory);
                digestNanos[i] = System.nanoTime() - start;

                start = System.nanoTime();
                SkillArtifact sequential = captureOnOneThread(dir);
                oneThreadNanos[i] = System.nanoTime() - start;
                sequential.dispose();

                long[] p = phases(dir, contents);
                for (int k = 0; k < 3; k++) {
                    phaseNanos[k][i] = p[k];
                }
            }
            workerHashes = RevisionPipeline.workerHashes() - workerHashes;
            double coresAfter = effectiveCores(inMemory);
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
                    "capture+revision: median %.2f ms (%.0f MiB/s), best %.2f ms; revision hashed by a worker in"
                            + " %d of %d captures%n",
                    median(captureNanos) / 1e6,
                    mib / (median(captureNanos) / 1e9),
                    min(captureNanos) / 1e6,
                    workerHashes,
                    passes);
            System.out.printf(
                    "raw MessageDigest SHA-256: median %.2f ms (%.0f MiB/s), best %.2f ms%n",
                    median(digestNanos) / 1e6, mib / (median(digestNanos) / 1e9), min(digestNanos) / 1e6);
            System.out.printf(
                    "ratio (digest time / capture time): median %.2f, best-to-best %.2f%n",
                    median(digestNanos) / (double) median(captureNanos), min(digestNanos) / (double) min(captureNanos));
            System.out.printf(
                    "same capture, revision on the capturing thread: median %.2f ms, best %.2f ms; ratio median"
                            + " %.2f, best-to-best %.2f%n",
                    median(oneThreadNanos) / 1e6,
                    min(oneThreadNanos) / 1e6,
                    median(digestNanos) / (double) median(oneThreadNanos),
                    min(digestNanos) / (double) min(oneThreadNanos));
            System.out.printf(
                    "cores two busy threads got (2.00 = two free cores): %.2f before, %.2f after%n",
                    coresBefore, coresAfter);
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

        /** The sum over {@code threads} (a thread that ended counts as 0 from then on). */
        long allocated(long[] threads) throws ReflectiveOperationException {
            long sum = 0;
            for (long id : threads) {
                sum += Math.max(0, getThreadAllocatedBytes(id));
            }
            return sum;
        }
    }

    /** The capturing thread and the live revision hash workers. */
    private static long[] measuredThreads(long capturing) {
        List<Long> ids = new ArrayList<>(List.of(capturing));
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(CaptureHashExecutor.THREAD_NAME_PREFIX)) {
                ids.add(t.getId());
            }
        }
        return ids.stream().mapToLong(Long::longValue).toArray();
    }

    /**
     * How many cores two threads that each hash the bundle 10 times really got: 2 × (time of one
     * thread alone) / (time of both at once). 2.00 means two free cores; about 1 means the host's
     * other load left this process one core's worth.
     */
    private static double effectiveCores(List<byte[]> inMemory) throws InterruptedException {
        Runnable work = () -> {
            for (int i = 0; i < 10; i++) {
                digest(inMemory);
            }
        };
        work.run();
        long start = System.nanoTime();
        work.run();
        long alone = System.nanoTime() - start;
        Thread a = new Thread(work);
        Thread b = new Thread(work);
        start = System.nanoTime();
        a.start();
        b.start();
        a.join();
        b.join();
        long both = System.nanoTime() - start;
        return 2.0 * alone / both;
    }

    private static SkillArtifact capture(Path dir) {
        return Captures.capture(dir).artifact().orElseThrow();
    }

    private static SkillArtifact captureOnOneThread(Path dir) {
        return Capturer.capture(dir, Capturer.DEFAULT_MANIFEST_STEP, Optional.empty())
                .artifact()
                .orElseThrow();
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
