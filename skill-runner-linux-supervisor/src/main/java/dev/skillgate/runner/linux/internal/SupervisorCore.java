package dev.skillgate.runner.linux.internal;

import dev.skillgate.model.Confinement;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.ProcessExit;
import dev.skillgate.runner.LaunchSpec;
import dev.skillgate.runner.SupervisedRun;
import dev.skillgate.runner.SupervisionListener;
import dev.skillgate.runner.SupervisionResult;
import dev.skillgate.runner.SupervisorCapabilities;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Linux supervisor behind the public facade: the installed helper, what its probe reported, the
 * Landlock policy and the launcher. {@link #prepare} installs and probes once; launches then verify
 * the helper's digest each time.
 */
public final class SupervisorCore {
    private static final Logger LOG = LoggerFactory.getLogger("dev.skillgate.runner.linux");
    private static final ScheduledExecutorService WATCHDOGS = watchdogScheduler();
    /** Driver and diagnostics threads, reused across runs (each run holds two while it lasts). */
    private static final ExecutorService THREADS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "skillgate-supervisor");
        t.setDaemon(true);
        return t;
    });

    private final SupervisorCapabilities capabilities;
    private final Optional<HelperInstaller.Installed> installed;
    private final Optional<HelperProbe.Probe> probe;
    private final int policy;
    private final int confinementPolicy;
    private final Optional<Path> delegatedCgroup;
    private final SpareHelper spares;
    private final ExecutableIdentityCache identityCache = new ExecutableIdentityCache();

    private SupervisorCore(
            SupervisorCapabilities capabilities,
            Optional<HelperInstaller.Installed> installed,
            Optional<HelperProbe.Probe> probe,
            int policy,
            int confinementPolicy,
            Optional<Path> delegatedCgroup,
            SpareHelper spares) {
        this.capabilities = capabilities;
        this.delegatedCgroup = delegatedCgroup;
        this.installed = installed;
        this.probe = probe;
        this.policy = policy;
        this.confinementPolicy = confinementPolicy;
        this.spares = spares;
    }

    /**
     * Installs the helper under {@code dataDirectory}, probes it and decides the capabilities.
     *
     * @param policy one of {@link Wire#POLICY_OFF}, {@link Wire#POLICY_PREFER}, {@link Wire#POLICY_REQUIRE}
     */
    public static SupervisorCore prepare(Path dataDirectory, int policy, HelperLauncher launcher) {
        return prepare(dataDirectory, policy, launcher, false);
    }

    /**
     * As {@link #prepare(Path, int, HelperLauncher)}; with {@code spare} one helper is kept started
     * ahead of the next launch ({@link SpareHelper}).
     */
    public static SupervisorCore prepare(Path dataDirectory, int policy, HelperLauncher launcher, boolean spare) {
        return prepare(dataDirectory, policy, Wire.POLICY_PREFER, launcher, spare);
    }

    /**
     * As {@link #prepare(Path, int, HelperLauncher, boolean)} with an L2 (kernel confinement) policy
     * byte: each launch asks the helper for what its {@link LaunchSpec#confinement()} names, and the
     * helper applies each part where the kernel offers it ({@code PREFER}), refuses a launch it cannot
     * confine fully ({@code REQUIRE}), or applies none ({@code OFF}).
     */
    public static SupervisorCore prepare(
            Path dataDirectory, int policy, int confinementPolicy, HelperLauncher launcher, boolean spare) {
        return prepare(dataDirectory, policy, confinementPolicy, Optional.empty(), launcher, spare);
    }

    /**
     * As {@link #prepare(Path, int, int, HelperLauncher, boolean)} with the cgroup v2 directory the
     * host delegated (if any): each launch's helper creates the run's own cgroup below it, applies the
     * cgroup limits of {@link LaunchSpec#ceilings()} where the controller is available, and adds the
     * {@code cgroup.kill} / {@code populated 0} proof. Nothing is written anywhere without one.
     */
    public static SupervisorCore prepare(
            Path dataDirectory,
            int policy,
            int confinementPolicy,
            Optional<Path> delegatedCgroup,
            HelperLauncher launcher,
            boolean spare) {
        return prepare(dataDirectory, policy, confinementPolicy, delegatedCgroup, launcher, spare, Long.MAX_VALUE);
    }

    /**
     * As {@link #prepare(Path, int, int, Optional, HelperLauncher, boolean)}, starting at most {@code
     * maxSpares} spares over this supervisor's life (decision 0865: a one-shot caller asks for one, the
     * first, started here for its one launch; later launches then start their own helper).
     */
    public static SupervisorCore prepare(
            Path dataDirectory,
            int policy,
            int confinementPolicy,
            Optional<Path> delegatedCgroup,
            HelperLauncher launcher,
            boolean spare,
            long maxSpares) {
        Objects.requireNonNull(dataDirectory, "dataDirectory");
        return prepareIn(
                HelperInstaller.directoryBelow(dataDirectory),
                policy,
                confinementPolicy,
                delegatedCgroup,
                launcher,
                spare,
                maxSpares);
    }

    /**
     * As {@link #prepare(Path, int, int, Optional, HelperLauncher, boolean, long)}, with the helper
     * installed in {@code helperDirectory} instead of below a data directory (decision 0891).
     */
    public static SupervisorCore prepareIn(
            Path helperDirectory,
            int policy,
            int confinementPolicy,
            Optional<Path> delegatedCgroup,
            HelperLauncher launcher,
            boolean spare,
            long maxSpares) {
        Objects.requireNonNull(helperDirectory, "helperDirectory");
        Objects.requireNonNull(delegatedCgroup, "delegatedCgroup");
        Objects.requireNonNull(launcher, "launcher");
        SpareHelper spares = new SpareHelper(launcher, spare, maxSpares, THREADS);
        HelperInstaller.Installation installation = HelperInstaller.installInto(helperDirectory);
        if (installation instanceof HelperInstaller.Unavailable) {
            HelperInstaller.Unavailable u = (HelperInstaller.Unavailable) installation;
            LOG.warn("Skillgate Linux supervisor unavailable: {}", u.describe());
            return unavailable(
                    u.describe(),
                    policy,
                    confinementPolicy,
                    delegatedCgroup,
                    spares,
                    Optional.empty(),
                    Optional.empty());
        }
        HelperInstaller.Installed inst = (HelperInstaller.Installed) installation;
        HelperProbe.Outcome probed = HelperProbe.probe(inst);
        Optional<HelperProbe.Probe> probe = probed.probe();
        if (probed.refusal().isPresent()) {
            String d = probed.refusal().get().describe();
            LOG.warn("Skillgate Linux supervisor unavailable: {}", d);
            return unavailable(d, policy, confinementPolicy, delegatedCgroup, spares, Optional.of(inst), probe);
        }
        if (probe.isEmpty()) {
            String d = "SUPERVISOR_UNAVAILABLE: the helper does not run here (is the data directory mounted noexec?)";
            LOG.warn("Skillgate Linux supervisor unavailable: {}", d);
            return unavailable(d, policy, confinementPolicy, delegatedCgroup, spares, Optional.of(inst), probe);
        }
        HelperProbe.Probe pr = probe.get();
        if (pr.protocol() != Wire.PROTOCOL || !pr.selftestOk()) {
            String d = "SUPERVISOR_UNAVAILABLE: the helper's protocol or self-test does not match this library";
            LOG.warn("Skillgate Linux supervisor unavailable: {}", d);
            return unavailable(d, policy, confinementPolicy, delegatedCgroup, spares, Optional.of(inst), probe);
        }
        if (!pr.subreaper()) {
            String d = "PROCESS_OWNERSHIP_UNSUPPORTED: the kernel refused PR_SET_CHILD_SUBREAPER";
            LOG.warn("Skillgate Linux supervisor unavailable: {}", d);
            return unavailable(d, policy, confinementPolicy, delegatedCgroup, spares, Optional.of(inst), probe);
        }
        boolean scope = pr.landlockScope();
        if (policy == Wire.POLICY_REQUIRE && !scope) {
            String d = "HARDENING_UNAVAILABLE: Landlock signal scoping (ABI 6) is required; the kernel offers ABI "
                    + pr.landlockAbi();
            LOG.warn("Skillgate Linux supervisor unavailable: {}", d);
            return unavailable(d, policy, confinementPolicy, delegatedCgroup, spares, Optional.of(inst), probe);
        }
        HardeningLayer layer = policy != Wire.POLICY_OFF && scope ? HardeningLayer.L1 : HardeningLayer.L0;
        boolean anyPart = pr.pidNamespace() || pr.landlockFs() || pr.landlockNet() || delegatedCgroup.isPresent();
        if (layer == HardeningLayer.L1 && confinementPolicy != Wire.POLICY_OFF && anyPart) {
            layer = HardeningLayer.L2;
        }
        String detail = "helper " + pr.version() + " (" + inst.platform() + "), Landlock ABI " + pr.landlockAbi()
                + ", policy " + policyName(policy) + ", confinement " + policyName(confinementPolicy) + " (process "
                + (pr.pidNamespace() ? "yes" : "no") + ", writes " + (pr.landlockFs() ? "yes" : "no") + ", tcp "
                + (pr.landlockNet() ? "yes" : "no") + "), " + CgroupControllers.describe(delegatedCgroup) + ", layer "
                + layer;
        if (layer != HardeningLayer.L0) {
            LOG.info("Skillgate Linux supervisor ready: {}. Not a sandbox.", detail);
        } else {
            LOG.warn(
                    "Skillgate Linux supervisor ready without Landlock signal scoping: {}. A script running as this"
                            + " user can signal the supervisor or this JVM. Not a sandbox.",
                    detail);
        }
        SupervisorCore core = new SupervisorCore(
                new SupervisorCapabilities(true, true, layer, detail, offered(pr, confinementPolicy, delegatedCgroup)),
                Optional.of(inst),
                probe,
                policy,
                confinementPolicy,
                delegatedCgroup,
                spares);
        // Once per JVM, before any witness may vouch (decision 0848): does this kernel write-deny?
        WriteDenyProbe.ask(inst.binary().getParent());
        spares.replenish(inst);
        return core;
    }

    /** The parts a launch gets when it asks for them: what the probe found, unless the policy is off. */
    static Confinement offered(HelperProbe.Probe pr, int confinementPolicy) {
        return offered(pr, confinementPolicy, Optional.empty());
    }

    /**
     * As above; a resource limit is offered only in a delegated cgroup whose {@code cgroup.controllers}
     * lists its controller (the helper checks again per launch and refuses or reports what it could not).
     */
    static Confinement offered(HelperProbe.Probe pr, int confinementPolicy, Optional<Path> cgroup) {
        boolean on = confinementPolicy != Wire.POLICY_OFF;
        CgroupControllers cc = CgroupControllers.of(cgroup);
        return new Confinement(
                on && pr.pidNamespace() ? Confinement.Part.ENFORCED : Confinement.Part.NOT_ENFORCED,
                on && pr.landlockFs() ? Confinement.Part.ENFORCED : Confinement.Part.NOT_ENFORCED,
                on && pr.landlockNet() ? Confinement.Part.ENFORCED : Confinement.Part.NOT_ENFORCED,
                on && cc.memory() ? Confinement.Part.ENFORCED : Confinement.Part.NOT_ENFORCED,
                on && cc.pids() ? Confinement.Part.ENFORCED : Confinement.Part.NOT_ENFORCED,
                on && cc.cpu() ? Confinement.Part.ENFORCED : Confinement.Part.NOT_ENFORCED);
    }

    private static SupervisorCore unavailable(
            String detail,
            int policy,
            int confinementPolicy,
            Optional<Path> delegatedCgroup,
            SpareHelper spares,
            Optional<HelperInstaller.Installed> inst,
            Optional<HelperProbe.Probe> probe) {
        return new SupervisorCore(
                SupervisorCapabilities.unavailable(detail),
                inst,
                probe,
                policy,
                confinementPolicy,
                delegatedCgroup,
                spares);
    }

    /**
     * Retires the spare helper, if one waits, and starts no more spares; launches still work, each
     * with a helper of its own. Idempotent.
     */
    public void closeSpare() {
        spares.close();
    }

    /** What this supervisor offers here. */
    public SupervisorCapabilities capabilities() {
        return capabilities;
    }

    /** The installed helper, when there is one. */
    public Optional<HelperInstaller.Installed> installed() {
        return installed;
    }

    /** What the probe reported, when it ran. */
    public Optional<HelperProbe.Probe> probe() {
        return probe;
    }

    /** The identity cache for pinned executables (tests clear it to force a full hash). */
    public ExecutableIdentityCache identityCache() {
        return identityCache;
    }

    /** Starts a run; if the supervisor is unavailable, the run is already settled as a setup failure. */
    public SupervisedRun launch(LaunchSpec spec, SupervisionListener listener) {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(listener, "listener");
        if (!capabilities.available() || installed.isEmpty()) {
            SupervisionResult r = new SupervisionResult(
                    SupervisionResult.Outcome.SETUP_FAILED,
                    ProcessExit.notObserved(),
                    new byte[0],
                    new byte[0],
                    SupervisionResult.CleanupEvidence.nothingStarted(),
                    HardeningLayer.NONE,
                    Duration.ZERO,
                    capabilities.detail());
            try {
                listener.settled();
            } catch (RuntimeException e) {
                // ignored by contract
            }
            return new SettledRun(r);
        }
        HelperRun run = new HelperRun(
                spec,
                listener,
                installed.get(),
                spares,
                policy,
                confinementPolicy,
                delegatedCgroup,
                identityCache,
                WATCHDOGS,
                THREADS);
        run.start();
        return run;
    }

    static String policyName(int policy) {
        switch (policy) {
            case Wire.POLICY_OFF:
                return "off";
            case Wire.POLICY_REQUIRE:
                return "require";
            default:
                return "prefer";
        }
    }

    private static ScheduledExecutorService watchdogScheduler() {
        ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "skillgate-supervisor-watchdog");
            t.setDaemon(true);
            return t;
        });
        s.setRemoveOnCancelPolicy(true);
        return s;
    }

    /** A run that ended before it began. */
    private static final class SettledRun implements SupervisedRun {
        private final CompletableFuture<SupervisionResult> result;

        SettledRun(SupervisionResult r) {
            this.result = CompletableFuture.completedFuture(r);
        }

        @Override
        public void cancel() {}

        @Override
        public CompletionStage<SupervisionResult> result() {
            return result;
        }
    }
}
