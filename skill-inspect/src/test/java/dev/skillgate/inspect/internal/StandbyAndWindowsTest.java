package dev.skillgate.inspect.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Decision 0875's standby worker and decision 0876's kept verification windows, with real threads:
 * a standby that takes the pipeline hashes exactly {@code Revision.compute}; one that gave up, was
 * rejected or was released leaves the pipeline to submit (or hash) as before and never sees a
 * buffer; a kept window is zeroed and never handed to two holders.
 */
class StandbyAndWindowsTest {

    private static TreeMap<PortablePath, byte[]> files(int count, int size, long seed) {
        Random random = new Random(seed);
        TreeMap<PortablePath, byte[]> files = new TreeMap<>();
        for (int i = 0; i < count; i++) {
            byte[] content = new byte[size];
            random.nextBytes(content);
            files.put(PortablePath.of(String.format("lib/part-%02d.bin", i)), content);
        }
        return files;
    }

    /** An executor that runs each task on a new named thread and counts the tasks. */
    private static Executor counting(AtomicInteger tasks) {
        return task -> {
            tasks.incrementAndGet();
            Thread thread = new Thread(task, "test-standby-worker");
            thread.setDaemon(true);
            thread.start();
        };
    }

    @Test
    void anAttachedStandbyHashesOnTheWorkerAndNothingElseIsSubmitted() throws Exception {
        TreeMap<PortablePath, byte[]> files = files(16, 40_000, 1);
        AtomicInteger tasks = new AtomicInteger();
        // A long spin bound, so that the test does not depend on how fast the thread starts.
        Optional<RevisionPipeline.Standby> standby =
                RevisionPipeline.Standby.start(Optional.of(counting(tasks)), TimeUnit.SECONDS.toNanos(10));
        assertThat(standby).isPresent();
        RevisionPipeline pipeline = RevisionPipeline.open(
                List.copyOf(files.keySet()), Optional.of(counting(tasks)), Long.MAX_VALUE, standby);
        assertThat(standby.get().attached()).isTrue();
        try (pipeline) {
            PortablePath first = files.firstKey();
            pipeline.feed(first, files.get(first));
            // Wait until the worker has claimed the hash, so that it, not join, hashes.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!pipeline.hashedByWorker() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertThat(pipeline.hashedByWorker())
                    .as("the standby took the hash although the threshold was never reached")
                    .isTrue();
            files.tailMap(first, false).forEach(pipeline::feed);
            assertThat(pipeline.join()).isEqualTo(Revision.compute(files));
        }
        assertThat(tasks.get()).as("only the standby was submitted").isEqualTo(1);
        assertThat(pipeline.heldSlots()).isZero();
        standby.get().release(); // after an attach: no effect
        assertThat(standby.get().attached()).isTrue();
    }

    @Test
    void aStandbyThatGaveUpLeavesThePipelineToSubmitAsBefore() throws Exception {
        TreeMap<PortablePath, byte[]> files = files(8, 40_000, 2);
        CountDownLatch gaveUp = new CountDownLatch(1);
        Executor once = task -> {
            Thread thread = new Thread(() -> {
                task.run();
                gaveUp.countDown();
            });
            thread.setDaemon(true);
            thread.start();
        };
        Optional<RevisionPipeline.Standby> standby = RevisionPipeline.Standby.start(Optional.of(once), 0);
        assertThat(gaveUp.await(10, TimeUnit.SECONDS)).isTrue();
        AtomicInteger tasks = new AtomicInteger();
        RevisionPipeline pipeline =
                RevisionPipeline.open(List.copyOf(files.keySet()), Optional.of(counting(tasks)), 0, standby);
        assertThat(standby.get().attached()).isFalse();
        try (pipeline) {
            files.forEach(pipeline::feed);
            assertThat(pipeline.join()).isEqualTo(Revision.compute(files));
        }
        assertThat(tasks.get()).as("the pipeline submitted its own task").isEqualTo(1);
    }

    @Test
    void aReleasedStandbyNeverTakesAPipelineAndLeavesTheQueue() throws Exception {
        List<Runnable> queued = new ArrayList<>();
        Optional<RevisionPipeline.Standby> standby =
                RevisionPipeline.Standby.start(Optional.of(queued::add), TimeUnit.SECONDS.toNanos(10));
        standby.orElseThrow().release();
        TreeMap<PortablePath, byte[]> files = files(4, 1_000, 3);
        RevisionPipeline pipeline = RevisionPipeline.open(List.copyOf(files.keySet()), Optional.empty(), 0, standby);
        assertThat(standby.get().attached()).isFalse();
        try (pipeline) {
            files.forEach(pipeline::feed);
            assertThat(pipeline.join()).isEqualTo(Revision.compute(files));
            assertThat(pipeline.hashedByWorker()).isFalse();
        }
        // The task runs late (as a busy executor would start it): it returns at once and holds nothing.
        queued.get(0).run();
        assertThat(pipeline.hashedByWorker()).isFalse();
    }

    @Test
    void aRejectedStandbyIsNoStandby() {
        Executor rejecting = task -> {
            throw new RejectedExecutionException("busy");
        };
        assertThat(RevisionPipeline.Standby.start(Optional.of(rejecting))).isEmpty();
        assertThat(RevisionPipeline.Standby.start(Optional.empty())).isEmpty();
    }

    @Test
    void closingAnAttachedPipelineWhileTheStandbyWaitsForAFileStopsItAndDropsTheBuffers() throws Exception {
        TreeMap<PortablePath, byte[]> files = files(4, 10_000, 4);
        AtomicReference<Thread> worker = new AtomicReference<>();
        Executor own = task -> {
            Thread thread = new Thread(task, "test-standby-worker");
            thread.setDaemon(true);
            worker.set(thread);
            thread.start();
        };
        Optional<RevisionPipeline.Standby> standby =
                RevisionPipeline.Standby.start(Optional.of(own), TimeUnit.SECONDS.toNanos(10));
        RevisionPipeline pipeline = RevisionPipeline.open(List.copyOf(files.keySet()), Optional.empty(), 0, standby);
        PortablePath first = files.firstKey();
        pipeline.feed(first, files.get(first)); // the rest never comes: the worker waits for slot 1
        RevisionPipelineTest.awaitHashedByWorker(pipeline);
        pipeline.close();
        assertThat(pipeline.workerRunning()).isFalse();
        assertThat(pipeline.heldSlots()).isZero();
        worker.get().join(TimeUnit.SECONDS.toMillis(10));
        assertThat(worker.get().isAlive()).isFalse();
    }

    @Test
    void aKeptWindowIsDirectZeroedAndHeldByOneThreadAtATime() {
        List<ByteBuffer> taken = new ArrayList<>();
        for (int i = 0; i < VerifyWindows.KEPT + 2; i++) {
            ByteBuffer window = VerifyWindows.take();
            assertThat(window.isDirect()).isTrue();
            assertThat(window.capacity()).isEqualTo(VerifyWindows.BYTES);
            for (ByteBuffer other : taken) {
                assertThat(window).isNotSameAs(other);
            }
            taken.add(window);
        }
        for (ByteBuffer window : taken) {
            window.clear();
            while (window.hasRemaining()) {
                window.put((byte) 0x5a); // bundle bytes, as a re-read leaves them
            }
            VerifyWindows.give(window);
        }
        assertThat(VerifyWindows.kept()).isLessThanOrEqualTo(VerifyWindows.KEPT);
        ByteBuffer again = VerifyWindows.take();
        assertThat(again.position()).isZero();
        assertThat(again.limit()).isEqualTo(VerifyWindows.BYTES);
        for (int i = 0; i < again.capacity(); i++) {
            assertThat(again.get(i)).as("byte %d of a kept window", i).isZero();
        }
        VerifyWindows.give(again);
        assertThatThrownBy(() -> VerifyWindows.give(ByteBuffer.allocate(VerifyWindows.BYTES)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
