package dev.skillgate.engine.internal;

import dev.skillgate.consent.ExecuteCapability;
import dev.skillgate.consent.PolicyView;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.engine.Activation;
import dev.skillgate.engine.ExecutionListener;
import dev.skillgate.engine.ExecutionRequest;
import dev.skillgate.engine.SupervisorSelection;
import dev.skillgate.engine.UnresolvedExecution;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.inspect.ContractDialect;
import dev.skillgate.inspect.CredentialBroker;
import dev.skillgate.inspect.DiscoveredSkill;
import dev.skillgate.inspect.DiscoveryOptions;
import dev.skillgate.inspect.DiscoveryResult;
import dev.skillgate.inspect.Inspection;
import dev.skillgate.inspect.SignatureChecker;
import dev.skillgate.inspect.SkillDiscovery;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SkillName;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.runner.ResourceCeilings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The engine behind {@code SkillGate}: one object per gate that wires the parts with one job each —
 * {@link ExecutionFlow} (the execution sequence of SPEC §12 with its re-checks), {@link
 * ExecutionApproval} (asking the human for one execution), {@link Activations} (prompt-skill
 * activation), {@link Inspections} (inert inspection), {@link RunLedgers} (the live runs' consent
 * ledgers), {@link Closing} (the two-phase close), {@link Supervision} (supervisor selection and the
 * runner), {@link Outcomes} (refusal and settlement) and {@link Listeners} (isolated listener calls).
 * Not API.
 */
public final class EngineCore {

    private static final AtomicLong IDS = new AtomicLong();

    /** Everything the builder configured. */
    public record Config(
            Path dataDirectory,
            List<Path> skillRoots,
            Optional<NodeRuntime> runtime,
            Optional<ApprovalChannel> approvalChannel,
            Duration approvalTimeout,
            PolicyView policy,
            ExecuteCapability capability,
            Supplier<SupervisorSelector.Choice> supervisor,
            ExecutionListener listener,
            Trail trail,
            Optional<AgentContext> agentContext,
            Optional<String> namespace,
            Optional<CredentialBroker> credentialBroker,
            Optional<SignatureChecker> signatureChecker,
            Map<String, ContractDialect> contractDialects,
            WorkflowPlans plans,
            Optional<AgentId> vouchedAgent,
            boolean requestContextsAllowed,
            int maxPendingApprovalsPerAgent,
            int maxApprovalRequestsPerAgentPerMinute,
            boolean scriptStderr,
            ResourceCeilings ceilings) {
        public Config {
            Objects.requireNonNull(ceilings, "ceilings");
            Objects.requireNonNull(vouchedAgent, "vouchedAgent");
            Objects.requireNonNull(dataDirectory, "dataDirectory");
            skillRoots = List.copyOf(skillRoots);
            Objects.requireNonNull(runtime, "runtime");
            Objects.requireNonNull(approvalChannel, "approvalChannel");
            Objects.requireNonNull(approvalTimeout, "approvalTimeout");
            Objects.requireNonNull(policy, "policy");
            Objects.requireNonNull(capability, "capability");
            Objects.requireNonNull(supervisor, "supervisor");
            Objects.requireNonNull(listener, "listener");
            Objects.requireNonNull(trail, "trail");
            Objects.requireNonNull(agentContext, "agentContext");
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(credentialBroker, "credentialBroker");
            Objects.requireNonNull(signatureChecker, "signatureChecker");
            contractDialects = Map.copyOf(contractDialects);
            Objects.requireNonNull(plans, "plans");
        }
    }

    private final long id = IDS.incrementAndGet();
    private final Config config;
    private final Closing closing = new Closing();
    private final RunLedgers ledgers = new RunLedgers();
    private final Supervision supervision;
    private final ExecutionFlow executions;
    private final Activations activations;
    private final Inspections inspections;
    /** Discovery once, revalidated per lookup (decision 0805). */
    private final SkillCatalogCache catalog;

    public EngineCore(Config config) {
        this.config = Objects.requireNonNull(config, "config");
        this.catalog = new SkillCatalogCache(
                () -> SkillDiscovery.discover(DiscoveryOptions.of(config.skillRoots())), config.skillRoots());
        Demands demands =
                new Demands(config.maxPendingApprovalsPerAgent(), config.maxApprovalRequestsPerAgentPerMinute());
        this.supervision = new Supervision(config);
        Listeners listeners = new Listeners(config.listener());
        Outcomes outcomes = new Outcomes(config, listeners);
        LateAnswers lateAnswers = new LateAnswers(config.trail());
        ExecutionApproval approval =
                new ExecutionApproval(config, closing, demands, ledgers, supervision, listeners, outcomes, lateAnswers);
        this.executions =
                new ExecutionFlow(id, config, closing, supervision, listeners, outcomes, approval, this::locate);
        this.activations = new Activations(config, closing, demands, supervision, this::locate, lateAnswers);
        this.inspections = new Inspections(config, this::locate);
    }

    public Config config() {
        return config;
    }

    /** Discovers the skills under the configured roots (inert). */
    public DiscoveryResult discover() {
        return catalog.discover();
    }

    /** The loadable skill called {@code name}, if the catalog (decision 0805) finds one. */
    public Optional<DiscoveredSkill> locate(SkillName name) {
        return catalog.locate(name.value());
    }

    /** How many discovery walks this gate made (benchmarks and tests). */
    public long discoveryWalks() {
        return catalog.walks();
    }

    /**
     * The supervisor selection report (made once, at first use). Over a data directory another user
     * could change nothing is selected (the Linux supervisor would extract its helper there): the
     * report names that problem, and the selection is made once the directory is safe.
     */
    public SupervisorSelection supervisorSelection() {
        return supervision.report();
    }

    /** Starts an execution on a daemon thread of its own (a reused one, decision 0816) and returns its registry entry at once. */
    public Execution start(ExecutionRequest request) {
        return executions.start(request);
    }

    /**
     * The data directory's placement (decision 0520): when another user or group could change it or a
     * directory on its path, nothing that is kept there (policy, receipts, audit log, staging) can be
     * relied on, so nothing is looked up or run.
     */
    public Optional<Diagnostic> unsafeDataDirectory() {
        return supervision.unsafeDataDirectory();
    }

    /**
     * Inspects the skill called {@code name} (inert): every verdict of {@code SkillInspector}; for a
     * name no loadable skill has, a report that does not pass with {@code SKILL_NOT_FOUND} (or
     * {@code LAYOUT_LEGACY_FLAT} for a flat legacy skill) as its capture problem.
     */
    public Inspection inspect(SkillName name) {
        return inspections.inspect(name);
    }

    /**
     * The report for a string that is not a valid skill name: no skill can have it, so {@code
     * SKILL_NOT_FOUND}, with the broken naming rules listed as findings. Nothing is looked up.
     */
    public static Inspection invalidName(String name, List<Diagnostic> broken) {
        return Inspections.invalidName(name, broken);
    }

    /**
     * Prompt-skill activation (SPEC §12): capture → contract check (preflight) → trust lookup for
     * {agent, contract hash, revision} → first-use approval through the approval channel (a
     * verified publisher signature stands in for it) → audit record → contract check again → the
     * SKILL.md text of the capture. A revoked scope is refused; a disabled audit log refuses first use.
     */
    public Activation activate(AgentId agent, SkillName name, AgentContext context) {
        return activations.activate(agent, name, context);
    }

    /**
     * Ends a run on the agent-facing side: its outstanding invocation proposals are cancelled and its
     * ledger forgotten. A host-approved workflow plan is not touched (decision 0763: the host ends it
     * through {@code SkillGateAdmin.endRun} or {@code cancelWorkflow}).
     */
    public void endRun(RunId run) {
        ledgers.end(run);
    }

    /**
     * Marks the core closed: nothing new starts, and an execution or activation that checks from now on
     * is refused with {@code ENGINE_CLOSED}. Waiting ones are not woken yet (the drain stops them and
     * counts them first; see {@link #endAllRuns()}).
     */
    public void markClosed() {
        closing.mark();
    }

    /**
     * After the drain listed and stopped the in-flight executions: wakes every activation still waiting
     * for a human (it ends {@code ENGINE_CLOSED}) and ends every run's ledger.
     */
    public void endAllRuns() {
        closing.wake();
        ledgers.endAll();
    }

    public boolean isClosed() {
        return closing.isClosed();
    }

    public long id() {
        return id;
    }

    /** Executions of this core whose cleanup is not (yet) proven. */
    public List<UnresolvedExecution> unresolvedInMemory() {
        return Settlements.unresolved(config.dataDirectory());
    }
}
