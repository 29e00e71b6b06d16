package dev.skillgate.runner.linux;

import dev.skillgate.runner.LaunchSpec;
import dev.skillgate.runner.ProcessSupervisor;
import dev.skillgate.runner.SupervisedRun;
import dev.skillgate.runner.SupervisionListener;
import dev.skillgate.runner.SupervisorCapabilities;
import dev.skillgate.runner.linux.internal.HelperInstaller;
import dev.skillgate.runner.linux.internal.HelperLauncher;
import dev.skillgate.runner.linux.internal.SupervisorCore;
import dev.skillgate.runner.linux.internal.Wire;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The Linux subreaper supervisor: a small single-threaded C helper, shipped in this jar, becomes a
 * child subreaper, starts the process, relays its output in frames, ends it on exit, deadline, cancel
 * or overflow, and reports cleanup {@code PROVEN} only when {@code waitpid(-1, WNOHANG|__WALL)}
 * returns {@code ECHILD} after every descendant was killed. The JVM itself never becomes a subreaper
 * and never waits for anything but its own helper.
 *
 * <p>At first use the helper is extracted into {@code <dataDirectory>/supervisor/}, or the
 * {@linkplain Builder#helperDirectory helper directory} the host names (private 0700
 * directories; the file system must allow exec) and probed once. Every start of the helper hashes
 * the extracted file through one open descriptor, executes exactly that inode through
 * {@code /proc/<jvm>/fd/<n>} and checks the running process before sending it anything; a helper
 * that differs from the digest baked into the jar, at rest or at any moment of its start, is
 * refused with {@code SUPERVISOR_TAMPERED} and never believed. This JVM must stay dumpable (the
 * default) so that its child may execute that descriptor. A working directory bound by
 * {@link dev.skillgate.runner.LaunchSpec#workingDirectoryIdentity()} is opened once, checked by
 * device and inode ({@code WORKSPACE_CHANGED} on a mismatch) and entered by descriptor. Without a
 * helper for this platform, or off Linux,
 * {@link #capabilities()} is unavailable and every launch settles at once as
 * {@code SETUP_FAILED} with a detail starting {@code PROCESS_OWNERSHIP_UNSUPPORTED}.
 *
 * <p>Result details start with the {@link dev.skillgate.model.ErrorCode} name that explains them, e.g.
 * {@code RUNTIME_MISMATCH: executable digest mismatch}, {@code SUPERVISOR_TAMPERED: ...},
 * {@code CLEANUP_UNKNOWN: ...}. A {@code SUPERVISOR_FAILED} outcome (helper killed, malformed frames,
 * watchdog) never proves cleanup; the caller must retain staging and not replay.
 *
 * <p>Not a sandbox: the script runs with the host user's files and network. Hardening layer L1
 * (Landlock scoping, see {@link LandlockPolicy}) only stops it from signalling the helper or the JVM;
 * without L1 a same-user script can kill both. Layer L2 ({@link ConfinementPolicy}) adds, where the
 * kernel offers them, the script's own PID namespace, a Landlock write allow-list and TCP rules taken
 * from {@link LaunchSpec#confinement()}; reads stay unrestricted. Every result names the layer that
 * applied and each L2 part's outcome.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class LinuxSubreaperSupervisor implements ProcessSupervisor, AutoCloseable {

    /** The name this supervisor reports. */
    public static final String NAME = "linux-subreaper";

    private final Path helperDirectory;
    private final LandlockPolicy landlock;
    private final ConfinementPolicy confinement;
    private final boolean spareHelper;
    private final boolean firstSpareOnly;
    private final Optional<Path> delegatedCgroup;
    private volatile SupervisorCore core;
    private boolean closed;

    private LinuxSubreaperSupervisor(Builder b) {
        this.helperDirectory =
                b.helperDirectory != null ? b.helperDirectory : HelperInstaller.directoryBelow(b.dataDirectory);
        this.landlock = b.landlock;
        this.confinement = b.confinement;
        this.spareHelper = b.spareHelper;
        this.firstSpareOnly = b.firstSpareOnly;
        this.delegatedCgroup = b.delegatedCgroup;
    }

    /** A builder; {@link Builder#dataDirectory(Path)} is required. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SupervisorCapabilities capabilities() {
        return core().capabilities();
    }

    @Override
    public SupervisedRun launch(LaunchSpec spec, SupervisionListener listener) {
        return core().launch(spec, listener);
    }

    /**
     * Retires the spare helper ({@link Builder#spareHelper(boolean)}), if one is waiting: it exits
     * without starting anything, and no spare is started again. Runs in flight are not touched, and
     * later launches still work, each starting its own helper. Idempotent; a supervisor never used
     * has nothing to retire. Without it, a waiting spare exits when this JVM does.
     */
    @Override
    public void close() {
        SupervisorCore c;
        synchronized (this) {
            closed = true;
            c = core;
        }
        if (c != null) {
            c.closeSpare();
        }
    }

    /** The Landlock policy this supervisor was built with. */
    public LandlockPolicy landlockPolicy() {
        return landlock;
    }

    /** The kernel-confinement (L2) policy this supervisor was built with. */
    public ConfinementPolicy confinementPolicy() {
        return confinement;
    }

    /** The cgroup v2 directory the host delegated to this supervisor, if it named one. */
    public Optional<Path> delegatedCgroup() {
        return delegatedCgroup;
    }

    private SupervisorCore core() {
        SupervisorCore c = core;
        if (c == null) {
            synchronized (this) {
                c = core;
                if (c == null) {
                    c = SupervisorCore.prepareIn(
                            helperDirectory,
                            policyByte(landlock),
                            policyByte(confinement),
                            delegatedCgroup,
                            HelperLauncher.direct(),
                            spareHelper && !closed,
                            firstSpareOnly ? 1 : Long.MAX_VALUE);
                    core = c;
                }
            }
        }
        return c;
    }

    static int policyByte(LandlockPolicy p) {
        switch (p) {
            case REQUIRE:
                return Wire.POLICY_REQUIRE;
            case OFF:
                return Wire.POLICY_OFF;
            default:
                return Wire.POLICY_PREFER;
        }
    }

    static int policyByte(ConfinementPolicy p) {
        switch (p) {
            case REQUIRE:
                return Wire.POLICY_REQUIRE;
            case OFF:
                return Wire.POLICY_OFF;
            default:
                return Wire.POLICY_PREFER;
        }
    }

    @Override
    public String toString() {
        return "LinuxSubreaperSupervisor[landlock=" + landlock + ", confinement=" + confinement + "]";
    }

    /** Configures a {@link LinuxSubreaperSupervisor}. */
    public static final class Builder {
        private Path dataDirectory;
        private Path helperDirectory;
        private LandlockPolicy landlock = LandlockPolicy.PREFER;
        private ConfinementPolicy confinement = ConfinementPolicy.PREFER;
        private boolean spareHelper = true;
        private boolean firstSpareOnly;
        private Optional<Path> delegatedCgroup = Optional.empty();

        private Builder() {}

        /** The host's private data directory; the helper is extracted below it. Required. */
        public Builder dataDirectory(Path dataDirectory) {
            this.dataDirectory = Objects.requireNonNull(dataDirectory, "dataDirectory");
            return this;
        }

        /**
         * Where the helper is extracted instead of {@code <dataDirectory>/supervisor} (absolute): one
         * directory several supervisors share, so that a data directory made for one run does not
         * extract, and wait for, a helper of its own (decision 0891; the CLI's temporary data
         * directories share {@code $XDG_STATE_HOME/skillgate/supervisor}). Its parent must be a
         * directory no other user could change (decision 0520), else the supervisor is unavailable with
         * {@code DATA_DIRECTORY_UNSAFE}. The guarantees do not change: every start of the helper hashes
         * and checks the open file it executes, wherever it lies; a file found there that is not the
         * shipped helper is refused ({@code SUPERVISOR_TAMPERED}) and never replaced.
         */
        public Builder helperDirectory(Path directory) {
            Objects.requireNonNull(directory, "directory");
            if (!directory.isAbsolute()) {
                throw new IllegalArgumentException("the helper directory must be an absolute path");
            }
            this.helperDirectory = directory.normalize();
            return this;
        }

        /** The Landlock policy; {@link LandlockPolicy#PREFER} unless set. */
        public Builder landlock(LandlockPolicy landlock) {
            this.landlock = Objects.requireNonNull(landlock, "landlock");
            return this;
        }

        /** The kernel-confinement (L2) policy; {@link ConfinementPolicy#PREFER} unless set. */
        public Builder confinement(ConfinementPolicy confinement) {
            this.confinement = Objects.requireNonNull(confinement, "confinement");
            return this;
        }

        /**
         * A cgroup v2 directory the host delegated to this supervisor (absolute; owned by this user,
         * on a cgroup2 file system — checked by the helper at every launch, which otherwise refuses it
         * with {@code CONFINEMENT_UNAVAILABLE}). Per run the helper creates one child cgroup below it,
         * starts the script inside it, writes {@code memory.max}, {@code pids.max} and {@code cpu.max}
         * from {@link LaunchSpec#ceilings()} where the controller is available, and at the end proves
         * with {@code cgroup.kill} and {@code populated 0} that nothing of the run is left. Without one
         * (the default) no cgroup is touched and those limits are reported not enforced.
         */
        public Builder delegatedCgroup(Path directory) {
            Objects.requireNonNull(directory, "directory");
            if (!directory.isAbsolute()) {
                throw new IllegalArgumentException("the delegated cgroup must be an absolute path");
            }
            this.delegatedCgroup = Optional.of(directory.normalize());
            return this;
        }

        /**
         * Whether one verified helper is started ahead of the next launch (default {@code true}). The
         * spare waits for its request and starts nothing on its own; it saves the helper's spawn
         * (about 2 ms) on each launch, at the price of one idle process per supervisor. It exits when
         * this JVM does.
         */
        public Builder spareHelper(boolean spareHelper) {
            this.spareHelper = spareHelper;
            return this;
        }

        /**
         * With {@link #spareHelper(boolean) spareHelper(true)}: only the first spare is started, when the
         * supervisor is prepared, for the first launch; no spare is started after it (decision 0865).
         * For a caller that makes one launch and closes (the CLI): otherwise a second spare is started
         * while that launch's script runs, competes with it for the CPU and is retired unused at
         * {@link #close()}. Later launches still work, each starting its own helper, with the same
         * checks (a helper of this supervisor still running the file vouches for it, decision 0838).
         * Off by default. No effect without the spare.
         */
        public Builder firstSpareOnly() {
            this.firstSpareOnly = true;
            return this;
        }

        /** The supervisor. Installation and probing happen lazily, once, at first use. */
        public LinuxSubreaperSupervisor build() {
            if (dataDirectory == null) {
                throw new IllegalStateException("dataDirectory is required");
            }
            return new LinuxSubreaperSupervisor(this);
        }
    }
}
