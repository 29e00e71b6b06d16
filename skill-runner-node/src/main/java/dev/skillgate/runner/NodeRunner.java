package dev.skillgate.runner;

import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.runner.internal.RunExecution;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The direct-argv Node runner (SPEC §10): runs exactly the consented captured bytes with exactly the
 * pinned runtime, a fixed minimal environment, bounded output and a deadline, and reports an
 * {@link ExecutionEnvelope} that never claims a success it did not observe.
 *
 * <p>Launch sequence, each step observable: abort check; supervisor check (a supervisor that cannot
 * prove cleanup is refused with {@code PROCESS_OWNERSHIP_UNSUPPORTED} unless the host opted in);
 * input check (files hash to the revision, manifest files present, invocation ≤ 64 KiB, workspace a
 * directory); runtime verification; abort check; private staging; abort check; re-hash of the
 * staged files; launch through the {@link ProcessSupervisor} whose ownership callback writes the
 * supervisor identity durably, re-hashes the staged files again and checks abort a last time
 * before the child starts; bounded run; envelope; staging removed after proven cleanup, retained and
 * reported otherwise. See {@code docs/runner.md}.
 *
 * <p>Not a sandbox: the script runs as the host user with the user's files and network. The runner
 * does not check consent; the engine does, and hands the runner only approved requests.
 */
public final class NodeRunner {

    private final Path dataDirectory;
    private final NodeRuntime runtime;
    private final ProcessSupervisor supervisor;
    private final boolean acceptUnprovenCleanup;

    private NodeRunner(Builder b) {
        this.dataDirectory = b.dataDirectory;
        this.runtime = b.runtime;
        this.supervisor = b.supervisor;
        this.acceptUnprovenCleanup = b.acceptUnprovenCleanup;
    }

    /** A builder; data directory, runtime and supervisor are required. */
    public static Builder builder() {
        return new Builder();
    }

    /** Starts an execution and returns at once; progress goes to {@code listener}. */
    public ExecutionHandle start(NodeRunRequest request, ProgressListener listener) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(listener, "listener");
        return RunExecution.start(request, runtime, supervisor, dataDirectory, acceptUnprovenCleanup, listener);
    }

    /** Runs an execution and waits for its envelope. */
    public ExecutionEnvelope run(NodeRunRequest request) {
        return start(request, ProgressListener.NONE)
                .envelope()
                .toCompletableFuture()
                .join();
    }

    /** The host data directory; staging lives in its {@code staging} subdirectory. */
    public Path dataDirectory() {
        return dataDirectory;
    }

    /** The pinned runtime. */
    public NodeRuntime runtime() {
        return runtime;
    }

    /** The supervisor. */
    public ProcessSupervisor supervisor() {
        return supervisor;
    }

    /** Builds a {@link NodeRunner}. */
    public static final class Builder {
        private Path dataDirectory;
        private NodeRuntime runtime;
        private ProcessSupervisor supervisor;
        private boolean acceptUnprovenCleanup;

        private Builder() {}

        /** The host's data directory (absolute); created 0700 if missing. */
        public Builder dataDirectory(Path dataDirectory) {
            Objects.requireNonNull(dataDirectory, "dataDirectory");
            if (!dataDirectory.isAbsolute()) {
                throw new IllegalArgumentException("the data directory must be absolute");
            }
            this.dataDirectory = dataDirectory;
            return this;
        }

        /** The pinned runtime. */
        public Builder runtime(NodeRuntime runtime) {
            this.runtime = Objects.requireNonNull(runtime, "runtime");
            return this;
        }

        /** The supervisor. */
        public Builder supervisor(ProcessSupervisor supervisor) {
            this.supervisor = Objects.requireNonNull(supervisor, "supervisor");
            return this;
        }

        /**
         * Opts in to a supervisor that cannot prove cleanup (the {@link PortableSupervisor}). Its runs
         * start, but every one ends {@code CLEANUP_UNKNOWN} with its staging directory retained; none
         * can succeed. Without this, such a supervisor is refused with
         * {@code PROCESS_OWNERSHIP_UNSUPPORTED} before anything is spawned.
         */
        public Builder acceptUnprovenCleanup(boolean accept) {
            this.acceptUnprovenCleanup = accept;
            return this;
        }

        /** The runner. */
        public NodeRunner build() {
            if (dataDirectory == null || runtime == null || supervisor == null) {
                throw new IllegalStateException("data directory, runtime and supervisor are required");
            }
            return new NodeRunner(this);
        }
    }
}
