package dev.skillgate.runner;

import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.RunId;
import dev.skillgate.runner.internal.NodeFlags;
import dev.skillgate.runner.internal.RunExecution;
import dev.skillgate.runner.internal.Staging;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

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
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class NodeRunner {

    private final Path dataDirectory;
    private final NodeRuntime runtime;
    private final ProcessSupervisor supervisor;
    private final boolean acceptUnprovenCleanup;
    private final boolean reportStderr;
    private final ResourceCeilings ceilings;

    private NodeRunner(Builder b) {
        this.dataDirectory = b.dataDirectory;
        this.runtime = b.runtime;
        this.supervisor = b.supervisor;
        this.acceptUnprovenCleanup = b.acceptUnprovenCleanup;
        this.reportStderr = b.reportStderr;
        this.ceilings = b.ceilings;
    }

    /** A builder; data directory, runtime and supervisor are required. */
    public static Builder builder() {
        return new Builder();
    }

    /** Starts an execution and returns at once; progress goes to {@code listener}. */
    public ExecutionHandle start(NodeRunRequest request, ProgressListener listener) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(listener, "listener");
        return RunExecution.start(
                request, runtime, supervisor, dataDirectory, acceptUnprovenCleanup, reportStderr, ceilings, listener);
    }

    /**
     * The argument vector this runner starts for {@code entrypoint} with a runtime verified as
     * {@code verified}, for an approval request (SPEC §8): the real node path, the fixed flags of
     * that version, {@code --}, and the absolute staged entrypoint. The run directory's random
     * 32-hex attempt token is chosen at staging time, so it is shown as
     * {@value #ATTEMPT_PLACEHOLDER}, and the module guard's {@code data:} URL as
     * {@value #MODULE_GUARD_PLACEHOLDER}; every other element is exactly what the supervisor receives.
     * Starts nothing and reads nothing.
     */
    public List<String> argvPreview(NodeRuntime.Verified verified, RunId runId, PortablePath entrypoint) {
        Objects.requireNonNull(verified, "verified");
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(entrypoint, "entrypoint");
        List<String> argv = new ArrayList<>();
        argv.add(runtime.executable().toString());
        argv.addAll(NodeFlags.forVersion(verified.major(), verified.minor(), Optional.of(MODULE_GUARD_PLACEHOLDER)));
        Path bundle = dataDirectory
                .resolve(Staging.STAGING)
                .resolve(ATTEMPT_PLACEHOLDER + "-" + runId.value())
                .resolve(Staging.BUNDLE);
        argv.add(entrypoint.resolveUnder(bundle).toAbsolutePath().toString());
        return List.copyOf(argv);
    }

    /** Stands for the run directory's random attempt token in {@link #argvPreview}. */
    public static final String ATTEMPT_PLACEHOLDER = "<attempt>";

    /**
     * Stands for the module guard's {@code --import} value in {@link #argvPreview} (decision 0510):
     * {@code data:text/javascript;base64,} and the runner's fixed guard source with the table of the
     * approved files' SHA-256 digests, the staged bundle's real path and the entrypoint. The source
     * is fixed by this runner's version and the table by the revision, so the placeholder adds
     * nothing the approval does not already bind; the URL itself is tens of kilobytes.
     */
    public static final String MODULE_GUARD_PLACEHOLDER = dev.skillgate.runner.internal.ModuleGuard.PLACEHOLDER;

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

    /** The resource ceilings every launch of this runner asks the supervisor for. */
    public ResourceCeilings ceilings() {
        return ceilings;
    }

    /** Builds a {@link NodeRunner}. */
    public static final class Builder {
        private Path dataDirectory;
        private NodeRuntime runtime;
        private ProcessSupervisor supervisor;
        private boolean acceptUnprovenCleanup;
        private boolean reportStderr;
        private ResourceCeilings ceilings = ResourceCeilings.NONE;

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

        /**
         * Whether each started execution hands its listener the script's captured stderr as one
         * {@link ProgressEvent.Stderr} before {@link ProgressEvent.Settled} (off by default, so that
         * progress events carry no output). The capture is the same either way: at most 16 KiB, and
         * one byte more ends the run as an output-limit failure. Nothing of it enters the envelope.
         */
        public Builder reportStderr(boolean report) {
            this.reportStderr = report;
            return this;
        }

        /**
         * The resource ceilings every launch asks the supervisor for (default
         * {@link ResourceCeilings#NONE}). The supervisor applies what it can and reports each cgroup
         * limit as its own confinement part in the envelope; asking is no guarantee of enforcement.
         */
        public Builder ceilings(ResourceCeilings ceilings) {
            this.ceilings = Objects.requireNonNull(ceilings, "ceilings");
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
