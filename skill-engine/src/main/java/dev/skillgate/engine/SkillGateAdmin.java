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
import dev.skillgate.model.DirectoryPlacement;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Timeout;
import dev.skillgate.model.WorkspaceIdentity;
import dev.skillgate.runner.StagingJanitor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

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
 * path ({@link dev.skillgate.model.DirectoryPlacement}, decision 0520): otherwise the admin opens
 * without creating anything there, its audit log is disabled ({@code DATA_DIRECTORY_UNSAFE}: nothing
 * trusted, nothing appended), its policy is blocked and {@link #savePolicy} refuses with that code.
 */
public final class SkillGateAdmin implements AutoCloseable {
    private final Path dataDirectory;
    private final PolicyAdmin policy;
    private final AuditLog audit;
    private final TrustAdmin trust;
    private final WorkflowPlans plans = new WorkflowPlans();

    private SkillGateAdmin(Path dataDirectory, PolicyStore store, AuditLogOptions auditOptions) {
        this.dataDirectory = dataDirectory;
        this.policy = PolicyAdmin.open(store);
        // Never throws for what is on disk; a damaged log disables trust and refuses appends.
        this.audit = AuditLog.open(auditOptions);
        this.trust = new TrustAdmin(audit);
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
                AuditLogOptions.builder(auditDirectory(dir)).build());
    }

    /** An admin over {@code dataDirectory} with a host-supplied policy store. */
    public static SkillGateAdmin open(Path dataDirectory, PolicyStore store) {
        Objects.requireNonNull(store, "store");
        Path dir = checkedDataDirectory(dataDirectory);
        return new SkillGateAdmin(
                dir, store, AuditLogOptions.builder(auditDirectory(dir)).build());
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
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(audit, "audit");
        Path dir = checkedDataDirectory(dataDirectory);
        if (!audit.directory().toAbsolutePath().normalize().equals(auditDirectory(dir))) {
            throw new IllegalArgumentException("the audit options must name " + auditDirectory(dir));
        }
        if (audit.readOnly()) {
            throw new IllegalArgumentException("the admin's audit log must be writable");
        }
        return new SkillGateAdmin(dir, store, audit);
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

    /** Cancels the run's workflow plan (and any still waiting for the human); its unused steps run nothing. */
    public void cancelWorkflow(RunId run) {
        plans.endRun(Objects.requireNonNull(run, "run"));
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
     * Cancels every workflow plan and releases the audit log's lock and files. Idempotent; afterwards
     * nothing is trusted.
     */
    @Override
    public void close() {
        plans.close();
        audit.close();
    }

    @Override
    public String toString() {
        return "SkillGateAdmin[" + dataDirectory + "]";
    }
}
