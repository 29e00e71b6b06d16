package dev.skillgate.engine;

import dev.skillgate.audit.AppendResult;
import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditLogOptions;
import dev.skillgate.consent.ConsentResult;
import dev.skillgate.consent.ExecuteCapability;
import dev.skillgate.consent.ExecutionPolicy;
import dev.skillgate.consent.PlanSnapshot;
import dev.skillgate.consent.PlannedStep;
import dev.skillgate.consent.PolicyAdmin;
import dev.skillgate.consent.PolicyChange;
import dev.skillgate.consent.PolicySnapshot;
import dev.skillgate.consent.PolicyUpdate;
import dev.skillgate.consent.PolicyView;
import dev.skillgate.consent.ScopeEntry;
import dev.skillgate.consent.TrustScope;
import dev.skillgate.consent.WorkflowPlan;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.consent.spi.PolicyStore;
import dev.skillgate.engine.internal.AuditTrail;
import dev.skillgate.engine.internal.Execution;
import dev.skillgate.engine.internal.RetainedStaging;
import dev.skillgate.engine.internal.Settlements;
import dev.skillgate.engine.internal.WorkflowPlans;
import dev.skillgate.engine.internal.Workspaces;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Timeout;
import dev.skillgate.model.WorkspaceIdentity;
import dev.skillgate.model.shared.DirectoryPlacement;
import dev.skillgate.runner.StagingJanitor;
import dev.skillgate.workflow.OperatorDecision;
import dev.skillgate.workflow.Recovery;
import dev.skillgate.workflow.RetentionReport;
import dev.skillgate.workflow.StoredWorkflow;
import dev.skillgate.workflow.WorkflowId;
import dev.skillgate.workflow.WorkflowJournal;
import dev.skillgate.workflow.WorkflowResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The host's settings-side object: the only way to change execution policy, trusted-revision
 * receipts and safe mode, to submit workflow plans for approval, and to resolve executions whose
 * cleanup is unknown.
 *
 * <p>It owns the data directory's audit log ({@code DATA_DIR/audit}, one writer per directory): every
 * policy save is recorded there (the change, each receipt minted as an approval, each receipt
 * removed as a revocation), and the gates built over this admin record every consumed grant and
 * every prompt-skill approval there before they take effect. Hand it to the local user's settings
 * UI, never to an agent. A {@link SkillGate} built with
 * {@link SkillGate.Builder#admin(SkillGateAdmin)} reads the policy it keeps (through a read-only
 * view) before every launch, so a change applies to every launch that has not started; nothing
 * reachable from a {@code SkillGate} leads back here. Changing policy grants no sandbox: a
 * consented script still runs with the host user's files and network.
 *
 * <p>The data directory must not be changeable by another user or group, nor any directory on its
 * path ({@link dev.skillgate.model.shared.DirectoryPlacement}, decision 0520): otherwise the admin opens
 * without creating anything there, its audit log is disabled ({@code DATA_DIRECTORY_UNSAFE}: nothing
 * trusted, nothing appended), its policy is blocked and {@link #savePolicy} refuses with that code.
 */
@API(status = API.Status.STABLE, since = "0.1.0")
public final class SkillGateAdmin implements AutoCloseable {
    private final Path dataDirectory;
    private final PolicyAdmin policy;
    private final AuditLog audit;
    private final TrustAdmin trust;
    private final WorkflowJournal workflows;
    private final WorkflowPlans plans;

    private SkillGateAdmin(
            Path dataDirectory, PolicyStore store, AuditLogOptions auditOptions, Optional<WorkflowJournal> workflows) {
        this.dataDirectory = dataDirectory;
        this.policy = PolicyAdmin.open(store);
        // Never throws for what is on disk; a damaged log disables trust and refuses appends.
        this.audit = AuditLog.open(auditOptions);
        this.trust = new TrustAdmin(audit);
        // The embedded default creates nothing until a workflow plan is approved.
        this.workflows = workflows.orElseGet(() -> WorkflowJournal.embedded(dataDirectory));
        this.plans = new WorkflowPlans(this.workflows);
    }

    /**
     * An admin over {@code dataDirectory} with the default private policy file
     * ({@code dataDirectory/policy/policy.json}).
     */
    public static SkillGateAdmin open(Path dataDirectory) {
        Path dir = checkedDataDirectory(dataDirectory);
        return new SkillGateAdmin(
                dir,
                PolicyStore.privateFile(dir.resolve("policy")),
                AuditLogOptions.builder(auditDirectory(dir)).build(),
                Optional.empty());
    }

    /** An admin over {@code dataDirectory} with a host-supplied policy store. */
    public static SkillGateAdmin open(Path dataDirectory, PolicyStore store) {
        Objects.requireNonNull(store, "store");
        Path dir = checkedDataDirectory(dataDirectory);
        return new SkillGateAdmin(
                dir, store, AuditLogOptions.builder(auditDirectory(dir)).build(), Optional.empty());
    }

    /**
     * An admin over {@code dataDirectory} whose audit log is opened with {@code audit}: typically to
     * add {@link dev.skillgate.audit.AuditSink}s that receive every committed record
     * ({@code AuditLogOptions.builder(SkillGateAdmin.auditDirectory(dir)).sink(siem).build()}). The
     * options must name this data directory's audit directory and be writable. A sink that fails
     * halts the log (decision 0370): nothing is trusted and nothing runs until
     * {@link TrustAdmin#resumeExport()} succeeds.
     *
     * @param store the policy store ({@code PolicyStore.privateFile(dataDirectory.resolve("policy"))}
     *     is the default one)
     * @throws IllegalArgumentException when the options name another directory or are read-only
     */
    public static SkillGateAdmin open(Path dataDirectory, PolicyStore store, AuditLogOptions audit) {
        return open(dataDirectory, store, audit, Optional.empty());
    }

    /**
     * As {@link #open(Path, PolicyStore, AuditLogOptions)}, with the durable workflow store the host
     * chose (for example a {@code PostgresWorkflowStore} shared by several instances, and its own key
     * provider) instead of the embedded default in {@code dataDirectory/workflows}. The admin owns the
     * journal from now on and closes it in {@link #close()} (which stops renewing its leases).
     */
    public static SkillGateAdmin open(
            Path dataDirectory, PolicyStore store, AuditLogOptions audit, WorkflowJournal workflows) {
        return open(dataDirectory, store, audit, Optional.of(Objects.requireNonNull(workflows, "workflows")));
    }

    static SkillGateAdmin open(
            Path dataDirectory, PolicyStore store, AuditLogOptions audit, Optional<WorkflowJournal> workflows) {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(audit, "audit");
        Path dir = checkedDataDirectory(dataDirectory);
        if (!audit.directory().toAbsolutePath().normalize().equals(auditDirectory(dir))) {
            throw new IllegalArgumentException("the audit options must name " + auditDirectory(dir));
        }
        if (audit.readOnly()) {
            throw new IllegalArgumentException("the admin's audit log must be writable");
        }
        return new SkillGateAdmin(dir, store, audit, workflows);
    }

    /** The audit log's directory inside {@code dataDirectory} ({@code dataDirectory/audit}). */
    public static Path auditDirectory(Path dataDirectory) {
        return checkedDataDirectory(dataDirectory).resolve("audit");
    }

    static Path checkedDataDirectory(Path dataDirectory) {
        Objects.requireNonNull(dataDirectory, "dataDirectory");
        if (!dataDirectory.isAbsolute()) {
            throw new IllegalArgumentException("the data directory must be absolute");
        }
        return dataDirectory.normalize();
    }

    /** The data directory this admin keeps state in. */
    public Path dataDirectory() {
        return dataDirectory;
    }

    /** The effective execution policy now (read from the store). */
    public PolicySnapshot currentPolicy() {
        return policy.currentPolicy();
    }

    /**
     * Saves a policy: receipts for new trusted-revision scopes are minted here, removed scopes are
     * revoked (see {@code docs/consent.md}).
     *
     * @return what changed, or why nothing did ({@code DATA_DIRECTORY_UNSAFE} when another user could
     *     change the data directory)
     */
    public ConsentResult<PolicyChange> savePolicy(PolicyUpdate update) {
        Optional<Diagnostic> unsafe = DirectoryPlacement.check(dataDirectory, "data directory");
        if (unsafe.isPresent()) {
            // Nothing is written where another user could change it (decision 0520).
            return ConsentResult.failure(unsafe.get());
        }
        ConsentResult<PolicyChange> result = policy.save(update);
        result.value().ifPresent(this::audit);
        return result;
    }

    /**
     * Records a saved change. A receipt whose approval could not be committed is never honoured (the
     * engine asks instead), so a failed append here can only cost a prompt, never grant trust.
     */
    private void audit(PolicyChange change) {
        audit.recordPolicyChange(
                new AuditEvent.PolicyChanged(change.after().mode().name(), AuditTrail.policyDigest(change.after())));
        for (ScopeEntry minted : change.minted()) {
            AuditTrail.executionScope(minted).ifPresent(audit::approve);
        }
        for (ScopeEntry revoked : change.revoked()) {
            AuditTrail.executionScope(revoked).ifPresent(audit::revoke);
        }
    }

    /** The trust store over the audit log: list, revoke, records, repair. */
    public TrustAdmin trust() {
        return trust;
    }

    /**
     * Trusts one exact revision for one agent in one workspace, within ceilings: keeps every
     * <em>approved</em> scope already stored (with its receipt), adds this one and switches the mode
     * to {@code TRUST_SELECTED_REVISIONS}. Unapproved drafts (scopes saved in another mode) are not
     * carried over: in trusted-revision mode every listed scope would get a receipt, and trusting one
     * revision must never approve another (decision 0362). Launches inside the scope then need no
     * per-invocation approval (any valid input); everything else is still asked for. Trusting a
     * revision does not make its script safe.
     *
     * @return what changed; {@code WORKSPACE_UNAVAILABLE} when the workspace cannot be resolved
     */
    public ConsentResult<PolicyChange> trustRevision(
            Revision revision, AgentId agent, Path workspace, Timeout timeoutCeiling, OutputLimit outputCeiling) {
        Optional<WorkspaceIdentity> identity = workspaceIdentity(workspace);
        if (identity.isEmpty()) {
            return ConsentResult.failure(
                    ErrorCode.WORKSPACE_UNAVAILABLE, "the workspace is missing or not a directory");
        }
        TrustScope scope = new TrustScope(revision, agent, identity.get(), timeoutCeiling, outputCeiling);
        List<TrustScope> scopes = new ArrayList<>();
        for (ScopeEntry e : currentPolicy().scopes()) {
            if (e.isApproved() && !e.scope().equals(scope)) {
                scopes.add(e.scope());
            }
        }
        scopes.add(scope);
        return savePolicy(new PolicyUpdate(ExecutionPolicy.TRUST_SELECTED_REVISIONS, scopes));
    }

    /** The identity (real path and file key) consent binds a workspace to, as the engine computes it. */
    public static Optional<WorkspaceIdentity> workspaceIdentity(Path workspace) {
        return Workspaces.identify(Objects.requireNonNull(workspace, "workspace"));
    }

    /** Turns safe mode on or off; with it on, every launch is refused whatever the policy says. */
    public void setSafeMode(boolean on) {
        policy.setSafeMode(on);
    }

    /** Whether safe mode is on. */
    public boolean safeMode() {
        return policy.safeMode();
    }

    /**
     * Submits a workflow plan for one run ({@code APPROVE_WORKFLOW_RUN}, SPEC §8) and asks the human
     * once, through {@code channel}'s {@link ApprovalChannel#requestWorkflow} (fail closed: an
     * exception, a failed or empty answer, a closed channel or no answer within the 5-minute consent
     * window is a denial). Build the steps from a workflow <em>the host</em> has verified — never from
     * text an agent supplied: this method is the reason a plan cannot be submitted from the
     * agent-facing {@link SkillGate}.
     *
     * <p>When approved, the approval is recorded in the audit log ({@code PLAN_APPROVE}) and only then
     * does the plan take effect: while the policy is {@code APPROVE_WORKFLOW_RUN}, each listed step
     * covers exactly one launch in {@code run}, for {@code agent} in {@code workspace}, of that skill at
     * that exact revision (and, when the step fixes one, with that exact invocation digest), without a
     * per-invocation prompt; each use is recorded ({@code PLAN_STEP}) before its launch. It never
     * covers another run, and nothing else runs in that mode. A newer approved plan for the same run
     * replaces this one; {@link SkillGate#endRun}, {@link #cancelWorkflow} and {@link #close} cancel it.
     * Approving a plan makes none of its scripts safe: each still runs as the host user.
     *
     * @return the approved plan, or why not ({@code WORKSPACE_UNAVAILABLE}, {@code POLICY_INVALID}
     *     for 0 or more than 64 steps, the denial's code, {@code PROPOSAL_LIMIT}, or the audit log's
     *     code — when the log cannot record, nobody is asked)
     */
    public ConsentResult<PlanSnapshot> approveWorkflow(
            RunId run, AgentId agent, Path workspace, List<PlannedStep> steps, ApprovalChannel channel) {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(workspace, "workspace");
        Objects.requireNonNull(steps, "steps");
        Objects.requireNonNull(channel, "channel");
        Optional<WorkspaceIdentity> identity = workspaceIdentity(workspace);
        if (identity.isEmpty()) {
            return ConsentResult.failure(
                    ErrorCode.WORKSPACE_UNAVAILABLE, "the workspace is missing or not a directory");
        }
        WorkflowPlan plan;
        try {
            plan = new WorkflowPlan(run, agent, identity.get(), steps);
        } catch (InvalidValueException e) {
            return ConsentResult.failure(e.toDiagnostic(""));
        }
        return plans.approve(plan, channel, trail());
    }

    /** The run's approved workflow plan now, with the steps used so far; empty when it has none. */
    public Optional<PlanSnapshot> workflowPlan(RunId run) {
        return plans.current(Objects.requireNonNull(run, "run"));
    }

    /**
     * Ends a run on the host side (decision 0763): its workflow plan, approved or still waiting for the
     * human, is cancelled and its durable workflow ended {@code CANCELLED}. The agent-facing
     * {@link SkillGate#endRun} cancels only the run's invocation approvals.
     */
    public void endRun(RunId run) {
        plans.endRunAndWorkflow(Objects.requireNonNull(run, "run"));
    }

    /** Cancels the run's workflow plan (and any still waiting for the human); its unused steps run nothing. */
    public void cancelWorkflow(RunId run) {
        plans.endRun(Objects.requireNonNull(run, "run"));
    }

    /** The durable workflow journal plans are recorded in (decision 0684). */
    public WorkflowJournal workflows() {
        return workflows;
    }

    /**
     * The durable workflows the store holds now (heads: owner, fencing token, lease, record count,
     * end). Restarted hosts start here: a workflow that has not ended was interrupted.
     */
    public WorkflowResult<List<StoredWorkflow>> listWorkflows() {
        return workflows.list();
    }

    /**
     * What the durable records of workflow {@code id} say, verified: every step's state (done,
     * unknown, remaining), without taking it over. Authorises nothing.
     */
    public WorkflowResult<Recovery> recoverWorkflow(WorkflowId id) {
        return workflows.recover(Objects.requireNonNull(id, "id"));
    }

    /**
     * Takes workflow {@code id} over for this instance once its owner is proven dead (same host: pid
     * and start token; another host: its lease ended on the store's clock) — refused with
     * {@code WORKFLOW_OWNER_ALIVE} while it lives — and records the takeover in the audit log
     * ({@code WORKFLOW TAKEOVER}). When the log cannot record, nothing is taken over. Grants nothing:
     * continue with {@link #decideWorkflowStep} for unknown steps and {@link #resumeWorkflow}, which
     * asks the human again.
     */
    public WorkflowResult<Recovery> takeOverWorkflow(WorkflowId id) {
        Objects.requireNonNull(id, "id");
        Optional<Diagnostic> cannotRecord = trail().unavailable();
        if (cannotRecord.isPresent()) {
            return WorkflowResult.failure(cannotRecord.get());
        }
        boolean already = workflows.owns(id);
        WorkflowResult<Recovery> taken = workflows.takeOver(id);
        if (taken.isSuccess() && !already) {
            Recovery r = taken.value().orElseThrow();
            Optional<Diagnostic> problem = recordWorkflow(
                    AuditEvent.WorkflowChanged.Action.TAKEOVER,
                    r,
                    "token " + r.head().fencingToken() + " to "
                            + r.head().owner().instance() + "@"
                            + r.head().owner().hostId());
            if (problem.isPresent()) {
                return WorkflowResult.failure(problem.get());
            }
        }
        return taken;
    }

    /**
     * Records an operator's explicit decision about a step of workflow {@code id} whose effect is
     * unknown (an interrupted write, or unproven cleanup): {@code EFFECT_HAPPENED} counts it done,
     * {@code EFFECT_ABSENT} makes it a remaining step (which still needs fresh consent). Audited first
     * ({@code WORKFLOW DECIDE}); when the log cannot record, nothing is decided. Nothing is replayed.
     */
    public WorkflowResult<Recovery> decideWorkflowStep(
            WorkflowId id, int step, OperatorDecision decision, String note) {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(decision, "decision");
        Objects.requireNonNull(note, "note");
        WorkflowResult<Recovery> before = workflows.recover(id);
        if (!before.isSuccess()) {
            return before;
        }
        Recovery r = before.value().orElseThrow();
        if (step < 0
                || step >= r.steps().size()
                || r.steps().get(step).state() != dev.skillgate.workflow.StepState.UNKNOWN) {
            return WorkflowResult.failure(
                    ErrorCode.WORKFLOW_INVALID, "step " + step + " is not a step with an unknown effect");
        }
        if (!workflows.owns(id)) {
            return WorkflowResult.failure(ErrorCode.WORKFLOW_FENCED, "take workflow " + id + " over first");
        }
        Optional<Diagnostic> problem =
                recordWorkflow(AuditEvent.WorkflowChanged.Action.DECIDE, r, "step " + step + " " + decision.name());
        if (problem.isPresent()) {
            return WorkflowResult.failure(problem.get());
        }
        WorkflowResult<dev.skillgate.workflow.Lease> decided = workflows.decide(id, step, decision, note);
        if (!decided.isSuccess()) {
            return WorkflowResult.failure(decided.failure().orElseThrow());
        }
        return workflows.recover(id);
    }

    /**
     * Resumes workflow {@code id} (which this instance owns, after {@link #takeOverWorkflow} or a
     * restart's takeover): its remaining steps are submitted as a new plan of the same run and the
     * human is asked once through {@code channel}'s {@code requestWorkflow} — fresh run-scoped consent,
     * exactly as {@link #approveWorkflow}; nothing from before the restart is consent now. Refused with
     * {@code WORKFLOW_STEP_UNKNOWN} while a step's effect is unknown, {@code WORKSPACE_UNAVAILABLE}
     * when the workspace is gone or another directory.
     */
    public ConsentResult<PlanSnapshot> resumeWorkflow(WorkflowId id, ApprovalChannel channel) {
        return plans.resume(Objects.requireNonNull(id, "id"), Objects.requireNonNull(channel, "channel"), trail());
    }

    /**
     * Retention cleanup: removes the workflows that ended more than {@code retention} ago — only
     * ended ones — and records each removal in the audit log ({@code WORKFLOW PURGE}). When the log
     * cannot record, nothing is removed.
     */
    public WorkflowResult<RetentionReport> purgeWorkflows(Duration retention) {
        Objects.requireNonNull(retention, "retention");
        Optional<Diagnostic> cannotRecord = trail().unavailable();
        if (cannotRecord.isPresent()) {
            return WorkflowResult.failure(cannotRecord.get());
        }
        // Opened before removal, so the record can name the run.
        Map<WorkflowId, RunId> runs = new HashMap<>();
        WorkflowResult<List<StoredWorkflow>> all = workflows.list();
        if (!all.isSuccess()) {
            return WorkflowResult.failure(all.failure().orElseThrow());
        }
        for (StoredWorkflow w : all.value().orElseThrow()) {
            if (w.ended()) {
                workflows
                        .recover(w.id())
                        .value()
                        .ifPresent(r -> runs.put(w.id(), r.definition().run()));
            }
        }
        WorkflowResult<RetentionReport> report = workflows.purge(retention);
        for (StoredWorkflow removed :
                report.value().map(RetentionReport::removed).orElse(List.of())) {
            RunId run = runs.getOrDefault(removed.id(), RunId.of("unknown"));
            append(() -> audit.recordWorkflowChange(new AuditEvent.WorkflowChanged(
                    AuditEvent.WorkflowChanged.Action.PURGE,
                    removed.id().toString(),
                    run,
                    "ended " + removed.endedAt().orElseThrow() + " records " + removed.records())));
        }
        return report;
    }

    private Optional<Diagnostic> recordWorkflow(AuditEvent.WorkflowChanged.Action action, Recovery r, String detail) {
        String printable = detail.replaceAll("[^\\x20-\\x7e]", "?");
        return append(() -> audit.recordWorkflowChange(new AuditEvent.WorkflowChanged(
                action,
                r.head().id().toString(),
                r.definition().run(),
                printable.length() > 200 ? printable.substring(0, 200) : printable)));
    }

    /**
     * Resolves the unresolved executions of {@code run} (SPEC §12), as an audited operator action:
     *
     * <ul>
     *   <li>a settlement whose audit record could not be committed earlier is recorded now;
     *   <li>a retained staging directory of the run is removed only after the staging janitor has
     *       proven every recorded owner dead (the process that staged it and the supervisor helper,
     *       by pid and start-time token) <em>and</em> a {@code RESOLVE} record naming that proof was
     *       committed to the audit log; when the record cannot be committed, nothing is removed.
     * </ul>
     *
     * <p>An execution of this process whose cleanup is unknown cannot be resolved while this process
     * runs: this JVM staged it, so its owner is alive. Such directories are resolved from a later
     * process (the gate lists them as {@code RETAINED_ON_DISK}); nothing is ever replayed.
     *
     * @return whether nothing of the run is unresolved any more, and why something was kept
     */
    public Resolution resolve(RunId run) {
        Objects.requireNonNull(run, "run");
        List<String> kept = new ArrayList<>();
        List<Execution> remembered = Settlements.remembered(dataDirectory, run);
        for (Execution e : remembered) {
            Optional<AuditEvent.Settled> pending = e.unrecordedSettlement();
            if (pending.isPresent()) {
                Optional<Diagnostic> problem = append(() -> audit.recordSettlement(pending.get()));
                if (problem.isEmpty()) {
                    e.settlementRecorded();
                } else {
                    kept.add("SETTLEMENT_UNRECORDED: " + problem.get().code() + " "
                            + problem.get().message());
                }
            }
        }
        List<String> notRecorded = new ArrayList<>();
        StagingJanitor.Report report = StagingJanitor.forDataDirectory(dataDirectory)
                .sweep(proof -> proof.run().equals(run) && recordResolution(proof, notRecorded));
        int retainedOfRun = 0;
        for (StagingJanitor.Retained r : report.retained()) {
            if (!isOfRun(r.directory(), run)) {
                continue;
            }
            retainedOfRun++;
            if (r.reason() == StagingJanitor.Reason.DECLINED) {
                kept.add("AUDIT: the resolution was not recorded, so nothing was removed ("
                        + String.join("; ", notRecorded) + ")");
            } else {
                kept.add(r.reason() + ": " + r.detail());
            }
        }
        boolean removed = report.removed().stream().anyMatch(p -> isOfRun(p, run));
        for (Execution e : remembered) {
            if (e.settlement().getNow(null) != null
                    && e.settlement().getNow(null).status() == dev.skillgate.model.ExecutionStatus.CLEANUP_UNKNOWN
                    && retainedOfRun == 0) {
                kept.add("OWNER_ALIVE: this process ran it and is alive; resolve it from a later process");
            }
            Settlements.forgetIfResolved(e);
        }
        return new Resolution(run, kept.isEmpty(), removed, kept);
    }

    /** Commits a RESOLVE record for {@code proof}; true only when it is durable. */
    private boolean recordResolution(StagingJanitor.OwnersDead proof, List<String> notRecorded) {
        AuditEvent.Resolved event;
        try {
            event = new AuditEvent.Resolved(
                    proof.run(),
                    RetainedStaging.bundleRevision(proof.directory().resolve("bundle")),
                    proof.attempt(),
                    new AuditEvent.DeadProcess(proof.stagerPid(), proof.stagerStartToken()),
                    proof.supervisor().map(s -> new AuditEvent.DeadProcess(s.pid(), s.startTimeToken())));
        } catch (IllegalArgumentException e) {
            notRecorded.add("the proof cannot be recorded: " + e.getMessage());
            return false;
        }
        Optional<Diagnostic> problem = append(() -> audit.recordResolution(event));
        problem.ifPresent(d -> notRecorded.add(d.code() + " " + d.message()));
        return problem.isEmpty();
    }

    private static Optional<Diagnostic> append(java.util.function.Supplier<AppendResult> append) {
        AppendResult r;
        try {
            r = append.get();
        } catch (IllegalStateException e) {
            return Optional.of(Diagnostic.error(ErrorCode.AUDIT_LOCKED, "", "the audit log is closed"));
        }
        if (r instanceof AppendResult.Refused refused) {
            return Optional.of(refused.reason());
        }
        if (r instanceof AppendResult.Failed failed) {
            return Optional.of(failed.reason());
        }
        return Optional.empty();
    }

    /** Whether {@code directory} is named {@code <32 hex attempt>-<run>}. */
    private static boolean isOfRun(Path directory, RunId run) {
        String name = directory.getFileName().toString();
        return name.length() > 33
                && name.charAt(32) == '-'
                && name.substring(33).equals(run.value());
    }

    /**
     * The outcome of {@link #resolve}.
     *
     * @param run the run
     * @param resolved whether nothing of the run is unresolved any more
     * @param removed whether this call removed a staging directory of the run (after recording it)
     * @param kept why something of the run is still unresolved (owner alive or unknown, the audit log
     *     could not record, …)
     */
    public record Resolution(RunId run, boolean resolved, boolean removed, List<String> kept) {
        public Resolution {
            Objects.requireNonNull(run, "run");
            kept = List.copyOf(kept);
        }
    }

    /** Read-only view for a gate built over this admin. */
    PolicyView view() {
        return policy.view();
    }

    /** A capability for one gate; revoked when that gate closes. */
    ExecuteCapability grantEngineCapability() {
        return policy.grantExecuteCapability("skillgate-engine");
    }

    void revokeEngineCapability(ExecuteCapability capability) {
        policy.revokeExecuteCapability(capability);
    }

    /** The engine's hooks into the audit log. */
    AuditTrail trail() {
        return new AuditTrail(audit);
    }

    /** The approved workflow plans a gate built over this admin consumes steps from. */
    WorkflowPlans plans() {
        return plans;
    }

    /**
     * Cancels every workflow plan (in memory: the durable workflows stay, to be resumed with fresh
     * consent), closes the workflow journal and releases the audit log's lock and files. Idempotent; afterwards
     * nothing is trusted.
     */
    @Override
    public void close() {
        plans.close();
        // Stops renewing leases; an unfinished durable workflow stays in the store, resumable after
        // its owner is proven dead (a restart of this host, or another instance).
        workflows.close();
        audit.close();
    }

    @Override
    public String toString() {
        return "SkillGateAdmin[" + dataDirectory + "]";
    }
}
