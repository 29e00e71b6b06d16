package dev.skillgate.engine.internal;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.PromptSkillScope;
import dev.skillgate.consent.ActivationApprovalRequest;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.ArtifactDescription;
import dev.skillgate.consent.ConsentBinding;
import dev.skillgate.consent.ConsentLedger;
import dev.skillgate.consent.ConsentResult;
import dev.skillgate.consent.ConsumedGrant;
import dev.skillgate.consent.ExecuteCapability;
import dev.skillgate.consent.GateCheck;
import dev.skillgate.consent.LaunchAuthorization;
import dev.skillgate.consent.LaunchGates;
import dev.skillgate.consent.PolicyView;
import dev.skillgate.consent.ProposalSnapshot;
import dev.skillgate.consent.ProposalState;
import dev.skillgate.consent.TrustedRevisionLaunch;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.engine.Activation;
import dev.skillgate.engine.ExecutionEvent;
import dev.skillgate.engine.ExecutionListener;
import dev.skillgate.engine.ExecutionRequest;
import dev.skillgate.engine.LaunchAuthority;
import dev.skillgate.engine.SupervisorSelection;
import dev.skillgate.engine.UnresolvedExecution;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.inspect.CaptureOutcome;
import dev.skillgate.inspect.CapturedFile;
import dev.skillgate.inspect.ContractDialect;
import dev.skillgate.inspect.ContractVerdict;
import dev.skillgate.inspect.CredentialBroker;
import dev.skillgate.inspect.DiscoveredSkill;
import dev.skillgate.inspect.DiscoveryOptions;
import dev.skillgate.inspect.DiscoveryResult;
import dev.skillgate.inspect.Finding;
import dev.skillgate.inspect.InspectOptions;
import dev.skillgate.inspect.Inspection;
import dev.skillgate.inspect.SchemaVerdict;
import dev.skillgate.inspect.SignatureChecker;
import dev.skillgate.inspect.SignatureVerdict;
import dev.skillgate.inspect.SkillArtifact;
import dev.skillgate.inspect.SkillDiscovery;
import dev.skillgate.inspect.SkillInspector;
import dev.skillgate.inspect.SkillKind;
import dev.skillgate.inspect.ValidationProfile;
import dev.skillgate.inspect.ValidationReport;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.CleanupReport;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.DirectoryPlacement;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionManifest;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.Limits;
import dev.skillgate.model.OriginType;
import dev.skillgate.model.ProcessExit;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillContract;
import dev.skillgate.model.SkillName;
import dev.skillgate.model.Text;
import dev.skillgate.model.WorkspaceIdentity;
import dev.skillgate.protocol.Invocation;
import dev.skillgate.protocol.SchemaRole;
import dev.skillgate.protocol.Validation;
import dev.skillgate.runner.ExecutionHandle;
import dev.skillgate.runner.LaunchSpec;
import dev.skillgate.runner.NodeRunRequest;
import dev.skillgate.runner.NodeRunner;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.runner.ProcessSupervisor;
import dev.skillgate.runner.ProgressEvent;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The engine behind {@code SkillGate}: the execution sequence of SPEC §12 with its re-checks.
 *
 * <p>capture → validate input → contract → runtime, workspace, supervisor → gates → policy
 * (receipt | proposal → approval → consume) → audit → re-capture and compare revision → workspace
 * and gates again → launch → envelope. Every step before the launch that fails ends the execution
 * as {@code REFUSED} with its reason; there is no other execution path. Not API.
 */
public final class EngineCore {

    /** Slack the runner's watchdog adds beyond deadline + grace + kill deadline before it gives up. */
    static final Duration RUNNER_WATCHDOG_SLACK = Duration.ofSeconds(10);

    /** Most live runs whose consent ledgers are kept; the oldest run's ledger is ended beyond this. */
    static final int MAX_LIVE_RUNS = dev.skillgate.engine.SkillGate.MAX_LIVE_RUNS;

    private static final AtomicLong IDS = new AtomicLong();

    private static final System.Logger LOG = System.getLogger("dev.skillgate.engine");

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
            boolean scriptStderr) {
        public Config {
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
    private final LaunchGates gates;
    private final Map<RunId, ConsentLedger> ledgers = new LinkedHashMap<>();
    private final Object runnerLock = new Object();
    private volatile boolean closed;
    /** Completed when the gate closes: wakes every execution and activation waiting for a human. */
    private final CompletableFuture<Void> closing = new CompletableFuture<>();

    private final java.util.Set<String> listenerFailures = new java.util.HashSet<>(); // guarded by itself
    private NodeRunner runner; // guarded by runnerLock
    private SupervisorSelector.Choice selection; // guarded by runnerLock

    private final Demands demands;

    public EngineCore(Config config) {
        this.config = Objects.requireNonNull(config, "config");
        this.gates = config.policy().launchGates();
        this.demands = new Demands(config.maxPendingApprovalsPerAgent(), config.maxApprovalRequestsPerAgentPerMinute());
    }

    /**
     * Why the host does not vouch for {@code agent} or {@code context} (decision 0764): the builder's
     * agent, when set, is the only agent; the builder's context, when set, is authoritative unless the
     * host allowed per-request contexts.
     */
    private Optional<Diagnostic> notVouched(AgentId agent, Optional<AgentContext> context) {
        if (config.vouchedAgent().isPresent() && !config.vouchedAgent().get().equals(agent)) {
            return Optional.of(Diagnostic.error(
                    ErrorCode.AGENT_NOT_VOUCHED, "", "the request names an agent the host did not vouch for"));
        }
        if (context.isPresent()
                && config.agentContext().isPresent()
                && !config.requestContextsAllowed()
                && !context.get().equals(config.agentContext().get())) {
            return Optional.of(Diagnostic.error(
                    ErrorCode.AGENT_NOT_VOUCHED,
                    "",
                    "the request carries another agent context than the host's; the host did not allow that"));
        }
        return Optional.empty();
    }

    public Config config() {
        return config;
    }

    /** Discovers the skills under the configured roots (inert). */
    public DiscoveryResult discover() {
        return SkillDiscovery.discover(DiscoveryOptions.of(config.skillRoots()));
    }

    /** The loadable skill called {@code name}, if discovery finds one. */
    public Optional<DiscoveredSkill> locate(SkillName name) {
        for (DiscoveredSkill s : discover().skills()) {
            if (s.name().equals(name.value())) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    /**
     * The supervisor selection report (made once, at first use). Over a data directory another user
     * could change nothing is selected (the Linux supervisor would extract its helper there): the
     * report names that problem, and the selection is made once the directory is safe.
     */
    public SupervisorSelection supervisorSelection() {
        synchronized (runnerLock) {
            if (selection == null) {
                Optional<Diagnostic> unsafe = unsafeDataDirectory();
                if (unsafe.isPresent()) {
                    return new SupervisorSelection(
                            "none",
                            false,
                            false,
                            HardeningLayer.NONE,
                            false,
                            List.of(unsafe.get()),
                            "no supervisor is selected over a data directory another user could change");
                }
            }
        }
        return choice().report();
    }

    private SupervisorSelector.Choice choice() {
        synchronized (runnerLock) {
            if (selection == null) {
                selection = config.supervisor().get();
            }
            return selection;
        }
    }

    private NodeRunner runner(SupervisorSelector.Choice sel, NodeRuntime runtime) {
        synchronized (runnerLock) {
            if (runner == null) {
                ProcessSupervisor supervisor = sel.supervisor().orElseThrow();
                runner = NodeRunner.builder()
                        .dataDirectory(config.dataDirectory())
                        .runtime(runtime)
                        .supervisor(supervisor)
                        .acceptUnprovenCleanup(sel.report().unprovenCleanupAccepted())
                        .reportStderr(config.scriptStderr())
                        .build();
            }
            return runner;
        }
    }

    /** Starts an execution on its own daemon thread and returns its registry entry at once. */
    public Execution start(ExecutionRequest request) {
        Objects.requireNonNull(request, "request");
        Execution e = Settlements.register(config.dataDirectory(), id, request.run(), request.agent(), request.skill());
        request.callerDeadline().ifPresent(d -> Settlements.scheduleDeadline(e, d));
        e.outcome().whenComplete((env, t) -> {
            if (env != null) {
                emit(e, ExecutionEvent.Kind.DELIVERED, env.errorCodes(), Optional.empty());
            }
        });
        if (closed) {
            refuse(e, ErrorCode.ENGINE_CLOSED, "this SkillGate is closed");
            return e;
        }
        Thread t = new Thread(() -> runGuarded(e, request), "skillgate-exec-" + request.run());
        t.setDaemon(true);
        t.start();
        return e;
    }

    private void runGuarded(Execution e, ExecutionRequest request) {
        try {
            flow(e, request);
        } catch (RuntimeException | Error t) {
            if (!e.launched()) {
                refuse(
                        e,
                        ErrorCode.EXEC_ABORTED,
                        "internal error before launch (" + t.getClass().getSimpleName() + ")");
            }
            if (t instanceof Error err) {
                throw err;
            }
        }
    }

    /**
     * The data directory's placement (decision 0520): when another user or group could change it or a
     * directory on its path, nothing that is kept there (policy, receipts, audit log, staging) can be
     * relied on, so nothing is looked up or run.
     */
    public Optional<Diagnostic> unsafeDataDirectory() {
        return DirectoryPlacement.check(config.dataDirectory(), "data directory");
    }

    private void flow(Execution e, ExecutionRequest request) {
        SkillName skill = request.skill();
        // 0. The data directory: no other user may be able to change what it holds.
        Optional<Diagnostic> unsafe = unsafeDataDirectory();
        if (unsafe.isPresent()) {
            refuse(e, List.of(unsafe.get()));
            return;
        }
        // 1. Find the skill.
        Optional<DiscoveredSkill> found = locate(skill);
        if (found.isEmpty()) {
            refuse(e, ErrorCode.SKILL_NOT_FOUND, "no loadable skill named '" + skill.value() + "' in the skill roots");
            return;
        }
        if (found.get().kind() == SkillKind.LEGACY_FLAT
                || found.get().directory().isEmpty()) {
            refuse(e, ErrorCode.EXECUTION_UNAVAILABLE, "a legacy flat skill has no execution manifest");
            return;
        }
        Path directory = found.get().directory().get();
        e.location(NameWarnings.location(found.get()));
        // 2. Capture: the bytes that will be shown, bound and run.
        CaptureOutcome captured = SkillArtifact.capture(directory);
        if (captured instanceof CaptureOutcome.Failed f) {
            refuse(e, List.of(f.diagnostic()));
            return;
        }
        try (SkillArtifact artifact = captured.artifact().orElseThrow()) {
            flow(e, request, directory, artifact);
        }
    }

    private void flow(Execution e, ExecutionRequest request, Path directory, SkillArtifact artifact) {
        SkillName skill = request.skill();
        e.revision(artifact.revision());
        if (!artifact.executionAvailable()
                || artifact.manifest().isEmpty()
                || artifact.inputSchema().isEmpty()
                || artifact.outputSchema().isEmpty()) {
            List<Diagnostic> why = new ArrayList<>();
            why.add(Diagnostic.error(ErrorCode.EXECUTION_UNAVAILABLE, "", "the skill cannot be executed"));
            why.addAll(artifact.executionProblems());
            refuse(e, why);
            return;
        }
        ExecutionManifest manifest = artifact.manifest().get();
        // 3. Validate the input.
        Validation<Invocation> checked = artifact.inputSchema().get().checkInvocation(request.invocation());
        if (!(checked instanceof Validation.Valid<Invocation> valid)) {
            refuse(e, checked.issues());
            return;
        }
        Invocation invocation = valid.value();
        // 4. The trust contract against the agent context: the host's (decision 0764).
        Optional<Diagnostic> stranger = notVouched(request.agent(), request.agentContext());
        if (stranger.isPresent()) {
            refuse(e, List.of(stranger.get()));
            return;
        }
        Optional<AgentContext> context = request.agentContext().or(config::agentContext);
        Contracts.Outcome contract = Contracts.check(artifact, context, config);
        if (!contract.refusal().isEmpty()) {
            refuse(e, contract.refusal());
            return;
        }
        // 5. Supervisor, runtime, workspace.
        SupervisorSelector.Choice sel = choice();
        if (sel.supervisor().isEmpty()) {
            refuse(e, sel.report().problems());
            return;
        }
        if (config.runtime().isEmpty()) {
            refuse(e, ErrorCode.RUNTIME_UNAVAILABLE, "no Node runtime is configured");
            return;
        }
        NodeRuntime runtime = config.runtime().get();
        Optional<WorkspaceIdentity> workspace = Workspaces.identify(request.workspace());
        if (workspace.isEmpty()) {
            refuse(e, ErrorCode.WORKSPACE_UNAVAILABLE, "the workspace is missing or not a directory");
            return;
        }
        ConsentBinding binding = new ConsentBinding(
                request.agent(),
                request.run(),
                workspace.get(),
                artifact.revision(),
                invocation.digest(),
                runtime.identity(),
                manifest.timeout(),
                manifest.maxOutputBytes());
        emit(e, ExecutionEvent.Kind.CAPTURED, List.of(), Optional.empty());
        if (stoppedBeforeLaunch(e)) {
            return;
        }
        // 6. Gates and policy.
        GateCheck check = gates.check(Optional.of(config.capability()), skill, binding);
        LaunchAuthorization authorization;
        LaunchAuthority authority;
        switch (check.route()) {
            case TRUSTED_REVISION -> {
                TrustedRevisionLaunch trusted = check.trustedLaunch().orElseThrow();
                if (config.trail().vouchesFor(trusted)) {
                    authorization = trusted;
                    authority = new LaunchAuthority.TrustedRevision(
                            trusted.receipt(),
                            trusted.scope(),
                            AuditTrail.executionScope(trusted.scope(), trusted.receipt())
                                    .id());
                    e.authorised(AuditEvent.Settled.Authority.TRUSTED_REVISION);
                } else {
                    Optional<LaunchAuthorization> asked = ask(
                            e,
                            request,
                            artifact,
                            manifest,
                            invocation,
                            runtime,
                            binding,
                            sel,
                            contract.accepted().map(ContractVerdict.Accepted::contract));
                    if (asked.isEmpty()) {
                        return;
                    }
                    authorization = asked.get();
                    authority = new LaunchAuthority.Asked();
                }
            }
            case ASK_EACH_TIME -> {
                Optional<LaunchAuthorization> asked = ask(
                        e,
                        request,
                        artifact,
                        manifest,
                        invocation,
                        runtime,
                        binding,
                        sel,
                        contract.accepted().map(ContractVerdict.Accepted::contract));
                if (asked.isEmpty()) {
                    return;
                }
                authorization = asked.get();
                authority = new LaunchAuthority.Asked();
            }
            case WORKFLOW_PLAN -> {
                // A step used here is recorded before the launch; when the log cannot record, no step is used.
                Optional<Diagnostic> cannotRecord = config.trail().unavailable();
                if (cannotRecord.isPresent()) {
                    refuse(e, List.of(cannotRecord.get()));
                    return;
                }
                ConsentResult<WorkflowPlans.StepUse> step = config.plans().consumeStep(skill, binding);
                if (!step.isSuccess()) {
                    refuse(e, List.of(step.failure().orElseThrow()));
                    return;
                }
                WorkflowPlans.StepUse use = step.value().orElseThrow();
                Optional<Diagnostic> notRecorded = config.trail().stepConsumed(use.grant(), use.plan());
                if (notRecorded.isPresent()) {
                    refuse(e, List.of(notRecorded.get()));
                    return;
                }
                authorization = use.grant();
                authority =
                        new LaunchAuthority.WorkflowStep(use.plan(), use.grant().step());
                e.authorised(AuditEvent.Settled.Authority.WORKFLOW_STEP);
                // The durable workflow learns the exact input before anything starts; a store that cannot
                // write it, or an owner that was fenced off by a takeover, stops the launch (decision 0684).
                Optional<Diagnostic> notDurable = config.plans().stepStarting(use, invocation.bytes());
                if (notDurable.isPresent()) {
                    refuse(e, List.of(notDurable.get()));
                    return;
                }
                e.workflowStep(use);
            }
            default -> {
                refuse(e, check.failures());
                return;
            }
        }
        emit(e, ExecutionEvent.Kind.AUTHORISED, List.of(), Optional.empty(), Optional.of(authority));
        // 7. Audit the consumption before anything can start.
        if (authorization instanceof ConsumedGrant grant) {
            Optional<Diagnostic> auditProblem = config.trail().consumed(grant);
            if (auditProblem.isPresent()) {
                refuse(e, List.of(auditProblem.get()));
                return;
            }
            e.authorised(AuditEvent.Settled.Authority.CONSENT);
        }
        // 8. Re-capture and compare; the contract, the workspace and the gates again.
        CaptureOutcome again = SkillArtifact.capture(directory);
        if (again instanceof CaptureOutcome.Failed f) {
            refuse(
                    e,
                    List.of(
                            Diagnostic.error(
                                    ErrorCode.CAPTURE_REVISION_MISMATCH, "", "the skill can no longer be captured"),
                            f.diagnostic()));
            return;
        }
        try (SkillArtifact recaptured = again.artifact().orElseThrow()) {
            if (!recaptured.revision().equals(artifact.revision())) {
                refuse(
                        e,
                        ErrorCode.CAPTURE_REVISION_MISMATCH,
                        "the skill changed after it was approved (revision " + artifact.revision()
                                + " is no longer on disk)");
                return;
            }
        }
        Contracts.Outcome contractAgain = Contracts.check(artifact, context, config);
        if (!contractAgain.refusal().isEmpty()) {
            refuse(e, contractAgain.refusal());
            return;
        }
        Optional<Workspaces.Resolved> workspaceNow = Workspaces.resolve(request.workspace());
        if (workspaceNow.isEmpty()) {
            refuse(e, ErrorCode.WORKSPACE_UNAVAILABLE, "the workspace is missing or not a directory");
            return;
        }
        if (!workspace.get().equals(workspaceNow.get().identity())) {
            refuse(e, ErrorCode.WORKSPACE_CHANGED, "the workspace changed after it was approved");
            return;
        }
        GateCheck recheck = gates.recheck(Optional.of(config.capability()), authorization);
        if (!recheck.allowed()) {
            refuse(e, recheck.failures());
            return;
        }
        // A receipt waives consent only while the audit log vouches for it (decision 0263): a revocation
        // committed since it authorised this launch applies, since nothing has started yet (decision 0365).
        if (authorization instanceof TrustedRevisionLaunch trusted
                && !config.trail().vouchesFor(trusted)) {
            refuse(e, ErrorCode.TRUST_REVOKED, "the trusted-revision receipt was revoked before the launch");
            return;
        }
        if (closed) {
            refuse(e, ErrorCode.ENGINE_CLOSED, "this SkillGate closed before launch");
            return;
        }
        if (stoppedBeforeLaunch(e)) {
            return;
        }
        emit(e, ExecutionEvent.Kind.LAUNCHING, List.of(), Optional.empty());
        // 9. Launch: the runner stages the approved capture, re-hashes it and spawns under the supervisor.
        NodeRunRequest runRequest = new NodeRunRequest(
                request.run(),
                manifest,
                artifact.copyOfContents(),
                artifact.revision(),
                invocation.bytes(),
                workspace.get().realPath(),
                // The device and inode whose file key was just compared: the runner and the supervisor
                // refuse a directory swapped in at the same path after this point (WORKSPACE_CHANGED).
                workspaceNow.get().directory(),
                new ResultCheck(artifact.outputSchema().get(), manifest.maxOutputBytes()),
                // The contract just re-checked: its permissionMode and networkDestinations become the
                // launch's kernel confinement where the supervisor and the kernel offer it (L2).
                contractAgain.accepted().map(ContractVerdict.Accepted::contract));
        NodeRunner nodeRunner = runner(sel, runtime);
        Duration settleBound = manifest.timeout()
                .toDuration()
                .plusMillis(Limits.TERMINATION_GRACE_MILLIS)
                .plus(LaunchSpec.DEFAULT_KILL_DEADLINE)
                .plus(RUNNER_WATCHDOG_SLACK);
        Optional<ExecutionHandle> handle = e.launch(
                () -> nodeRunner.start(
                        runRequest, event -> emit(e, ExecutionEvent.Kind.PROGRESS, List.of(), Optional.of(event))),
                settleBound);
        if (handle.isEmpty()) {
            stoppedBeforeLaunch(e);
            return;
        }
        handle.get().envelope().whenComplete((env, failure) -> {
            ExecutionEnvelope settled = env != null ? env : runnerFailed(e);
            settle(e, settled);
            emit(e, ExecutionEvent.Kind.SETTLED, settled.errorCodes(), Optional.empty());
        });
    }

    /**
     * Proposal → approval through the host's channel (fail closed, bounded by the approval timeout
     * and the consent window) → consume with the identical binding.
     */
    private Optional<LaunchAuthorization> ask(
            Execution e,
            ExecutionRequest request,
            SkillArtifact artifact,
            ExecutionManifest manifest,
            Invocation invocation,
            NodeRuntime runtime,
            ConsentBinding binding,
            SupervisorSelector.Choice sel,
            Optional<SkillContract> contract) {
        // Verified before anyone is asked, so the request shows the flags of the binary that will be
        // re-verified at launch (a trusted-revision launch relies on the runner's own verification).
        NodeRuntime.Verification verification = runtime.verify();
        if (verification instanceof NodeRuntime.Refused r) {
            refuse(e, List.of(r.reason()));
            return Optional.empty();
        }
        NodeRuntime.Verified verified = (NodeRuntime.Verified) verification;
        Optional<Diagnostic> tooMuch = demands.admit(request.agent());
        if (tooMuch.isPresent()) {
            refuse(e, List.of(tooMuch.get()));
            return Optional.empty();
        }
        try {
            return askAdmitted(e, request, artifact, manifest, invocation, binding, sel, verified, contract);
        } finally {
            demands.release(request.agent());
        }
    }

    private Optional<LaunchAuthorization> askAdmitted(
            Execution e,
            ExecutionRequest request,
            SkillArtifact artifact,
            ExecutionManifest manifest,
            Invocation invocation,
            ConsentBinding binding,
            SupervisorSelector.Choice sel,
            NodeRuntime.Verified verified,
            Optional<SkillContract> contract) {
        ConsentResult<Proposed> proposed = propose(request.run(), request.skill(), binding);
        if (!proposed.isSuccess()) {
            refuse(e, List.of(proposed.failure().orElseThrow()));
            return Optional.empty();
        }
        ConsentLedger ledger = proposed.value().orElseThrow().ledger();
        ProposalSnapshot proposal = proposed.value().orElseThrow().proposal();
        Optional<Diagnostic> cannotRecord = config.trail().unavailable();
        if (cannotRecord.isPresent()) {
            // The consumption could not be recorded: do not ask a human for a launch that cannot happen.
            ledger.cancel(proposal.id());
            refuse(e, List.of(cannotRecord.get()));
            return Optional.empty();
        }
        if (config.approvalChannel().isEmpty()) {
            ledger.cancel(proposal.id());
            refuse(e, ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, "no approval channel is configured");
            return Optional.empty();
        }
        List<String> argv =
                runner(sel, config.runtime().orElseThrow()).argvPreview(verified, request.run(), manifest.entrypoint());
        ApprovalRequest approvalRequest = ApprovalRequests.build(
                proposal, artifact, manifest, invocation, argv, sel.report(), contract, e.location());
        AtomicReference<ApprovalDecision> seen = new AtomicReference<>();
        ApprovalChannel bounded =
                ApprovalChannel.failClosed(config.approvalChannel().get(), config.approvalTimeout());
        ApprovalChannel recording = r -> bounded.request(r).thenApply(d -> {
            seen.set(d);
            return d;
        });
        emit(e, ExecutionEvent.Kind.APPROVAL_REQUESTED, List.of(), Optional.empty());
        CompletableFuture<ConsentResult<ProposalState>> answer =
                ledger.requestApproval(approvalRequest, recording).toCompletableFuture();
        CompletableFuture.anyOf(answer, e.stopSignal(), closing).join();
        if (e.stopped().isPresent()) {
            ledger.cancel(proposal.id());
            stoppedBeforeLaunch(e);
            return Optional.empty();
        }
        if (closed) {
            // Closing ends every pending approval as ENGINE_CLOSED, whatever cancelled its proposal first.
            ledger.cancel(proposal.id());
            refuse(e, ErrorCode.ENGINE_CLOSED, "this SkillGate closed while the approval was pending");
            return Optional.empty();
        }
        ConsentResult<ProposalState> result = answer.join();
        if (!result.isSuccess()) {
            refuse(e, List.of(result.failure().orElseThrow()));
            return Optional.empty();
        }
        if (result.value().orElseThrow() != ProposalState.APPROVED) {
            ApprovalDecision decision = seen.get();
            if (decision instanceof ApprovalDecision.Denied d) {
                refuse(e, d.code(), d.reason().isEmpty() ? "the approval was denied" : d.reason());
            } else {
                refuse(e, ErrorCode.CONSENT_TIMEOUT, "no approval within the consent window");
            }
            return Optional.empty();
        }
        ConsentResult<ConsumedGrant> grant = ledger.consume(proposal.id(), binding);
        if (!grant.isSuccess()) {
            refuse(e, List.of(grant.failure().orElseThrow()));
            return Optional.empty();
        }
        return Optional.of(grant.value().orElseThrow());
    }

    /**
     * Inspects the skill called {@code name} (inert): every verdict of {@link SkillInspector}; for a
     * name no loadable skill has, a report that does not pass with {@code SKILL_NOT_FOUND} (or
     * {@code LAYOUT_LEGACY_FLAT} for a flat legacy skill) as its capture problem.
     */
    public Inspection inspect(SkillName name) {
        Optional<DiscoveredSkill> found = locate(name);
        if (found.isEmpty()) {
            return uncaptured(
                    name,
                    Diagnostic.error(
                            ErrorCode.SKILL_NOT_FOUND,
                            "",
                            "no loadable skill named '" + name.value() + "' in the skill roots"));
        }
        if (found.get().directory().isEmpty()) {
            return uncaptured(
                    name,
                    Diagnostic.error(
                            ErrorCode.LAYOUT_LEGACY_FLAT, "", "a legacy flat skill has no directory to capture"));
        }
        return SkillInspector.inspect(found.get().directory().get(), inspectOptions(config.agentContext()));
    }

    /**
     * The report for a string that is not a valid skill name: no skill can have it, so {@code
     * SKILL_NOT_FOUND}, with the broken naming rules listed as findings. Nothing is looked up.
     */
    public static Inspection invalidName(String name, List<Diagnostic> broken) {
        Diagnostic why = Diagnostic.error(
                ErrorCode.SKILL_NOT_FOUND, "", "'" + Text.excerpt(name) + "' is not a valid skill name");
        List<Finding> findings = new ArrayList<>();
        for (Diagnostic d : broken) {
            findings.add(new Finding(d, true, true));
        }
        findings.add(new Finding(why, true, true));
        return uncaptured(Path.of(""), findings, why);
    }

    /** A report for a skill that could not be looked at: nothing captured, nothing passes. */
    private static Inspection uncaptured(SkillName name, Diagnostic why) {
        return uncaptured(Path.of(name.value()), List.of(new Finding(why, true, true)), why);
    }

    private static Inspection uncaptured(Path path, List<Finding> findings, Diagnostic why) {
        return new Inspection(
                path,
                new ValidationReport(path, ValidationProfile.STRICT, Optional.empty(), findings),
                Optional.of(why),
                Optional.empty(),
                List.of(),
                Optional.empty(),
                new SchemaVerdict(SchemaRole.INPUT, SchemaVerdict.Status.NOT_CHECKED, List.of()),
                new SchemaVerdict(SchemaRole.OUTPUT, SchemaVerdict.Status.NOT_CHECKED, List.of()),
                false,
                List.of(why),
                Optional.empty(),
                List.of(),
                new SignatureVerdict.NotChecked("no loadable skill has that name"));
    }

    private InspectOptions inspectOptions(Optional<AgentContext> context) {
        // The canonical constructor keeps the dialects keyed by the record type read once at build.
        return new InspectOptions(
                ValidationProfile.STRICT,
                config.namespace(),
                context,
                config.credentialBroker(),
                config.signatureChecker(),
                config.contractDialects());
    }

    /**
     * Prompt-skill activation (SPEC §12): capture → contract check (preflight) → trust lookup for
     * {agent, contract hash, revision} → first-use approval through the approval channel (a
     * verified publisher signature stands in for it) → audit record → contract check again → the
     * SKILL.md text of the capture. A revoked scope is refused; a disabled audit log refuses first use.
     */
    public Activation activate(AgentId agent, SkillName name, AgentContext context) {
        if (closed) {
            return refusedActivation(name, ErrorCode.ENGINE_CLOSED, "this SkillGate is closed");
        }
        try {
            Activation outcome = activateOpen(agent, name, context);
            if (closed && outcome instanceof Activation.Activated) {
                // The gate closed meanwhile: an activation that ends after close is refused, never handed out.
                return refusedActivation(name, ErrorCode.ENGINE_CLOSED, "this SkillGate closed during the activation");
            }
            return outcome;
        } catch (IllegalStateException ex) {
            if (closed) {
                // The private admin's audit log closed under the activation: a refusal value, never an exception.
                return refusedActivation(name, ErrorCode.ENGINE_CLOSED, "this SkillGate closed during the activation");
            }
            throw ex;
        }
    }

    private Activation activateOpen(AgentId agent, SkillName name, AgentContext context) {
        Optional<Diagnostic> stranger = notVouched(agent, Optional.of(context));
        if (stranger.isPresent()) {
            return new Activation.Refused(name, List.of(stranger.get()));
        }
        Optional<Diagnostic> unsafe = unsafeDataDirectory();
        if (unsafe.isPresent()) {
            return new Activation.Refused(name, List.of(unsafe.get()));
        }
        Optional<DiscoveredSkill> found = locate(name);
        if (found.isEmpty()) {
            return refusedActivation(
                    name,
                    ErrorCode.SKILL_NOT_FOUND,
                    "no loadable skill named '" + name.value() + "' in the skill roots");
        }
        if (found.get().kind() == SkillKind.LEGACY_FLAT
                || found.get().directory().isEmpty()) {
            return refusedActivation(
                    name, ErrorCode.LAYOUT_LEGACY_FLAT, "a legacy flat skill has no directory to capture");
        }
        Path directory = found.get().directory().get();
        CaptureOutcome captured = SkillArtifact.capture(directory);
        if (captured instanceof CaptureOutcome.Failed f) {
            return new Activation.Refused(name, List.of(f.diagnostic()));
        }
        try (SkillArtifact artifact = captured.artifact().orElseThrow()) {
            Optional<AgentContext> ctx = Optional.of(context);
            Contracts.Outcome preflight = Contracts.check(artifact, ctx, config);
            if (!preflight.refusal().isEmpty()) {
                return new Activation.Refused(name, preflight.refusal());
            }
            Optional<Sha256Digest> contractDigest = preflight.accepted().map(ContractVerdict.Accepted::sha256);
            boolean signed = preflight
                    .accepted()
                    .map(a -> a.contract().origin().type() == OriginType.SIGNED)
                    .orElse(false);
            if (signed) {
                Optional<Diagnostic> unverified = verifySignature(directory, artifact, ctx);
                if (unverified.isPresent()) {
                    return new Activation.Refused(name, List.of(unverified.get()));
                }
            }
            PromptSkillScope scope = new PromptSkillScope(agent, name, contractDigest, artifact.revision());
            if (config.trail().revoked(scope)) {
                return refusedActivation(
                        name, ErrorCode.TRUST_REVOKED, "this agent's trust in these exact bytes was revoked");
            }
            boolean askedNow = false;
            if (!config.trail().trusts(scope)) {
                Optional<Diagnostic> cannotRecord = config.trail().unavailable();
                if (cannotRecord.isPresent()) {
                    return new Activation.Refused(name, List.of(cannotRecord.get()));
                }
                if (!signed) {
                    Optional<Diagnostic> denial = askActivation(
                            agent, name, context, artifact, preflight, NameWarnings.location(found.get()));
                    if (denial.isPresent()) {
                        return new Activation.Refused(name, List.of(denial.get()));
                    }
                    askedNow = true;
                }
                Optional<Diagnostic> notRecorded = config.trail().approve(scope);
                if (notRecorded.isPresent()) {
                    return new Activation.Refused(name, List.of(notRecorded.get()));
                }
            }
            Contracts.Outcome again = Contracts.check(artifact, ctx, config);
            if (!again.refusal().isEmpty()) {
                return new Activation.Refused(name, again.refusal());
            }
            return new Activation.Activated(
                    name, artifact.revision(), contractDigest, artifact.skillMarkdown(), askedNow);
        }
    }

    private Optional<Diagnostic> askActivation(
            AgentId agent,
            SkillName name,
            AgentContext context,
            SkillArtifact artifact,
            Contracts.Outcome contract,
            Optional<dev.skillgate.consent.SkillLocation> location) {
        if (config.approvalChannel().isEmpty()) {
            return Optional.of(
                    Diagnostic.error(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, "", "no approval channel is configured"));
        }
        List<ArtifactDescription.FileEntry> files = new ArrayList<>();
        for (CapturedFile f : artifact.files()) {
            files.add(new ArtifactDescription.FileEntry(f.path(), f.size(), f.sha256()));
        }
        String instructions = artifact.skillMarkdown();
        ActivationApprovalRequest request = new ActivationApprovalRequest(
                dev.skillgate.consent.ProposalId.random(),
                name,
                agent,
                context.agentKind(),
                context.agentVersion().toString(),
                artifact.revision(),
                files,
                contract.accepted().map(ContractVerdict.Accepted::contract),
                contract.accepted().map(ContractVerdict.Accepted::sha256),
                contract.accepted().map(ContractVerdict.Accepted::recordType),
                () -> instructions,
                Instant.now(),
                location);
        Optional<Diagnostic> tooMuch = demands.admit(agent);
        if (tooMuch.isPresent()) {
            return tooMuch;
        }
        CompletableFuture<ApprovalDecision> answer;
        try {
            answer = ApprovalChannel.failClosed(config.approvalChannel().get(), activationTimeout())
                    .requestActivation(request)
                    .toCompletableFuture();
            CompletableFuture.anyOf(answer, closing).join();
        } finally {
            demands.release(agent);
        }
        if (closed) {
            return Optional.of(Diagnostic.error(
                    ErrorCode.ENGINE_CLOSED, "", "this SkillGate closed while the activation was pending"));
        }
        ApprovalDecision decision = answer.join();
        if (decision instanceof ApprovalDecision.Denied d) {
            return Optional.of(
                    Diagnostic.error(d.code(), "", d.reason().isEmpty() ? "the approval was denied" : d.reason()));
        }
        if (!decision.answers(request.id())) {
            // An approval for another request (decision 0760): never applied to this one.
            return Optional.of(Diagnostic.error(
                    ErrorCode.BINDING_MISMATCH, "", "the approval names another request than this activation"));
        }
        return Optional.empty();
    }

    /**
     * An activation's answer is bounded like an execution's: by the approval timeout and the consent
     * window, whichever is shorter (decision 0761).
     */
    private Duration activationTimeout() {
        Duration window = Duration.ofNanos(Limits.CONSENT_WINDOW_NANOS);
        return config.approvalTimeout().compareTo(window) < 0 ? config.approvalTimeout() : window;
    }

    /**
     * A signed contract must carry a signature the host's checker verifies for exactly this capture;
     * the inspector reads {@code skill.contract.sig} and asks the checker.
     */
    private Optional<Diagnostic> verifySignature(Path directory, SkillArtifact artifact, Optional<AgentContext> ctx) {
        if (config.signatureChecker().isEmpty()) {
            return Optional.of(Diagnostic.error(
                    ErrorCode.SIGNATURE_UNKNOWN_KEY,
                    "/origin",
                    "the contract's origin is signed and the host configured no publisher keys"));
        }
        Inspection inspection = SkillInspector.inspect(directory, inspectOptions(ctx));
        if (!inspection.revision().equals(Optional.of(artifact.revision()))) {
            return Optional.of(Diagnostic.error(
                    ErrorCode.SOURCE_CHANGED, "", "the skill changed while its signature was checked"));
        }
        SignatureVerdict verdict = inspection.signature();
        if (verdict instanceof SignatureVerdict.Verified) {
            return Optional.empty();
        }
        if (verdict instanceof SignatureVerdict.Rejected r) {
            return Optional.of(r.diagnostic());
        }
        return Optional.of(Diagnostic.error(
                ErrorCode.SIGNATURE_MISSING, "skill.contract.sig", "the publisher signature could not be verified"));
    }

    private static Activation refusedActivation(SkillName name, ErrorCode code, String message) {
        return new Activation.Refused(name, List.of(Diagnostic.error(code, "", message)));
    }

    /** A proposal and the ledger that holds it. */
    private record Proposed(ConsentLedger ledger, ProposalSnapshot proposal) {}

    /**
     * Proposes in the ledger of {@code run}, keeping at most {@link #MAX_LIVE_RUNS} live runs
     * (decision 0763): beyond that the oldest run with nothing outstanding is forgotten; a run with a
     * pending or approved proposal is never ended for a new one — when all are busy the new run is
     * refused with {@code RUN_LIMIT}. Atomic with the eviction, so no proposal lands in a forgotten ledger.
     */
    private ConsentResult<Proposed> propose(RunId run, SkillName skill, ConsentBinding binding) {
        synchronized (ledgers) {
            ConsentLedger ledger = ledgers.get(run);
            if (ledger == null) {
                if (ledgers.size() >= MAX_LIVE_RUNS && !forgetOneIdleRun()) {
                    return ConsentResult.failure(
                            ErrorCode.RUN_LIMIT,
                            "the gate already keeps " + MAX_LIVE_RUNS + " live runs with approvals outstanding");
                }
                ledger = ConsentLedger.open(run);
                ledgers.put(run, ledger);
            }
            ConsentResult<ProposalSnapshot> proposed = ledger.propose(skill, binding);
            if (!proposed.isSuccess()) {
                return ConsentResult.failure(proposed.failure().orElseThrow());
            }
            return ConsentResult.success(new Proposed(ledger, proposed.value().orElseThrow()));
        }
    }

    /** Forgets the oldest live run that has nothing pending or approved; false when every run is busy. */
    private boolean forgetOneIdleRun() {
        java.util.Iterator<Map.Entry<RunId, ConsentLedger>> it =
                ledgers.entrySet().iterator();
        while (it.hasNext()) {
            ConsentLedger candidate = it.next().getValue();
            if (candidate.outstandingCount() == 0) {
                it.remove();
                candidate.endRun();
                return true;
            }
        }
        return false;
    }

    /**
     * Ends a run on the agent-facing side: its outstanding invocation proposals are cancelled and its
     * ledger forgotten. A host-approved workflow plan is not touched (decision 0763: the host ends it
     * through {@code SkillGateAdmin.endRun} or {@code cancelWorkflow}).
     */
    public void endRun(RunId run) {
        ConsentLedger ledger;
        synchronized (ledgers) {
            ledger = ledgers.remove(run);
        }
        if (ledger != null) {
            ledger.endRun();
        }
    }

    /**
     * Marks the core closed: nothing new starts, and an execution or activation that checks from now on
     * is refused with {@code ENGINE_CLOSED}. Waiting ones are not woken yet (the drain stops them and
     * counts them first; see {@link #endAllRuns()}).
     */
    public void markClosed() {
        closed = true;
    }

    /**
     * After the drain listed and stopped the in-flight executions: wakes every activation still waiting
     * for a human (it ends {@code ENGINE_CLOSED}) and ends every run's ledger.
     */
    public void endAllRuns() {
        closing.complete(null);
        List<ConsentLedger> all;
        synchronized (ledgers) {
            all = new ArrayList<>(ledgers.values());
            ledgers.clear();
        }
        all.forEach(ConsentLedger::endRun);
    }

    public boolean isClosed() {
        return closed;
    }

    public long id() {
        return id;
    }

    /** Executions of this core whose cleanup is not (yet) proven. */
    public List<UnresolvedExecution> unresolvedInMemory() {
        return Settlements.unresolved(config.dataDirectory());
    }

    private boolean stoppedBeforeLaunch(Execution e) {
        if (e.stopped().isEmpty()) {
            return false;
        }
        // stop() delivered a refusal already; the settlement is the same refusal.
        settle(e, e.outcome().join());
        return true;
    }

    private void refuse(Execution e, ErrorCode code, String message) {
        refuse(e, List.of(Diagnostic.error(code, "", message)));
    }

    private void refuse(Execution e, List<Diagnostic> errors) {
        ExecutionEnvelope env = ExecutionEnvelope.refused(e.run(), e.revision(), e.elapsed(), errors);
        emit(e, ExecutionEvent.Kind.REFUSED, env.errorCodes(), Optional.empty());
        settle(e, env);
    }

    /**
     * Settles {@code e}. An authorised execution first gets its settlement record in the audit log —
     * the real settlement, even when the caller already received an early outcome. The run already
     * happened, so a record that cannot be committed changes no outcome: it is reported to the
     * listener ({@code SETTLEMENT_UNRECORDED}) and kept for {@code unresolved()} and a later resolve.
     */
    private void settle(Execution e, ExecutionEnvelope env) {
        try {
            Optional<AuditEvent.Settled> record = e.settlementRecord(env);
            if (record.isPresent()) {
                Optional<Diagnostic> problem;
                try {
                    problem = config.trail().settled(record.get());
                } catch (RuntimeException ex) {
                    problem = Optional.of(Diagnostic.error(
                            ErrorCode.AUDIT_IO,
                            "",
                            "the settlement record failed (" + ex.getClass().getSimpleName() + ")"));
                }
                if (problem.isPresent()) {
                    e.unrecorded(record.get());
                    emit(
                            e,
                            ExecutionEvent.Kind.SETTLEMENT_UNRECORDED,
                            List.of(problem.get().code()),
                            Optional.empty());
                }
            }
            Optional<WorkflowPlans.StepUse> step = e.workflowStep();
            if (step.isPresent()) {
                try {
                    config.plans().stepSettled(step.get(), env);
                } catch (RuntimeException ex) {
                    // not recorded: recovery shows the step's effect as unknown
                }
            }
        } finally {
            // Whatever happened to the record, the registry must learn that the run settled.
            e.settle(env);
        }
    }

    private static ExecutionEnvelope runnerFailed(Execution e) {
        return new ExecutionEnvelope(
                ExecutionStatus.CLEANUP_UNKNOWN,
                e.run(),
                e.revision(),
                Optional.empty(),
                e.elapsed(),
                ProcessExit.notObserved(),
                Optional.empty(),
                List.of(
                        Diagnostic.error(ErrorCode.SUPERVISOR_DIED, "", "the runner failed without an envelope"),
                        Diagnostic.error(ErrorCode.CLEANUP_UNKNOWN, "", "cleanup was not proven")),
                CleanupReport.unknown(0, false, Optional.empty()),
                HardeningLayer.NONE);
    }

    private void emit(Execution e, ExecutionEvent.Kind kind, List<ErrorCode> codes, Optional<ProgressEvent> progress) {
        emit(e, kind, codes, progress, Optional.empty());
    }

    private void emit(
            Execution e,
            ExecutionEvent.Kind kind,
            List<ErrorCode> codes,
            Optional<ProgressEvent> progress,
            Optional<LaunchAuthority> authority) {
        try {
            config.listener().onEvent(new ExecutionEvent(e.run(), e.skill(), kind, codes, progress, authority));
        } catch (RuntimeException | Error t) {
            // A faulty listener never changes an outcome, a cleanup report or an audit record (decision
            // 0762): whatever it throws, Error included, is contained; only the JVM's own fatal errors go on.
            if (t instanceof VirtualMachineError && !(t instanceof StackOverflowError)) {
                throw t;
            }
            listenerFailed(t);
        }
    }

    /** Logs a listener failure once per exception class (bounded: at most 64 classes are remembered). */
    private void listenerFailed(Throwable t) {
        String name = t.getClass().getName();
        boolean first;
        synchronized (listenerFailures) {
            first = listenerFailures.size() < 64 && listenerFailures.add(name);
        }
        if (first) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "skillgate: the host''s ExecutionListener threw {0}; it changes no outcome and is logged once",
                    name);
        }
    }
}
