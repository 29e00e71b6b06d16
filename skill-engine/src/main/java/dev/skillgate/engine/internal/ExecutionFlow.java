package dev.skillgate.engine.internal;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.consent.ConsentBinding;
import dev.skillgate.consent.ConsentResult;
import dev.skillgate.consent.GateCheck;
import dev.skillgate.consent.LaunchAuthorization;
import dev.skillgate.consent.LaunchGates;
import dev.skillgate.consent.TrustedRevisionLaunch;
import dev.skillgate.consent.shared.ConsumedGrant;
import dev.skillgate.engine.ExecutionEvent;
import dev.skillgate.engine.ExecutionRequest;
import dev.skillgate.engine.LaunchAuthority;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.inspect.CaptureOutcome;
import dev.skillgate.inspect.ContractVerdict;
import dev.skillgate.inspect.DiscoveredSkill;
import dev.skillgate.inspect.SkillArtifact;
import dev.skillgate.inspect.SkillKind;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionManifest;
import dev.skillgate.model.Limits;
import dev.skillgate.model.SkillName;
import dev.skillgate.model.WorkspaceIdentity;
import dev.skillgate.model.shared.ReusedDaemonThreads;
import dev.skillgate.protocol.Invocation;
import dev.skillgate.protocol.Validation;
import dev.skillgate.runner.ExecutionHandle;
import dev.skillgate.runner.LaunchSpec;
import dev.skillgate.runner.NodeRunRequest;
import dev.skillgate.runner.NodeRunner;
import dev.skillgate.runner.NodeRuntime;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;

/**
 * One execution, the sequence of SPEC §12 with its re-checks: capture → validate input → contract →
 * runtime, workspace, supervisor → gates → policy (receipt | proposal → approval → consume) → audit →
 * re-capture and compare revision → workspace and gates again → launch → envelope. Every step before
 * the launch that fails ends the execution as {@code REFUSED} with its reason; there is no other
 * execution path. Each execution runs on a daemon thread of its own for its whole flow, taken from
 * an unbounded set of reusable threads (decision 0816). Not API.
 */
final class ExecutionFlow {

    /** Slack the runner's watchdog adds beyond deadline + grace + kill deadline before it gives up. */
    static final Duration RUNNER_WATCHDOG_SLACK = Duration.ofSeconds(10);

    private final long coreId;
    private final EngineCore.Config config;
    private final LaunchGates gates;
    private final Closing closing;
    private final Supervision supervision;
    private final Listeners listeners;
    private final Outcomes outcomes;
    private final ExecutionApproval approval;
    private final Function<SkillName, Optional<DiscoveredSkill>> locator;

    ExecutionFlow(
            long coreId,
            EngineCore.Config config,
            Closing closing,
            Supervision supervision,
            Listeners listeners,
            Outcomes outcomes,
            ExecutionApproval approval,
            Function<SkillName, Optional<DiscoveredSkill>> locator) {
        this.coreId = coreId;
        this.config = config;
        this.gates = config.policy().launchGates();
        this.closing = closing;
        this.supervision = supervision;
        this.listeners = listeners;
        this.outcomes = outcomes;
        this.approval = approval;
        this.locator = locator;
    }

    /** Starts an execution on a daemon thread of its own (a reused one, decision 0816) and returns its registry entry at once. */
    Execution start(ExecutionRequest request) {
        Objects.requireNonNull(request, "request");
        Execution e =
                Settlements.register(config.dataDirectory(), coreId, request.run(), request.agent(), request.skill());
        request.callerDeadline().ifPresent(d -> Settlements.scheduleDeadline(e, d));
        e.outcome().whenComplete((env, t) -> {
            if (env != null) {
                listeners.emit(e, ExecutionEvent.Kind.DELIVERED, env.errorCodes(), Optional.empty());
            }
        });
        if (closing.isClosed()) {
            outcomes.refuse(e, ErrorCode.ENGINE_CLOSED, "this SkillGate is closed");
            return e;
        }
        try {
            EXECUTION_THREADS.start("skillgate-exec-" + request.run(), () -> runGuarded(e, request));
        } catch (RejectedExecutionException | OutOfMemoryError noThread) {
            outcomes.refuse(e, ErrorCode.EXEC_ABORTED, "no thread could be started for the execution");
        }
        return e;
    }

    /** The name of an execution thread between executions. */
    static final String IDLE_NAME = "skillgate-exec-idle";

    /**
     * The process-wide execution threads (decision 0816): each execution still runs alone on a daemon
     * thread of its own, named after its run, for as long as it needs — an idle one is reused instead
     * of a new one being started (≈ 0.1 ms of CPU and 0.2–0.3 ms of latency per execute on this
     * machine). Unbounded like the threads it replaces: one waiting for a human never delays another
     * execution. Idle threads end after 30 s.
     */
    private static final ReusedDaemonThreads EXECUTION_THREADS = new ReusedDaemonThreads(IDLE_NAME);

    private void runGuarded(Execution e, ExecutionRequest request) {
        try {
            flow(e, request);
        } catch (RuntimeException | Error t) {
            if (!e.launched()) {
                outcomes.refuse(
                        e,
                        ErrorCode.EXEC_ABORTED,
                        "internal error before launch (" + t.getClass().getSimpleName() + ")");
            }
            if (t instanceof Error err) {
                throw err;
            }
        }
    }

    private void flow(Execution e, ExecutionRequest request) {
        SkillName skill = request.skill();
        // 0. The data directory: no other user may be able to change what it holds.
        Optional<Diagnostic> unsafe = supervision.unsafeDataDirectory();
        if (unsafe.isPresent()) {
            outcomes.refuse(e, List.of(unsafe.get()));
            return;
        }
        // 1. Find the skill.
        Optional<DiscoveredSkill> found = locator.apply(skill);
        if (found.isEmpty()) {
            outcomes.refuse(
                    e, ErrorCode.SKILL_NOT_FOUND, "no loadable skill named '" + skill.value() + "' in the skill roots");
            return;
        }
        if (found.get().kind() == SkillKind.LEGACY_FLAT
                || found.get().directory().isEmpty()) {
            outcomes.refuse(e, ErrorCode.EXECUTION_UNAVAILABLE, "a legacy flat skill has no execution manifest");
            return;
        }
        Path directory = found.get().directory().get();
        e.location(NameWarnings.location(found.get()));
        // 2. Capture: the bytes that will be shown, bound and run.
        CaptureOutcome captured = SkillArtifact.capture(directory);
        if (captured instanceof CaptureOutcome.Failed f) {
            outcomes.refuse(e, List.of(f.diagnostic()));
            return;
        }
        try (SkillArtifact artifact = captured.artifact().orElseThrow()) {
            flow(e, request, directory, artifact);
        }
    }

    /**
     * Asks the host through the approval channel: the ask-each-time route, and the trusted-revision
     * route whose receipt the audit trail does not vouch for. Empty when the execution was refused.
     */
    private Optional<LaunchAuthorization> askHost(
            Execution e,
            ExecutionRequest request,
            SkillArtifact artifact,
            ExecutionManifest manifest,
            Invocation invocation,
            NodeRuntime runtime,
            ConsentBinding binding,
            SupervisorSelector.Choice sel,
            Contracts.Outcome contract) {
        return approval.ask(
                e,
                request,
                artifact,
                manifest,
                invocation,
                runtime,
                binding,
                sel,
                contract.accepted().map(ContractVerdict.Accepted::contract));
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
            outcomes.refuse(e, why);
            return;
        }
        ExecutionManifest manifest = artifact.manifest().get();
        // 3. Validate the input.
        Validation<Invocation> checked = artifact.inputSchema().get().checkInvocation(request.invocation());
        if (!(checked instanceof Validation.Valid<Invocation> valid)) {
            outcomes.refuse(e, checked.issues());
            return;
        }
        Invocation invocation = valid.value();
        // 4. The trust contract against the agent context: the host's (decision 0764).
        Optional<Diagnostic> stranger = Vouching.notVouched(config, request.agent(), request.agentContext());
        if (stranger.isPresent()) {
            outcomes.refuse(e, List.of(stranger.get()));
            return;
        }
        Optional<AgentContext> context = request.agentContext().or(config::agentContext);
        Contracts.Outcome contract = Contracts.check(artifact, context, config);
        if (!contract.refusal().isEmpty()) {
            outcomes.refuse(e, contract.refusal());
            return;
        }
        // 5. Supervisor, runtime, workspace.
        SupervisorSelector.Choice sel = supervision.choice();
        if (sel.supervisor().isEmpty()) {
            outcomes.refuse(e, sel.report().problems());
            return;
        }
        if (config.runtime().isEmpty()) {
            outcomes.refuse(e, ErrorCode.RUNTIME_UNAVAILABLE, "no Node runtime is configured");
            return;
        }
        NodeRuntime runtime = config.runtime().get();
        Optional<WorkspaceIdentity> workspace = Workspaces.identify(request.workspace());
        if (workspace.isEmpty()) {
            outcomes.refuse(e, ErrorCode.WORKSPACE_UNAVAILABLE, "the workspace is missing or not a directory");
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
        listeners.emit(e, ExecutionEvent.Kind.CAPTURED, List.of(), Optional.empty());
        if (outcomes.stoppedBeforeLaunch(e)) {
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
                    Optional<LaunchAuthorization> asked =
                            askHost(e, request, artifact, manifest, invocation, runtime, binding, sel, contract);
                    if (asked.isEmpty()) {
                        return;
                    }
                    authorization = asked.get();
                    authority = new LaunchAuthority.Asked();
                }
            }
            case ASK_EACH_TIME -> {
                Optional<LaunchAuthorization> asked =
                        askHost(e, request, artifact, manifest, invocation, runtime, binding, sel, contract);
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
                    outcomes.refuse(e, List.of(cannotRecord.get()));
                    return;
                }
                ConsentResult<WorkflowPlans.StepUse> step = config.plans().consumeStep(skill, binding);
                if (!step.isSuccess()) {
                    outcomes.refuse(e, List.of(step.failure().orElseThrow()));
                    return;
                }
                WorkflowPlans.StepUse use = step.value().orElseThrow();
                Optional<Diagnostic> notRecorded = config.trail().stepConsumed(use.grant(), use.plan());
                if (notRecorded.isPresent()) {
                    outcomes.refuse(e, List.of(notRecorded.get()));
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
                    outcomes.refuse(e, List.of(notDurable.get()));
                    return;
                }
                e.workflowStep(use);
            }
            default -> {
                outcomes.refuse(e, check.failures());
                return;
            }
        }
        listeners.emit(e, ExecutionEvent.Kind.AUTHORISED, List.of(), Optional.empty(), Optional.of(authority));
        // 7. Audit the consumption before anything can start.
        if (authorization instanceof ConsumedGrant grant) {
            Optional<Diagnostic> auditProblem = config.trail().consumed(grant);
            if (auditProblem.isPresent()) {
                outcomes.refuse(e, List.of(auditProblem.get()));
                return;
            }
            e.authorised(AuditEvent.Settled.Authority.CONSENT);
        }
        // 8. Re-capture and compare; the contract, the workspace and the gates again.
        CaptureOutcome again = SkillArtifact.capture(directory);
        if (again instanceof CaptureOutcome.Failed f) {
            outcomes.refuse(
                    e,
                    List.of(
                            Diagnostic.error(
                                    ErrorCode.CAPTURE_REVISION_MISMATCH, "", "the skill can no longer be captured"),
                            f.diagnostic()));
            return;
        }
        try (SkillArtifact recaptured = again.artifact().orElseThrow()) {
            if (!recaptured.revision().equals(artifact.revision())) {
                outcomes.refuse(
                        e,
                        ErrorCode.CAPTURE_REVISION_MISMATCH,
                        "the skill changed after it was approved (revision " + artifact.revision()
                                + " is no longer on disk)");
                return;
            }
        }
        Contracts.Outcome contractAgain = Contracts.check(artifact, context, config);
        if (!contractAgain.refusal().isEmpty()) {
            outcomes.refuse(e, contractAgain.refusal());
            return;
        }
        Optional<Workspaces.Resolved> workspaceNow = Workspaces.resolve(request.workspace());
        if (workspaceNow.isEmpty()) {
            outcomes.refuse(e, ErrorCode.WORKSPACE_UNAVAILABLE, "the workspace is missing or not a directory");
            return;
        }
        if (!workspace.get().equals(workspaceNow.get().identity())) {
            outcomes.refuse(e, ErrorCode.WORKSPACE_CHANGED, "the workspace changed after it was approved");
            return;
        }
        GateCheck recheck = gates.recheck(Optional.of(config.capability()), authorization);
        if (!recheck.allowed()) {
            outcomes.refuse(e, recheck.failures());
            return;
        }
        // A receipt waives consent only while the audit log vouches for it (decision 0263): a revocation
        // committed since it authorised this launch applies, since nothing has started yet (decision 0365).
        if (authorization instanceof TrustedRevisionLaunch trusted
                && !config.trail().vouchesFor(trusted)) {
            outcomes.refuse(e, ErrorCode.TRUST_REVOKED, "the trusted-revision receipt was revoked before the launch");
            return;
        }
        if (closing.isClosed()) {
            outcomes.refuse(e, ErrorCode.ENGINE_CLOSED, "this SkillGate closed before launch");
            return;
        }
        if (outcomes.stoppedBeforeLaunch(e)) {
            return;
        }
        listeners.emit(e, ExecutionEvent.Kind.LAUNCHING, List.of(), Optional.empty());
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
        NodeRunner nodeRunner = supervision.runner(sel, runtime);
        Duration settleBound = manifest.timeout()
                .toDuration()
                .plusMillis(Limits.TERMINATION_GRACE_MILLIS)
                .plus(LaunchSpec.DEFAULT_KILL_DEADLINE)
                .plus(RUNNER_WATCHDOG_SLACK);
        Optional<ExecutionHandle> handle = e.launch(
                () -> nodeRunner.start(
                        runRequest,
                        event -> listeners.emit(e, ExecutionEvent.Kind.PROGRESS, List.of(), Optional.of(event))),
                settleBound);
        if (handle.isEmpty()) {
            outcomes.stoppedBeforeLaunch(e);
            return;
        }
        handle.get().envelope().whenComplete((env, failure) -> {
            ExecutionEnvelope settled = env != null ? env : Outcomes.runnerFailed(e);
            outcomes.settle(e, settled);
            listeners.emit(e, ExecutionEvent.Kind.SETTLED, settled.errorCodes(), Optional.empty());
        });
    }
}
