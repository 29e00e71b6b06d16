package dev.skillgate.runner;

import dev.skillgate.model.ExecutionStatus;
import java.nio.file.Path;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Progress of one execution, in order: {@link Staged}, {@link Started}, any number of
 * {@link OutputBytes}, optionally {@link Terminating}, then exactly one {@link Settled}. A refused
 * execution may settle without the earlier events. Events carry counts and states, never output.
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
