package dev.skillgate.engine;

import dev.skillgate.audit.AuditLogOptions;
import dev.skillgate.audit.AuditSink;
import dev.skillgate.consent.ExecuteCapability;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.consent.spi.PolicyStore;
import dev.skillgate.engine.internal.EngineCore;
import dev.skillgate.engine.internal.Execution;
import dev.skillgate.engine.internal.NameWarnings;
import dev.skillgate.engine.internal.RetainedStaging;
import dev.skillgate.engine.internal.Settlements;
import dev.skillgate.engine.internal.SupervisorSelector;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.inspect.ContractDialect;
import dev.skillgate.inspect.CredentialBroker;
import dev.skillgate.inspect.DiscoveredSkill;
import dev.skillgate.inspect.InspectOptions;
import dev.skillgate.inspect.Inspection;
import dev.skillgate.inspect.SignatureChecker;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.Limits;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SkillName;
import dev.skillgate.model.shared.DirectoryPlacement;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.runner.ProcessSupervisor;
import dev.skillgate.runner.ResourceCeilings;
import dev.skillgate.runner.linux.ConfinementPolicy;
import dev.skillgate.runner.linux.LinuxSubreaperSupervisor;
import dev.skillgate.workflow.WorkflowJournal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apiguardian.api.API;

/**
 * The facade a host application gives its agent (SPEC §12): list skills, run a skill's script with
 * exact, artifact-bound consent through the host's own approval UI, and get a checked result.
 *
 * <pre>{@code
 * SkillGate gate = SkillGate.builder()
 *     .dataDirectory(dir)                                       // private state: policy, audit, staging
 *     .skillRoots(List.of(repoSkills, userSkills))
 *     .nodeRuntime(NodeRuntime.pinned(nodeBinary, "v20.20.2"))  // absolute path, exact version
 *     .approvalChannel(myUi)                                    // the host's approval surface
 *     .build();
 * ExecutionEnvelope env = gate.execute(ExecutionRequest.of(run, agent, "pdf-fill", inputJson, workspace));
 * }</pre>
 *
 * <p>{@link #activate} hands an agent a prompt skill's instructions after its trust contract was
 * checked and its exact bytes were approved once (SPEC §12).
 *
 * <p>{@link #execute} is: find the skill → capture its bytes → validate the input against its
 * {@code inputSchema} → verify the pinned runtime, resolve the workspace, check the process
 * supervisor → the three launch gates (capability, safe mode, policy) → the policy's route (a
 * trusted-revision receipt, or a proposal → the human's approval → consumption of the one-use
 * grant) → re-capture and compare the revision, re-resolve the workspace, re-check the gates →
 * the runner (private staging, re-hash, direct argv under the supervisor, bounded output,
 * deadline, cleanup proof) → the checked envelope. Any failure before the launch is a
 * {@code REFUSED} envelope naming the reason; there is no fallback path and never a shell.
 *
 * <p>What it does <b>not</b> do: confine the script. A consented script runs as the host user with
 * the user's files and network; Skillgate is not a sandbox. Nothing reachable from a
 * {@code SkillGate} can change policy or trust: that is {@link SkillGateAdmin}'s job, which the host
 * keeps for its settings UI. Thread-safe.
 */
@API(status = API.Status.STABLE, since = "0.1.0")
public final class SkillGate implements AutoCloseable {
    /** The longest {@link #close()} waits when no bound is given. */
    public static final Duration DEFAULT_DRAIN_WAIT =
            Duration.ofMillis(dev.skillgate.model.Timeout.MAX_MILLIS + Limits.TERMINATION_GRACE_MILLIS + 15_000L);

    /** Default of {@link Builder#maxPendingApprovalsPerAgent}. */
    public static final int DEFAULT_PENDING_APPROVALS_PER_AGENT = 4;

    /** Default of {@link Builder#maxApprovalRequestsPerAgentPerMinute}. */
    public static final int DEFAULT_APPROVAL_REQUESTS_PER_AGENT_PER_MINUTE = 30;

    /**
     * Most live runs whose consent state a gate keeps. Beyond it the oldest run with nothing pending or
     * approved is forgotten; a run with approvals outstanding is never ended for a new one, and a new
     * run is then refused with {@code RUN_LIMIT} (decision 0763).
     */
    public static final int MAX_LIVE_RUNS = 256;

    private final EngineCore core;
    private final SkillGateAdmin admin;
    private final boolean ownsAdmin;
    private final ExecuteCapability capability;
    private final LinuxSubreaperSupervisor builtInSupervisor;

    private SkillGate(
            EngineCore core,
            SkillGateAdmin admin,
            boolean ownsAdmin,
            ExecuteCapability capability,
            LinuxSubreaperSupervisor builtInSupervisor) {
        this.core = core;
        this.admin = admin;
        this.ownsAdmin = ownsAdmin;
        this.capability = capability;
        this.builtInSupervisor = builtInSupervisor;
    }

    /** A builder. Data directory and at least one skill root are required. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The loadable skills under the configured roots, by name (first root wins on equal names).
     * Inert: reads {@code SKILL.md} files through the bounded reader; runs, imports and installs
     * nothing. A name a human could mistake for another (a look-alike directory name, mixed scripts)
     * is flagged in {@link SkillSummary#nameFindings()} (decision 0768).
     */
    public List<SkillSummary> catalog() {
        List<SkillSummary> out = new ArrayList<>();
        for (DiscoveredSkill s : core.discover().skills()) {
            out.add(new SkillSummary(
                    s.name(),
                    s.description(),
                    s.location(),
                    s.report().portable(),
                    s.modelInvocationDisabled(),
                    NameWarnings.of(s)));
        }
        out.sort((a, b) -> a.name().compareTo(b.name()));
        return List.copyOf(out);
    }

    /**
     * Inspects the skill called {@code name}: format, capture, manifest and schemas, execution
     * availability, the trust contract and its check against the gate's agent context, the publisher
     * signature. Inert: reads through the bounded reader; runs, imports and installs nothing.
     *
     * <p>Always a report, as SPEC §12's {@code Inspection report = gate.inspect(name)} shows (decision
     * 0361): when no loadable skill has that name the report names no capture, does not
     * {@linkplain Inspection#passes() pass}, and its capture problem is {@code SKILL_NOT_FOUND} (or
     * {@code LAYOUT_LEGACY_FLAT} for a flat legacy skill, which has no directory to capture). A
     * string that is not a valid skill name (an agent may pass anything) is such a name too: its
     * report also lists the broken naming rules ({@code NAME_*}); nothing is looked up.
     */
    public Inspection inspect(String name) {
        Objects.requireNonNull(name, "name");
        List<Diagnostic> broken = SkillName.check(name);
        if (!broken.isEmpty()) {
            return EngineCore.invalidName(name, broken);
        }
        return core.inspect(SkillName.of(name));
    }

    /**
     * Activates a prompt skill for an agent (SPEC §12): captures it; checks its trust contract
     * against {@code context}; looks the scope {agent, contract hash, revision} up in the audit log;
     * on first use asks the human through the approval channel (a publisher signature that the host's
     * checker verifies stands in for that) and records the approval; checks the contract again; and
     * returns the {@code SKILL.md} text <em>of that capture</em> — never re-read from the directory.
     * Editing any byte of the skill is a new scope and asks again; a revoked scope, a contract asking
     * more than the context grants, or a disabled audit log is refused. Nothing is run.
     *
     * @param agent the agent coordinates the approval is scoped to (put the agent version in the id if
     *     approvals should lapse on upgrade)
     * @throws dev.skillgate.model.InvalidValueException with the broken rule's {@code NAME_*} code when
     *     {@code name} is not a valid skill name (nothing is looked up; {@link #inspect} and {@link
     *     SkillName#check} answer with a value instead)
     */
    public Activation activate(AgentId agent, String name, AgentContext context) {
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(context, "context");
        return core.activate(agent, SkillName.of(name), context);
    }

    /**
     * {@link #activate(AgentId, String, AgentContext)} with the agent coordinates taken from the
     * context's agent kind (approvals then survive agent upgrades; the contract's version range is
     * still checked every time).
     */
    public Activation activate(String name, AgentContext context) {
        Objects.requireNonNull(context, "context");
        return activate(AgentId.of(context.agentKind()), name, context);
    }

    /**
     * Runs a skill's script and waits for the outcome (see the class description for every step).
     * Blocks while the human decides; a caller deadline in the request bounds the wait.
     */
    public ExecutionEnvelope execute(ExecutionRequest request) {
        return executeAsync(request).await();
    }

    /** Starts {@link #execute} on its own thread and returns at once. */
    public PendingExecution executeAsync(ExecutionRequest request) {
        Objects.requireNonNull(request, "request");
        return new PendingExecution(core.start(request));
    }

    /**
     * Executions whose process-tree cleanup is not proven: delivered early and not settled yet,
     * settled {@code CLEANUP_UNKNOWN} in this process, or staging directories left by an earlier
     * process that the janitor could not remove. None is ever replayed; see
     * {@link SkillGateAdmin#resolve}.
     */
    public List<UnresolvedExecution> unresolved() {
        List<UnresolvedExecution> out = new ArrayList<>(core.unresolvedInMemory());
        Set<RunId> known = new HashSet<>();
        out.forEach(u -> known.add(u.run()));
        for (Execution e : Settlements.inFlight(core.id())) {
            known.add(e.run());
        }
        for (UnresolvedExecution u : RetainedStaging.list(core.config().dataDirectory())) {
            if (!known.contains(u.run())) {
                out.add(u);
            }
        }
        return List.copyOf(out);
    }

    /**
     * Ends a run on the agent-facing side: its pending and approved invocation proposals are cancelled;
     * consent given in it is gone. It does not end a host-approved workflow plan or durable workflow
     * ({@link SkillGateAdmin#endRun} does). Any holder of this gate who knows the run id can end it:
     * give each agent its own unguessable run ids ({@link RunId#random()}) (decision 0763).
     */
    public void endRun(RunId run) {
        core.endRun(Objects.requireNonNull(run, "run"));
    }

    /** Which process supervisor executions use, and why (chosen at the first use). */
    public SupervisorSelection supervisor() {
        return core.supervisorSelection();
    }

    /**
     * Closes: nothing new starts; every in-flight execution is stopped (outcomes delivered at once)
     * and waited for, each at most until its own settle bound (timeout + grace + kill deadline and
     * the runner's watchdog) and all together at most {@code maxWait}.
     *
     * @return what settled and what did not
     */
    public DrainReport close(Duration maxWait) {
        Objects.requireNonNull(maxWait, "maxWait");
        core.markClosed();
        // The drain lists and stops the in-flight executions before their ledgers end, so that each
        // waiting one ends ENGINE_CLOSED and is counted (decision 0762).
        DrainReport report = Settlements.drain(core.id(), maxWait);
        core.endAllRuns();
        // The built-in supervisor's spare helper (decision 0848) exits with the gate, not the JVM.
        builtInSupervisor.close();
        admin.revokeEngineCapability(capability);
        if (ownsAdmin) {
            admin.close();
        }
        return report;
    }

    /** {@link #close(Duration)} with {@link #DEFAULT_DRAIN_WAIT}. Idempotent. */
    @Override
    public void close() {
        close(DEFAULT_DRAIN_WAIT);
    }

    @Override
    public String toString() {
        return "SkillGate[" + core.config().dataDirectory() + "]";
    }

    /** Configures a {@link SkillGate}. */
    public static final class Builder {
        private Path dataDirectory;
        private final List<Path> skillRoots = new ArrayList<>();
        private NodeRuntime runtime;
        private ApprovalChannel approvalChannel;
        private Duration approvalTimeout = Duration.ofNanos(Limits.CONSENT_WINDOW_NANOS);
        private SkillGateAdmin admin;
        private PolicyStore policyStore;
        private ProcessSupervisor supervisor;
        private String supervisorName;
        private boolean allowUnprovenCleanup;
        private boolean prepareSupervisorAhead;
        private boolean spareForFirstExecutionOnly;
        private Supplier<NodeRuntime> runtimeWhileBuilding;
        private ConfinementPolicy confinement = ConfinementPolicy.PREFER;
        private Optional<Path> delegatedCgroup = Optional.empty();
        private Optional<Path> supervisorHelperDirectory = Optional.empty();
        private ResourceCeilings ceilings = ResourceCeilings.NONE;
        private ExecutionListener listener = ExecutionListener.NONE;
        private boolean scriptStderr;
        private AgentContext agentContext;
        private String namespace;
        private CredentialBroker credentialBroker;
        private SignatureChecker signatureChecker;
        private final List<ContractDialect> contractDialects = new ArrayList<>();
        private final List<String> contractDialectProviders = new ArrayList<>();
        private final List<AuditSink> auditSinks = new ArrayList<>();
        private final List<String> auditSinkProviders = new ArrayList<>();
        private Duration auditSinkTimeout;
        private WorkflowJournal workflowJournal;
        private AgentId vouchedAgent;
        private boolean requestContextsAllowed;
        private int maxPendingApprovalsPerAgent = DEFAULT_PENDING_APPROVALS_PER_AGENT;
        private int maxApprovalRequestsPerAgentPerMinute = DEFAULT_APPROVAL_REQUESTS_PER_AGENT_PER_MINUTE;

        private Builder() {}

        /**
         * The one agent this gate serves, as the host vouches for it (decision 0764): a request or an
         * activation naming another agent is refused with {@code AGENT_NOT_VOUCHED}, so receipts and
         * approvals always name this agent. Without it the agent id in a request is a label the host
         * must set itself (an agent that can choose it can use another agent's receipts).
         */
        public Builder agent(AgentId agent) {
            this.vouchedAgent = Objects.requireNonNull(agent, "agent");
            return this;
        }

        /**
         * Lets a request or an activation carry its own agent context instead of the builder's (decision
         * 0764). Without this call, a context that differs from the builder's {@link #agentContext} is
         * refused with {@code AGENT_NOT_VOUCHED}.
         */
        public Builder allowRequestAgentContexts() {
            this.requestContextsAllowed = true;
            return this;
        }

        /**
         * How many approvals (execution and activation) one agent may have pending at once, across all
         * its runs (default {@value SkillGate#DEFAULT_PENDING_APPROVALS_PER_AGENT}, 1-64); one more is
         * refused with {@code CONSENT_DEMAND_LIMIT} before the human is asked (decision 0763).
         */
        public Builder maxPendingApprovalsPerAgent(int max) {
            if (max < 1 || max > 64) {
                throw new IllegalArgumentException("at most 1-64 pending approvals per agent");
            }
            this.maxPendingApprovalsPerAgent = max;
            return this;
        }

        /**
         * How many approval requests one agent may make per minute, across all its runs (default
         * {@value SkillGate#DEFAULT_APPROVAL_REQUESTS_PER_AGENT_PER_MINUTE}, 1-1000); one more is refused
         * with {@code CONSENT_DEMAND_LIMIT} before the human is asked (decision 0763).
         */
        public Builder maxApprovalRequestsPerAgentPerMinute(int max) {
            if (max < 1 || max > 1000) {
                throw new IllegalArgumentException("at most 1-1000 approval requests per agent per minute");
            }
            this.maxApprovalRequestsPerAgentPerMinute = max;
            return this;
        }

        /**
         * Adds an export of the audit log: the sink receives every record the gate's audit log commits,
         * in sequence order (see {@link AuditSink}). Several sinks are allowed (distinct names, at most
         * {@value AuditLogOptions#MAX_SINKS}). A sink that throws or exceeds {@link #auditSinkTimeout}
         * halts the log fail-closed (decision 0370): the step it was recording and everything after it
         * is refused with {@code AUDIT_SINK_FAILED}. With the gate's private admin nothing can resume
         * the export but a restart; a host that wants {@link TrustAdmin#resumeExport()} opens its own
         * admin with {@link SkillGateAdmin#open(Path, PolicyStore, AuditLogOptions)} and passes it to
         * {@link #admin}. Not allowed together with {@link #admin} (set sinks on the admin's options).
         */
        public Builder auditSink(AuditSink sink) {
            auditSinks.add(Objects.requireNonNull(sink, "sink"));
            return this;
        }

        /**
         * Opts in to the {@link java.util.ServiceLoader} provider of {@link AuditSink} whose
         * {@link AuditSink#name()} is {@code name}, used like {@link #auditSink}. Providers are never
         * used unless named here: a jar on the path does not get the trust log by being there. Each
         * name must match exactly one provider; none, or several (load order never decides), make
         * {@link #build()} throw.
         */
        public Builder auditSinkProvider(String name) {
            Objects.requireNonNull(name, "name");
            if (!AuditSink.NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("an audit sink name is 1-64 of [a-z0-9.-]");
            }
            auditSinkProviders.add(name);
            return this;
        }

        /**
         * How long one export to an audit sink may take before it counts as a failure (default
         * {@link AuditLogOptions#DEFAULT_SINK_TIMEOUT}, 1 ms to 60 s).
         */
        public Builder auditSinkTimeout(Duration timeout) {
            this.auditSinkTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * The agent context skills' trust contracts are checked against when a request carries none.
         * Without one, a skill that has a contract is refused ({@code CONTRACT_AGENT_INCOMPATIBLE}).
         */
        public Builder agentContext(AgentContext context) {
            this.agentContext = Objects.requireNonNull(context, "context");
            return this;
        }

        /** The catalog namespace a contract's {@code identity.id} must start with (default: any). */
        public Builder catalogNamespace(String namespace) {
            this.namespace = Objects.requireNonNull(namespace, "namespace");
            return this;
        }

        /** The host's credential broker (without one, contracts that declare credentials are refused). */
        public Builder credentialBroker(CredentialBroker broker) {
            this.credentialBroker = Objects.requireNonNull(broker, "broker");
            return this;
        }

        /** Verifies signed contracts against the host's publisher keys (without one, signed origins are refused). */
        public Builder signatureChecker(SignatureChecker checker) {
            this.signatureChecker = Objects.requireNonNull(checker, "checker");
            return this;
        }

        /**
         * Adds a trust-contract dialect (see {@link ContractDialect}): a {@code skill.contract.json}
         * whose {@code recordType} is exactly the dialect's is mapped by it, for inspection,
         * activation and execution alike; everything after the mapping (identity rule, contract
         * check, credentials, origin and signature, consent) is unchanged. One dialect per record
         * type; {@code skill-contract} cannot be replaced. Checked at {@link #build()}, which throws
         * {@link IllegalArgumentException} for an invalid or duplicate record type.
         */
        public Builder contractDialect(ContractDialect dialect) {
            contractDialects.add(Objects.requireNonNull(dialect, "dialect"));
            return this;
        }

        /**
         * Opts in to the {@link java.util.ServiceLoader} provider of {@link ContractDialect} whose
         * {@link ContractDialect#recordType()} is {@code recordType}, used like {@link
         * #contractDialect}. Providers are never used unless named here: a jar on the path does not
         * get to read trust contracts by being there. Each record type must match exactly one
         * provider; none, or several (load order never decides), make {@link #build()} throw
         * {@link IllegalStateException}.
         */
        public Builder contractDialectProvider(String recordType) {
            Objects.requireNonNull(recordType, "recordType");
            if (!ContractDialect.isValidRecordType(recordType)) {
                throw new IllegalArgumentException(
                        "a contract dialect record type is 1-64 of [a-z0-9._/-], not skill-contract or a name"
                                + " starting with it");
            }
            contractDialectProviders.add(recordType);
            return this;
        }

        /**
         * The private data directory (absolute): policy, audit log, staging, supervisor helper.
         * Required. It and every directory on its path must not be changeable by another user or group
         * ({@link dev.skillgate.model.shared.DirectoryPlacement}, the OpenSSH StrictModes rule; a root-owned
         * sticky directory such as {@code /tmp} is allowed on the path, with everything below it this
         * user's); otherwise nothing is created there and every execution and activation is refused
         * with {@code DATA_DIRECTORY_UNSAFE}.
         */
        public Builder dataDirectory(Path dataDirectory) {
            this.dataDirectory = SkillGateAdmin.checkedDataDirectory(dataDirectory);
            return this;
        }

        /** The skill roots, highest precedence first (replaces earlier roots). At least one is required. */
        public Builder skillRoots(List<Path> roots) {
            skillRoots.clear();
            roots.forEach(this::skillRoot);
            return this;
        }

        /** Adds a skill root with lower precedence than those added before. */
        public Builder skillRoot(Path root) {
            Objects.requireNonNull(root, "root");
            skillRoots.add(root.toAbsolutePath().normalize());
            return this;
        }

        /** The pinned Node runtime (absolute path, exact version, optionally digest). Without it nothing runs. */
        public Builder nodeRuntime(NodeRuntime runtime) {
            this.runtime = Objects.requireNonNull(runtime, "runtime");
            this.runtimeWhileBuilding = null;
            return this;
        }

        /**
         * The pinned Node runtime, obtained while the gate is built (decision 0866): {@link #build()}
         * calls {@code runtime} once, on the calling thread, after it has started preparing the
         * supervisor ({@link #prepareSupervisorAhead}) and opened the audit log and policy store, so a
         * host that finds its runtime out on a thread of its own (the CLI asks {@code node --version})
         * overlaps that with the gate's opening; the supplier then only waits for that answer. What it returns is used exactly as {@link
         * #nodeRuntime(NodeRuntime)}; what it throws, {@code build()} throws unchanged, after closing
         * what it opened. The gate is never built without a runtime this way. Replaces an earlier
         * {@code nodeRuntime}, and is replaced by a later one.
         */
        public Builder nodeRuntimeWhileBuilding(Supplier<NodeRuntime> runtime) {
            this.runtimeWhileBuilding = Objects.requireNonNull(runtime, "runtime");
            this.runtime = null;
            return this;
        }

        /** The host's approval surface. Without one every approval is denied. */
        public Builder approvalChannel(ApprovalChannel channel) {
            this.approvalChannel = Objects.requireNonNull(channel, "channel");
            return this;
        }

        /**
         * How long a human has to answer one approval request (default and maximum: the 5-minute
         * consent window). No answer in time is a denial ({@code CONSENT_TIMEOUT}).
         */
        public Builder approvalTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero() || timeout.toNanos() > Limits.CONSENT_WINDOW_NANOS) {
                throw new IllegalArgumentException("the approval timeout is more than 0 and at most 5 minutes");
            }
            this.approvalTimeout = timeout;
            return this;
        }

        /**
         * The admin the host keeps for its settings UI; the gate reads policy and safe mode through
         * it. Without one the gate uses a private admin over the data directory's policy file: no
         * object reachable from the gate can change it, but it is a file, and any process of the host
         * user (or root) can (no other user can: the data directory must pass {@link
         * dev.skillgate.model.shared.DirectoryPlacement}).
         */
        public Builder admin(SkillGateAdmin admin) {
            this.admin = Objects.requireNonNull(admin, "admin");
            return this;
        }

        /**
         * The durable workflow journal for the private admin (default: the embedded store in
         * {@code DATA_DIR/workflows} with the key file {@code DATA_DIR/keys/workflow.key}). Not allowed
         * together with {@link #admin}: that admin was opened with its own.
         */
        public Builder workflowJournal(WorkflowJournal journal) {
            this.workflowJournal = Objects.requireNonNull(journal, "journal");
            return this;
        }

        /** A policy store for the private admin (ignored when {@link #admin} is set). */
        public Builder policyStore(PolicyStore store) {
            this.policyStore = Objects.requireNonNull(store, "store");
            return this;
        }

        /** Uses exactly this supervisor (see {@link SupervisorSelection}). */
        public Builder supervisor(ProcessSupervisor supervisor) {
            this.supervisor = Objects.requireNonNull(supervisor, "supervisor");
            return this;
        }

        /**
         * The kernel-confinement (L2) policy of the built-in Linux supervisor: {@code PREFER} (the
         * default) applies every part the kernel offers, {@code REQUIRE} refuses a launch that asks for
         * a part it lacks ({@code CONFINEMENT_UNAVAILABLE}) before anything runs, {@code OFF} applies
         * none. The approval request lists exactly the parts that will be enforced. No effect on a
         * supervisor set with {@link #supervisor}. Not a sandbox (docs/threat-model.md, "L2").
         */
        public Builder confinement(ConfinementPolicy policy) {
            this.confinement = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * A cgroup v2 directory the host delegated to the built-in Linux supervisor (decision 0543):
         * each run then lives in its own child cgroup below it and its cleanup proof adds
         * {@code cgroup.kill} and {@code populated 0}. Nothing is written into any cgroup without it.
         * Memory, process count and CPU are limited only when {@link #resourceCeilings} asks for them
         * (and the controller is available there). No effect on a supervisor set with {@link #supervisor}.
         */
        public Builder delegatedCgroup(Path directory) {
            Objects.requireNonNull(directory, "directory");
            if (!directory.isAbsolute()) {
                throw new IllegalArgumentException("the delegated cgroup must be an absolute path");
            }
            this.delegatedCgroup = Optional.of(directory);
            return this;
        }

        /**
         * The host's resource ceilings every run asks its supervisor for (default
         * {@link ResourceCeilings#NONE}): the rlimits, and the cgroup limits {@code memoryBytes},
         * {@code processes} and {@code cpuPercent}, which the built-in Linux supervisor applies only in
         * a {@link #delegatedCgroup} whose controller is available and only where the script cannot
         * rewrite them (a file-write allow-list from the trust contract, decision 0543). The approval
         * request and the envelope's confinement name each asked-for limit as enforced or not; under
         * {@link ConfinementPolicy#REQUIRE} one that will not apply refuses the execute with
         * {@code CONFINEMENT_UNAVAILABLE} before anything runs. Asking is no guarantee.
         */
        public Builder resourceCeilings(ResourceCeilings ceilings) {
            this.ceilings = Objects.requireNonNull(ceilings, "ceilings");
            return this;
        }

        /** Uses the available supervisor with this name (e.g. {@code linux-subreaper}, {@code portable}). */
        public Builder supervisorNamed(String name) {
            this.supervisorName = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * Opts in to a supervisor that cannot prove cleanup (the portable one, where no proving
         * supervisor exists). Its runs start but can never succeed: each ends
         * {@code CLEANUP_UNKNOWN} with its staging retained. Without this, such a supervisor is
         * refused with {@code PROCESS_OWNERSHIP_UNSUPPORTED} before anything starts.
         */
        public Builder allowUnprovenCleanup() {
            this.allowUnprovenCleanup = true;
            return this;
        }

        /**
         * Hands the listener each launched script's captured stderr, once, as a {@code PROGRESS}
         * event carrying a {@link dev.skillgate.runner.ProgressEvent.Stderr} before it settles: the
         * script's own bytes (untrusted, not decoded, at most 16 KiB; the event says when bytes are
         * missing), for a skill author's debugging. Off by default: events otherwise carry no
         * output. The envelope and the audit log never hold stderr, with this or without it
         * (decision 0632).
         */
        public Builder deliverScriptStderr() {
            this.scriptStderr = true;
            return this;
        }

        /**
         * Prepares the built-in Linux supervisor while the gate is built, on a daemon thread of its
         * own, instead of at the first execution (decision 0850): its helper's install check, its
         * {@code --probe} start, the write-deny probe and its first spare overlap the opening of the
         * audit log and policy store and the host's own work until the first execution. It is the
         * same preparation the first use would make, with the same result (a preparation that throws
         * is not kept, so the first use makes it again and reports it as without this); only its time
         * moves. For a short-lived process that builds a gate to run a skill at once (the CLI). No
         * effect with {@link #supervisor}, with a {@link #supervisorNamed} other than {@code
         * linux-subreaper}, or over a data directory another user could change (nothing is prepared
         * there). Off by default: a gate that is never used then starts nothing. {@link
         * SkillGate#close} waits for a preparation still in progress and retires its spare.
         */
        public Builder prepareSupervisorAhead() {
            this.prepareSupervisorAhead = true;
            return this;
        }

        /**
         * The built-in Linux supervisor starts its spare helper once, for the first execution, and
         * does not start another (decision 0865). For a process that builds a gate to run one skill
         * and close (the CLI): without it, a second spare is started while the first execution's
         * script runs, competes with the script for the CPU and is retired unused at {@link
         * SkillGate#close}. Later executions still work and are checked the same way; each starts its
         * own helper (about 2 ms more, and the helper file hashed when no helper of this gate still
         * runs it). No effect with {@link #supervisor} or a {@link #supervisorNamed} other than {@code
         * linux-subreaper}. Off by default.
         */
        public Builder spareForFirstExecutionOnly() {
            this.spareForFirstExecutionOnly = true;
            return this;
        }

        /**
         * The built-in Linux supervisor extracts its helper into {@code directory} (absolute) instead
         * of {@code <data directory>/supervisor} (decision 0891): for hosts that make a data directory
         * per run (the CLI's temporary ones) and would otherwise extract the helper anew each time and
         * wait for its fresh file to settle before the first start. Its parent must be a directory no
         * other user could change, else the supervisor is unavailable with {@code
         * DATA_DIRECTORY_UNSAFE}. Nothing is weakened: every start of the helper still hashes and checks
         * the open file it executes, and a file there that is not the shipped helper is refused ({@code
         * SUPERVISOR_TAMPERED}), never replaced. No effect with {@link #supervisor} or a {@link
         * #supervisorNamed} other than {@code linux-subreaper}.
         */
        public Builder supervisorHelperDirectory(Path directory) {
            Objects.requireNonNull(directory, "directory");
            if (!directory.isAbsolute()) {
                throw new IllegalArgumentException("the helper directory must be an absolute path");
            }
            this.supervisorHelperDirectory = Optional.of(directory.normalize());
            return this;
        }

        /** Receives progress events. */
        public Builder listener(ExecutionListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * The gate. Chooses the supervisor lazily, at the first execution. Removes nothing: staging
         * directories left by earlier processes are listed by {@link SkillGate#unresolved()} until
         * {@link SkillGateAdmin#resolve} removes them after proof and an audit record.
         */
        public SkillGate build() {
            if (dataDirectory == null && admin != null) {
                dataDirectory = admin.dataDirectory();
            }
            if (dataDirectory == null) {
                throw new IllegalStateException("a data directory is required");
            }
            if (skillRoots.isEmpty()) {
                throw new IllegalStateException("at least one skill root is required");
            }
            if (admin != null && !admin.dataDirectory().equals(dataDirectory)) {
                throw new IllegalStateException("the admin keeps its state in another data directory");
            }
            boolean exporting = !auditSinks.isEmpty() || !auditSinkProviders.isEmpty() || auditSinkTimeout != null;
            if (admin != null && exporting) {
                throw new IllegalStateException(
                        "the admin owns the audit log: set audit sinks on its AuditLogOptions, not on the gate");
            }
            if (admin != null && workflowJournal != null) {
                throw new IllegalStateException(
                        "the admin owns the workflow journal: open it with SkillGateAdmin.open(..., journal)");
            }
            List<AuditSink> sinks = new ArrayList<>(auditSinks);
            sinks.addAll(providedAuditSinks(auditSinkProviders));
            AuditLogOptions.Builder auditOptions = AuditLogOptions.builder(SkillGateAdmin.auditDirectory(dataDirectory))
                    .sinks(sinks);
            if (auditSinkTimeout != null) {
                auditOptions.sinkTimeout(auditSinkTimeout);
            }
            // Checked before anything is created: bad names, duplicates, bounds.
            AuditLogOptions audit = auditOptions.build();
            InspectOptions.Builder dialects = InspectOptions.builder();
            contractDialects.forEach(dialects::contractDialect);
            providedContractDialects(contractDialectProviders).forEach(dialects::contractDialect);
            Map<String, ContractDialect> dialectsByType = dialects.build().contractDialects();
            // A data directory another user could change is not created (and the audit log and policy
            // store refuse it too): the gate builds, and every execution and activation is refused with
            // DATA_DIRECTORY_UNSAFE naming the directory (decision 0520).
            boolean safe =
                    DirectoryPlacement.check(dataDirectory, "data directory").isEmpty();
            if (safe) {
                try {
                    createPrivateDirectory(dataDirectory);
                } catch (IOException e) {
                    throw new UncheckedIOException("the data directory cannot be created", e);
                }
            }
            LinuxSubreaperSupervisor builtIn = builtInSupervisor(
                    dataDirectory, supervisorHelperDirectory, confinement, delegatedCgroup, spareForFirstExecutionOnly);
            if (prepareSupervisorAhead
                    && safe
                    && supervisor == null
                    && (supervisorName == null || LinuxSubreaperSupervisor.NAME.equals(supervisorName))) {
                Thread prepare = new Thread(() -> prepareQuietly(builtIn), "skillgate-supervisor-prepare");
                prepare.setDaemon(true);
                prepare.start();
            }
            try {
                return build(builtIn, audit, dialectsByType);
            } catch (RuntimeException | Error e) {
                // No gate will close it: its spare (if the preparation above started one) is retired here.
                builtIn.close();
                throw e;
            }
        }

        /**
         * {@link LinuxSubreaperSupervisor#capabilities()} ahead of the selection. A failure is not
         * reported here: the supervisor keeps no preparation that threw, so the selection prepares it
         * again and reports what it finds.
         */
        private static void prepareQuietly(LinuxSubreaperSupervisor builtIn) {
            try {
                builtIn.capabilities();
            } catch (RuntimeException e) {
                // See above.
            }
        }

        private SkillGate build(
                LinuxSubreaperSupervisor builtIn, AuditLogOptions audit, Map<String, ContractDialect> dialectsByType) {
            boolean owns = admin == null;
            SkillGateAdmin effectiveAdmin = owns
                    ? SkillGateAdmin.open(
                            dataDirectory,
                            policyStore == null
                                    ? PolicyStore.privateFile(dataDirectory.resolve("policy"))
                                    : policyStore,
                            audit,
                            Optional.ofNullable(workflowJournal))
                    : admin;
            if (runtimeWhileBuilding != null) {
                try {
                    runtime = Objects.requireNonNull(runtimeWhileBuilding.get(), "the runtime supplier returned null");
                } catch (RuntimeException | Error e) {
                    if (owns) {
                        effectiveAdmin.close();
                    }
                    throw e;
                }
            }
            ExecuteCapability capability = effectiveAdmin.grantEngineCapability();
            Optional<ProcessSupervisor> explicit = Optional.ofNullable(supervisor);
            Optional<String> named = Optional.ofNullable(supervisorName);
            boolean unproven = allowUnprovenCleanup;
            EngineCore core = new EngineCore(new EngineCore.Config(
                    dataDirectory,
                    skillRoots,
                    Optional.ofNullable(runtime),
                    Optional.ofNullable(approvalChannel),
                    approvalTimeout,
                    effectiveAdmin.view(),
                    capability,
                    () -> SupervisorSelector.select(explicit, named, unproven, candidates(builtIn)),
                    listener,
                    effectiveAdmin.trail(),
                    Optional.ofNullable(agentContext),
                    Optional.ofNullable(namespace),
                    Optional.ofNullable(credentialBroker),
                    Optional.ofNullable(signatureChecker),
                    dialectsByType,
                    effectiveAdmin.plans(),
                    Optional.ofNullable(vouchedAgent),
                    requestContextsAllowed,
                    maxPendingApprovalsPerAgent,
                    maxApprovalRequestsPerAgentPerMinute,
                    scriptStderr,
                    ceilings));
            // No janitor sweep here: a retained staging directory is an unknown outcome, listed by
            // unresolved() and removed only by the audited SkillGateAdmin.resolve (SPEC §12).
            return new SkillGate(core, effectiveAdmin, owns, capability, builtIn);
        }

        private static void createPrivateDirectory(Path dir) throws IOException {
            if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                return;
            }
            try {
                Files.createDirectories(
                        dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (UnsupportedOperationException e) {
                Files.createDirectories(dir);
            }
        }

        /** Most ServiceLoader providers looked at. */
        private static final int MAX_PROVIDERS = 32;

        /**
         * The named {@link AuditSink} providers, exactly one per name.
         *
         * @throws IllegalStateException when a name matches no provider or several
         */
        private static List<AuditSink> providedAuditSinks(List<String> names) {
            return namedProviders(AuditSink.class, names, AuditSink::name, "named");
        }

        /**
         * The named {@link ContractDialect} providers, exactly one per record type.
         *
         * @throws IllegalStateException when a record type matches no provider or several
         */
        private static List<ContractDialect> providedContractDialects(List<String> recordTypes) {
            return namedProviders(ContractDialect.class, recordTypes, ContractDialect::recordType, "for record type");
        }

        /**
         * For each of {@code names}, the one {@code ServiceLoader} provider of {@code service} whose
         * {@code nameOf} equals it (at most {@link #MAX_PROVIDERS} looked at). A provider that fails to
         * load or to say its name can never be chosen; the others still count.
         *
         * @throws IllegalStateException when a name matches no provider or several (load order never
         *     decides)
         */
        private static <T> List<T> namedProviders(
                Class<T> service, List<String> names, Function<T, String> nameOf, String relation) {
            if (names.isEmpty()) {
                return List.of();
            }
            List<T> found = new ArrayList<>();
            Iterator<T> it = ServiceLoader.load(service).iterator();
            for (int i = 0; i < MAX_PROVIDERS; i++) {
                try {
                    if (!it.hasNext()) {
                        break;
                    }
                    found.add(it.next());
                } catch (ServiceConfigurationError e) {
                    // A provider that fails to load can never be named; the others still count.
                }
            }
            String kind = service.getSimpleName();
            List<T> out = new ArrayList<>();
            for (String name : names) {
                List<T> matching = new ArrayList<>();
                for (T provider : found) {
                    String candidate;
                    try {
                        candidate = nameOf.apply(provider);
                    } catch (RuntimeException e) {
                        continue;
                    }
                    if (name.equals(candidate)) {
                        matching.add(provider);
                    }
                }
                if (matching.isEmpty()) {
                    throw new IllegalStateException(
                            "no " + kind + " provider " + relation + " '" + name + "' is installed");
                }
                if (matching.size() > 1) {
                    throw new IllegalStateException("several " + kind + " providers " + relation + " '" + name
                            + "'; load order never decides, so none is used");
                }
                out.add(matching.get(0));
            }
            return out;
        }

        /**
         * The Linux subreaper supervisor (off Linux it reports itself unavailable). It keeps one spare
         * helper started ahead of the next launch once it is first used (decision 0848), or only the
         * first one ({@code firstSpareOnly}, decision 0865); the gate's {@link SkillGate#close} retires
         * it, so no idle helper outlives the gate.
         */
        private static LinuxSubreaperSupervisor builtInSupervisor(
                Path dataDirectory,
                Optional<Path> helperDirectory,
                ConfinementPolicy confinement,
                Optional<Path> cgroup,
                boolean firstSpareOnly) {
            LinuxSubreaperSupervisor.Builder linux = LinuxSubreaperSupervisor.builder()
                    .dataDirectory(dataDirectory)
                    .confinement(confinement)
                    .spareHelper(true);
            if (firstSpareOnly) {
                linux.firstSpareOnly();
            }
            if (helperDirectory.isPresent()) {
                linux.helperDirectory(helperDirectory.get());
            }
            cgroup.ifPresent(linux::delegatedCgroup);
            return linux.build();
        }

        private static List<ProcessSupervisor> candidates(LinuxSubreaperSupervisor builtIn) {
            List<ProcessSupervisor> out = new ArrayList<>();
            out.add(builtIn);
            Iterator<ProcessSupervisor> it =
                    ServiceLoader.load(ProcessSupervisor.class).iterator();
            for (int i = 0; i < MAX_PROVIDERS; i++) {
                try {
                    if (!it.hasNext()) {
                        break;
                    }
                    out.add(it.next());
                } catch (ServiceConfigurationError e) {
                    // A provider that fails to load can never be chosen; the others still count.
                }
            }
            return out;
        }
    }
}
