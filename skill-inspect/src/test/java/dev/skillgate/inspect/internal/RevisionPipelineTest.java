package dev.skillgate.inspect.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The revision pipeline against {@code Revision.compute}, with real threads: the shared executor,
 * one that rejects, none, one that starts the task late or never, and cancellation, closing and
 * interruption while a worker waits or hashes.
 */
class RevisionPipelineTest {

    /** A random set of files: paths in a few directories, contents from empty to about 200 KB. */
    private static TreeMap<PortablePath, byte[]> randomFiles(Random random) {
        TreeMap<PortablePath, byte[]> files = new TreeMap<>();
        String[] dirs = {"", "lib/", "Lib/", "a/b/", "\u00e9/", "\uFF5E/", "\uD83D\uDE00/"};
        int count = 1 + random.nextInt(40);
        while (files.size() < count) {
            String name = dirs[random.nextInt(dirs.length)] + (char) ('A' + random.nextInt(58)) + random.nextInt(100)
                    + ".bin";
            if (name.contains("\\") || name.contains("`") || name.contains("^")) {
                continue;
            }
            PortablePath path;
            try {
                path = PortablePath.of(name);
            } catch (RuntimeException e) {
                continue;
            }
            byte[] content = new byte[random.nextInt(4) == 0 ? 0 : random.nextInt(200_000)];
            random.nextBytes(content);
            files.put(path, content);
        }
        return files;
    }

    /** Feeds every file in a random order and joins. */
    private static Revision run(Map<PortablePath, byte[]> files, RevisionPipeline pipeline, Random random)
            throws InterruptedException {
        return run(files, pipeline, random, false);
    }

    /**
     * Feeds every file in a random order and joins; with {@code awaitWorker}, waits after the first
     * file until a worker has taken the hash, so that the worker, not the joining thread, hashes.
     */
    private static Revision run(
            Map<PortablePath, byte[]> files, RevisionPipeline pipeline, Random random, boolean awaitWorker)
            throws InterruptedException {
        List<PortablePath> order = new ArrayList<>(files.keySet());
        Collections.shuffle(order, random);
        try (pipeline) {
            for (int i = 0; i < order.size(); i++) {
                pipeline.feed(order.get(i), files.get(order.get(i)));
                if (i == 0 && awaitWorker) {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (!pipeline.hashedByWorker() && System.nanoTime() < deadline) {
                        Thread.onSpinWait();
                    }
                    assertThat(pipeline.hashedByWorker())
                            .as("a worker took the hash")
                            .isTrue();
                }
            }
            Revision revision = pipeline.join();
            assertThat(pipeline.hashedByWorker() || !awaitWorker).isTrue();
            return revision;
        } finally {
            assertThat(pipeline.heldSlots())
                    .as("no buffer referenced after close")
                    .isZero();
            assertThat(pipeline.workerRunning())
                    .as("no worker running after close")
                    .isFalse();
        }
    }

    private static final Executor REJECTING = task -> {
        throw new RejectedExecutionException("busy");
    };

    /** Runs each task on a new thread after a random delay of up to 3 ms. */
    private static Executor late(Random random) {
        long delay = random.nextInt(3_000_000);
        return task -> {
            Thread thread = new Thread(() -> {
                java.util.concurrent.locks.LockSupport.parkNanos(delay);
                task.run();
            });
            thread.setDaemon(true);
            thread.start();
        };
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
    void everyWayOfHashingGivesRevisionCompute(long seed) throws InterruptedException {
        Random random = new Random(seed);
        TreeMap<PortablePath, byte[]> files = randomFiles(random);
        Revision expected = Revision.compute(files);
        List<PortablePath> paths = List.copyOf(files.keySet());
        assertThat(run(files, RevisionPipeline.open(paths), random)).isEqualTo(expected);
        assertThat(run(files, RevisionPipeline.open(paths, CaptureHashExecutor.shared(), 0), random))
                .isEqualTo(expected);
        if (CaptureHashExecutor.THREADS > 0) {
            assertThat(run(files, RevisionPipeline.open(paths, CaptureHashExecutor.shared(), 0), random, true))
                    .as("hashed by the shared executor's worker")
                    .isEqualTo(expected);
        }
        Executor ownThread = task -> new Thread(task).start();
        assertThat(run(files, RevisionPipeline.open(paths, Optional.of(ownThread), 0), random, true))
                .as("hashed by a worker")
                .isEqualTo(expected);
        assertThat(run(files, RevisionPipeline.open(paths, Optional.empty(), 0), random))
                .isEqualTo(expected);
        assertThat(run(files, RevisionPipeline.open(paths, Optional.of(REJECTING), 0), random))
                .isEqualTo(expected);
        assertThat(run(files, RevisionPipeline.open(paths, Optional.of(late(random)), 0), random))
                .isEqualTo(expected);
        assertThat(run(files, RevisionPipeline.open(paths, Optional.of(task -> {}), 0), random))
                .as("a task that never runs")
                .isEqualTo(expected);
        // Nothing was changed by hashing.
        assertThat(Revision.compute(files)).isEqualTo(expected);
    }

    @Test
    void aWorkerFedInPathOrderHashesWhileTheFilesArrive() throws InterruptedException {
        Random random = new Random(99);
        TreeMap<PortablePath, byte[]> files = new TreeMap<>();
        for (int i = 0; i < 64; i++) {
            byte[] content = new byte[65_000];
            random.nextBytes(content);
            files.put(PortablePath.of(String.format("lib/part-%02d.bin", i)), content);
        }
        AtomicReference<Thread> worker = new AtomicReference<>();
        Executor own = task -> {
            Thread thread = new Thread(task, "test-hash-worker");
            worker.set(thread);
            thread.start();
        };
        RevisionPipeline pipeline = RevisionPipeline.open(List.copyOf(files.keySet()), Optional.of(own), 0);
        try (pipeline) {
            files.forEach((path, content) -> {
                pipeline.feed(path, content);
                java.util.concurrent.locks.LockSupport.parkNanos(20_000);
            });
            assertThat(pipeline.join()).isEqualTo(Revision.compute(files));
            assertThat(pipeline.hashedByWorker()).isTrue();
        }
        assertThat(worker.get()).isNotNull();
    }

    @Test
    void closingWhileTheWorkerWaitsForAFileStopsItAndDropsTheBuffers() throws Exception {
        TreeMap<PortablePath, byte[]> files = new TreeMap<>();
        for (int i = 0; i < 8; i++) {
            files.put(PortablePath.of("f" + i), new byte[100_000]);
        }
        CountDownLatch finished = new CountDownLatch(1);
        Executor own = task -> new Thread(() -> {
                    task.run();
                    finished.countDown();
                })
                .start();
        RevisionPipeline pipeline = RevisionPipeline.open(List.copyOf(files.keySet()), Optional.of(own), 0);
        // Feed all but the last: the worker hashes seven files and then waits.
        files.headMap(PortablePath.of("f7")).forEach(pipeline::feed);
        awaitHashedByWorker(pipeline);
        pipeline.close();
        assertThat(pipeline.workerRunning()).isFalse();
        assertThat(pipeline.heldSlots()).isZero();
        assertThat(finished.await(10, TimeUnit.SECONDS))
                .as("the worker's task returned")
                .isTrue();
        assertThatThrownBy(() -> pipeline.feed(PortablePath.of("f7"), new byte[1]))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(pipeline::join).isInstanceOf(IllegalStateException.class);
        pipeline.close(); // idempotent
    }

    @Test
    void closingWhileTheWorkerHashesWaitsUntilItNoLongerReadsTheBuffers() throws Exception {
        TreeMap<PortablePath, byte[]> files = new TreeMap<>();
        for (int i = 0; i < 16; i++) {
            files.put(PortablePath.of("big-" + i), new byte[1024 * 1024]);
        }
        for (int round = 0; round < 20; round++) {
            RevisionPipeline pipeline =
                    RevisionPipeline.open(List.copyOf(files.keySet()), CaptureHashExecutor.shared(), 0);
            files.forEach(pipeline::feed);
            pipeline.close(); // cancels: the worker may be anywhere in the 16 MiB
            assertThat(pipeline.workerRunning()).isFalse();
            assertThat(pipeline.heldSlots()).isZero();
        }
    }

    @Test
    void theAfterHashTaskRunsOnTheWorkerAfterTheHashAndJoinWaitsForIt() throws Exception {
        TreeMap<PortablePath, byte[]> files = new TreeMap<>();
        for (int i = 0; i < 8; i++) {
            files.put(PortablePath.of("f" + i), new byte[100_000]);
        }
        AtomicReference<Thread> worker = new AtomicReference<>();
        Executor own = task -> {
            Thread thread = new Thread(task, "test-hash-worker");
            worker.set(thread);
            thread.start();
        };
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        RevisionPipeline pipeline = RevisionPipeline.open(List.copyOf(files.keySet()), Optional.of(own), 0);
        try (pipeline) {
            pipeline.afterHash(() -> {
                ranOn.set(Thread.currentThread());
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                done.set(true);
            });
            files.forEach(pipeline::feed);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (ranOn.get() == null && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(ranOn.get()).as("ran on the worker, after its hash").isSameAs(worker.get());
            assertThat(pipeline.workerRunning())
                    .as("the worker is not finished while its task runs")
                    .isTrue();
            Thread releaser = new Thread(() -> {
                java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
                release.countDown();
            });
            releaser.start();
            assertThat(pipeline.join()).isEqualTo(Revision.compute(files));
            assertThat(done.get()).as("join returned only after the task").isTrue();
            releaser.join();
        }
    }

    @Test
    void anAfterHashTaskNeverRunsWhenTheCallerHashesOrTheHashIsCancelled() throws Exception {
        TreeMap<PortablePath, byte[]> files = new TreeMap<>();
        for (int i = 0; i < 4; i++) {
            files.put(PortablePath.of("f" + i), new byte[10_000]);
        }
        java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
        try (RevisionPipeline pipeline = RevisionPipeline.open(List.copyOf(files.keySet()), Optional.empty(), 0)) {
            pipeline.afterHash(runs::incrementAndGet);
            files.forEach(pipeline::feed);
            assertThat(pipeline.join()).isEqualTo(Revision.compute(files));
        }
        CountDownLatch finished = new CountDownLatch(1);
        Executor own = task -> new Thread(() -> {
                    task.run();
                    finished.countDown();
                })
                .start();
        RevisionPipeline cancelled = RevisionPipeline.open(List.copyOf(files.keySet()), Optional.of(own), 0);
        cancelled.afterHash(runs::incrementAndGet);
        files.headMap(PortablePath.of("f3")).forEach(cancelled::feed);
        cancelled.close(); // the worker waits for f3, is cancelled, and must not run the task
        assertThat(finished.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(runs.get()).isZero();
        assertThatThrownBy(() -> cancelled.afterHash(runs::incrementAndGet)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anInterruptedJoinThrowsAndCloseStillWaitsForTheWorker() throws Exception {
        TreeMap<PortablePath, byte[]> files = new TreeMap<>();
        for (int i = 0; i < 32; i++) {
            files.put(PortablePath.of("big-" + i), new byte[1024 * 1024]);
        }
        Executor own = task -> new Thread(task).start();
        RevisionPipeline pipeline = RevisionPipeline.open(List.copyOf(files.keySet()), Optional.of(own), 0);
        files.forEach(pipeline::feed);
        awaitHashedByWorker(pipeline);
        Thread.currentThread().interrupt();
        boolean threw;
        try {
            pipeline.join();
            threw = false; // the worker was faster than the interrupt check: allowed, rare
        } catch (InterruptedException e) {
            threw = true;
        }
        Thread.currentThread().interrupt();
        pipeline.close();
        assertThat(Thread.interrupted()).as("close keeps the interrupt status").isTrue();
        assertThat(pipeline.workerRunning()).isFalse();
        assertThat(pipeline.heldSlots()).isZero();
        System.out.println("interrupted join threw: " + threw);
    }

    @Test
    void misuseIsRefused() {
        PortablePath a = PortablePath.of("a");
        PortablePath b = PortablePath.of("b");
        assertThatThrownBy(() -> RevisionPipeline.open(List.of(b, a))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RevisionPipeline.open(List.of(a, a))).isInstanceOf(IllegalArgumentException.class);
        try (RevisionPipeline pipeline = RevisionPipeline.open(List.of(a, b), Optional.empty(), 0)) {
            assertThatThrownBy(() -> pipeline.feed(PortablePath.of("c"), new byte[0]))
                    .isInstanceOf(IllegalArgumentException.class);
            pipeline.feed(a, new byte[0]);
            assertThatThrownBy(() -> pipeline.feed(a, new byte[0])).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(pipeline::join).as("b not fed").isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void theSharedExecutorIsSmallNamedAndDaemon() throws InterruptedException {
        assertThat(CaptureHashExecutor.THREADS)
                .isBetween(0, 4)
                .isLessThan(Math.max(1, Runtime.getRuntime().availableProcessors()));
        if (CaptureHashExecutor.THREADS == 0) {
            assertThat(CaptureHashExecutor.shared()).isEmpty();
            return;
        }
        CountDownLatch ran = new CountDownLatch(1);
        AtomicReference<Thread> seen = new AtomicReference<>();
        CaptureHashExecutor.shared().orElseThrow().execute(() -> {
            seen.set(Thread.currentThread());
            ran.countDown();
        });
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(seen.get().getName()).startsWith(CaptureHashExecutor.THREAD_NAME_PREFIX);
        assertThat(seen.get().isDaemon()).isTrue();
        assertThat(seen.get().getContextClassLoader()).isNull();
        long workers = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith(CaptureHashExecutor.THREAD_NAME_PREFIX))
                .count();
        assertThat(workers).isBetween(1L, (long) CaptureHashExecutor.THREADS);
    }

    /** Waits (at most 10 s) until the pipeline's worker has hashed something, and asserts it did. */
    static void awaitHashedByWorker(RevisionPipeline pipeline) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!pipeline.hashedByWorker() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(pipeline.hashedByWorker()).as("the worker hashed").isTrue();
    }
}
