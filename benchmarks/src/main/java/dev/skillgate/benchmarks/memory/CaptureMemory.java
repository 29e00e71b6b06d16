package dev.skillgate.benchmarks.memory;

import dev.skillgate.benchmarks.Stats;
import dev.skillgate.benchmarks.corpus.Bundles;
import dev.skillgate.benchmarks.jmh.CaptureBenchmark;
import dev.skillgate.inspect.SkillArtifact;
import dev.skillgate.inspect.internal.CaptureHashExecutor;
import dev.skillgate.model.PortablePath;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryUsage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Memory of capturing the maximal bundle (64 declared files, 4 MiB): the bytes the capturing
 * thread and the revision hash workers allocate per capture ({@code com.sun.management.ThreadMXBean},
 * on the class path), and
 * the heap a live artifact retains (heap in use after a collection with the artifact held, minus
 * the same after it is disposed and dropped). Baseline: the bundle's own size.
 */
final class CaptureMemory {
    private CaptureMemory() {}

    static void report(Path base) throws Exception {
        Map<PortablePath, byte[]> files = Bundles.maximal("maximal");
        long size = files.values().stream().mapToLong(b -> b.length).sum();
        Path dir = Bundles.write(base.resolve("maximal"), files);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long self = Thread.currentThread().getId();
        for (int i = 0; i < 50; i++) {
            CaptureBenchmark.capture(dir).dispose();
        }
        List<Long> allocated = new ArrayList<>();
        for (int i = 0; i < 31; i++) {
            long[] ids = capturingThreads(self);
            long before = allocated(threads, ids);
            SkillArtifact a = CaptureBenchmark.capture(dir);
            allocated.add(allocated(threads, ids) - before);
            a.dispose();
        }
        List<Long> retained = new ArrayList<>();
        List<MemoryPoolMXBean> pools = MemoryHarness.heapPools();
        for (int i = 0; i < 5; i++) {
            SkillArtifact held = CaptureBenchmark.capture(dir);
            long with = usedAfterGc(pools);
            held.dispose();
            held = null;
            long without = usedAfterGc(pools);
            retained.add(with - without);
        }
        System.out.println();
        System.out.println("| capture of the maximal bundle | bytes | × bundle size |");
        System.out.println("|---|---:|---:|");
        System.out.printf(Locale.ROOT, "| bundle size (baseline) | %,d | 1.00 |%n", size);
        System.out.printf(
                Locale.ROOT,
                "| allocated by the capturing thread and the hash worker per capture, median of %d (min–max) | %,.0f"
                        + " (%,d–%,d) | %.2f |%n",
                allocated.size(),
                Stats.median(allocated),
                allocated.stream().mapToLong(Long::longValue).min().orElseThrow(),
                allocated.stream().mapToLong(Long::longValue).max().orElseThrow(),
                Stats.median(allocated) / size);
        System.out.printf(
                Locale.ROOT,
                "| retained by one live artifact (heap after GC, held − disposed), median of %d | %,.0f | %.2f |%n",
                retained.size(),
                Stats.median(retained),
                Stats.median(retained) / size);
    }

    /** The capturing thread and the live revision hash workers (decision 0300), which hash from the same buffers. */
    private static long[] capturingThreads(long self) {
        List<Long> ids = new ArrayList<>(List.of(self));
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(CaptureHashExecutor.THREAD_NAME_PREFIX)) {
                ids.add(t.getId());
            }
        }
        return ids.stream().mapToLong(Long::longValue).toArray();
    }

    /** Bytes {@code ids} allocated so far (a thread that ended counts 0 from then on). */
    private static long allocated(com.sun.management.ThreadMXBean threads, long[] ids) {
        long sum = 0;
        for (long id : ids) {
            sum += Math.max(0, threads.getThreadAllocatedBytes(id));
        }
        return sum;
    }

    private static long usedAfterGc(List<MemoryPoolMXBean> pools) throws InterruptedException {
        System.gc();
        Thread.sleep(20);
        System.gc();
        return pools.stream()
                .map(MemoryPoolMXBean::getUsage)
                .mapToLong(MemoryUsage::getUsed)
                .sum();
    }
}
