package dev.skillgate.testkit.internal;

import dev.skillgate.runner.LaunchSpec;
import dev.skillgate.runner.OwnershipRecorder;
import dev.skillgate.runner.ProcessSupervisor;
import dev.skillgate.runner.SupervisedRun;
import dev.skillgate.runner.SupervisionListener;
import dev.skillgate.runner.SupervisionResult;
import dev.skillgate.runner.SupervisorCapabilities;
import dev.skillgate.runner.SupervisorIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sits between the runner and a supervisor under test and writes down what crossed the SPI: the
 * {@link LaunchSpec}, the order of the ownership call and the listener events, and the
 * {@link SupervisionResult}. It changes nothing except, when asked, the ownership recorder: it can
 * hold it open while checking that the child has not started yet, or make it throw.
 */
public final class ObservingSupervisor implements ProcessSupervisor {

    /** How the wrapped ownership recorder behaves for the next launch. */
    public sealed interface RecorderMode {}

    /** Passes straight through to the runner's recorder. */
    public record PassThrough() implements RecorderMode {}

    /**
     * Before passing through, waits {@code holdMillis} and records whether {@code startedFlag} (a
     * file the script writes first thing) existed at any point during the call.
     */
    public record HoldAndWatch(Path startedFlag, long holdMillis) implements RecorderMode {}

    /** Throws an {@link IOException} without calling the runner's recorder. */
    public record Throw() implements RecorderMode {}

    /** What one launch looked like from the SPI. */
    public static final class Launch {
        private final LaunchSpec spec;
        private final List<String> sequence = new CopyOnWriteArrayList<>();
        private final AtomicInteger ownershipCalls = new AtomicInteger();
        private final List<SupervisorIdentity> identities = new CopyOnWriteArrayList<>();
        private volatile boolean childSeenDuringOwnership;
        private volatile long startedPid = -1;
        private volatile SupervisedRun run;
        private final CompletableFuture<SupervisionResult> result = new CompletableFuture<>();

        Launch(LaunchSpec spec) {
            this.spec = spec;
        }

        /** The spec the runner built. */
        public LaunchSpec spec() {
            return spec;
        }

        /** {@code ownership}, {@code started}, {@code terminating:<outcome>}, {@code settled}, {@code result}, in order. */
        public List<String> sequence() {
            return List.copyOf(sequence);
        }

        /** How often the supervisor called the ownership recorder. */
        public int ownershipCalls() {
            return ownershipCalls.get();
        }

        /** The identities the supervisor recorded itself with. */
        public List<SupervisorIdentity> identities() {
            return List.copyOf(identities);
        }

        /** Whether the started flag appeared while the ownership call was still running. */
        public boolean childSeenDuringOwnership() {
            return childSeenDuringOwnership;
        }

        /** The pid the supervisor reported as started, if any. */
        public Optional<Long> startedPid() {
            return startedPid > 0 ? Optional.of(startedPid) : Optional.empty();
        }

        /** The supervisor's run handle. */
        public SupervisedRun run() {
            return run;
        }

        /**
         * The supervisor's result, waiting up to {@code wait} for it (the runner may see it a moment
         * before this observer does); empty when it did not complete normally within that time.
         */
        public Optional<SupervisionResult> awaitResult(Duration wait) {
            try {
                return Optional.of(result.get(wait.toNanos(), TimeUnit.NANOSECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            } catch (ExecutionException | TimeoutException e) {
                return Optional.empty();
            }
        }
    }

    private final ProcessSupervisor delegate;
    private final List<Launch> launches = new CopyOnWriteArrayList<>();
    private volatile RecorderMode mode = new PassThrough();

    public ObservingSupervisor(ProcessSupervisor delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** Sets the recorder behaviour for later launches. */
    public void recorderMode(RecorderMode mode) {
        this.mode = Objects.requireNonNull(mode, "mode");
    }

    /** Every launch so far, oldest first. */
    public List<Launch> launches() {
        return new ArrayList<>(launches);
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public SupervisorCapabilities capabilities() {
        return delegate.capabilities();
    }

    @Override
    public SupervisedRun launch(LaunchSpec spec, SupervisionListener listener) {
        Launch launch = new Launch(spec);
        launches.add(launch);
        RecorderMode current = mode;
        OwnershipRecorder runners = spec.ownership();
        OwnershipRecorder observed = owner -> {
            launch.ownershipCalls.incrementAndGet();
            launch.identities.add(owner);
            if (current instanceof Throw) {
                launch.sequence.add("ownership-refused");
                throw new IOException("the contract test's recorder refuses this launch");
            }
            if (current instanceof HoldAndWatch hold) {
                long end = System.nanoTime() + hold.holdMillis() * 1_000_000L;
                while (System.nanoTime() < end) {
                    if (Files.exists(hold.startedFlag(), LinkOption.NOFOLLOW_LINKS)) {
                        launch.childSeenDuringOwnership = true;
                    }
                    try {
                        Thread.sleep(20);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IOException("interrupted", e);
                    }
                }
                if (Files.exists(hold.startedFlag(), LinkOption.NOFOLLOW_LINKS)) {
                    launch.childSeenDuringOwnership = true;
                }
            }
            runners.record(owner);
            launch.sequence.add("ownership");
        };
        LaunchSpec wrapped = spec.withOwnership(observed);
        SupervisionListener watching = new SupervisionListener() {
            @Override
            public void started(long childPid) {
                launch.startedPid = childPid;
                launch.sequence.add("started");
                listener.started(childPid);
            }

            @Override
            public void outputBytes(long stdoutBytes, long stderrBytes) {
                listener.outputBytes(stdoutBytes, stderrBytes);
            }

            @Override
            public void terminating(SupervisionResult.Outcome reason) {
                launch.sequence.add("terminating:" + reason);
                listener.terminating(reason);
            }

            @Override
            public void settled() {
                launch.sequence.add("settled");
                listener.settled();
            }
        };
        SupervisedRun run = delegate.launch(wrapped, watching);
        launch.run = run;
        run.result().whenComplete((r, e) -> {
            launch.sequence.add("result");
            if (e != null) {
                launch.result.completeExceptionally(e);
            } else {
                launch.result.complete(r);
            }
        });
        return run;
    }
}
