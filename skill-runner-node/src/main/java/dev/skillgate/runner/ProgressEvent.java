package dev.skillgate.runner;

import dev.skillgate.model.ExecutionStatus;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Progress of one execution, in order: {@link Staged}, {@link Started}, any number of
 * {@link OutputBytes}, optionally {@link Terminating}, optionally {@link Stderr}, then exactly one
 * {@link Settled}. A refused execution may settle without the earlier events. Events carry counts
 * and states, never output — except {@link Stderr}, which a runner emits only when its host asked
 * for it ({@link NodeRunner.Builder#reportStderr}).
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public sealed interface ProgressEvent {

    /**
     * The bundle was staged privately; the re-hash and spawn are next.
     *
     * @param stagingDirectory the run's private staging directory
     */
    record Staged(Path stagingDirectory) implements ProgressEvent {
        public Staged {
            Objects.requireNonNull(stagingDirectory, "stagingDirectory");
        }
    }

    /**
     * The script's process started.
     *
     * @param pid its pid (informational; never signal it yourself)
     */
    record Started(long pid) implements ProgressEvent {}

    /**
     * Output received so far.
     *
     * @param stdoutBytes stdout bytes
     * @param stderrBytes stderr bytes
     */
    record OutputBytes(long stdoutBytes, long stderrBytes) implements ProgressEvent {}

    /**
     * Termination of the tree began.
     *
     * @param reason why
     */
    record Terminating(SupervisionResult.Outcome reason) implements ProgressEvent {
        public Terminating {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * The script's captured stderr, once, after the process tree was terminated and before
     * {@link Settled}: emitted only by a runner built with {@link NodeRunner.Builder#reportStderr}
     * and only when the script was started (decision 0632). The bytes are the script's own,
     * untrusted and not decoded: escape them before showing them on a terminal. They are neither in
     * the envelope nor in the audit log.
     *
     * @param bytes the captured bytes, at most the stderr limit (16 KiB); copied
     * @param truncated whether bytes may be missing: the script wrote more than the limit (which
     *     ended the run as an output-limit failure), or the capture is full and the run was ended for
     *     another reason, so later bytes may have been dropped
     */
    record Stderr(byte[] bytes, boolean truncated) implements ProgressEvent {
        public Stderr {
            bytes = Objects.requireNonNull(bytes, "bytes").clone();
        }

        /** A copy of the captured bytes. */
        @Override
        public byte[] bytes() {
            return bytes.clone();
        }

        /** The number of captured bytes, without copying. */
        public int size() {
            return bytes.length;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Stderr s && s.truncated == truncated && Arrays.equals(s.bytes, bytes);
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(bytes) + Boolean.hashCode(truncated);
        }

        /** Never prints the bytes. */
        @Override
        public String toString() {
            return "Stderr[" + bytes.length + "B" + (truncated ? ", truncated" : "") + "]";
        }
    }

    /**
     * The execution ended; the envelope completes next.
     *
     * @param status its status
     */
    record Settled(ExecutionStatus status) implements ProgressEvent {
        public Settled {
            Objects.requireNonNull(status, "status");
        }
    }
}
