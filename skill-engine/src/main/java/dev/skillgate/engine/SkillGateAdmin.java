package dev.skillgate.engine;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditLog;
import dev.skillgate.consent.ConsentResult;
import dev.skillgate.consent.ExecuteCapability;
import dev.skillgate.consent.ExecutionPolicy;
import dev.skillgate.consent.PolicyAdmin;
import dev.skillgate.consent.PolicyChange;
import dev.skillgate.consent.PolicySnapshot;
import dev.skillgate.consent.PolicyUpdate;
import dev.skillgate.consent.PolicyView;
import dev.skillgate.consent.ScopeEntry;
import dev.skillgate.consent.TrustScope;
import dev.skillgate.consent.spi.PolicyStore;
import dev.skillgate.engine.internal.AuditTrail;
import dev.skillgate.engine.internal.Settlements;
import dev.skillgate.engine.internal.Workspaces;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ErrorCode;
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
 * receipts and safe mode, and to resolve executions whose cleanup is unknown.
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
 */
public final class SkillGateAdmin implements AutoCloseable {
    private final Path dataDirectory;
    private final PolicyAdmin policy;
    private final AuditLog audit;
    private final TrustAdmin trust;

    private SkillGateAdmin(Path dataDirectory, PolicyStore store) {
        this.dataDirectory = dataDirectory;
        this.policy = PolicyAdmin.open(store);
        // Never throws for what is on disk; a damaged log disables trust and refuses appends.
        this.audit = AuditLog.open(dataDirectory.resolve("audit"));
        this.trust = new TrustAdmin(audit);
    }

    /**
     * An admin over {@code dataDirectory} with the default private policy file
     * ({@code dataDirectory/policy/policy.json}).
     */
    public static SkillGateAdmin open(Path dataDirectory) {
        Path dir = checkedDataDirectory(dataDirectory);
        return new SkillGateAdmin(dir, PolicyStore.privateFile(dir.resolve("policy")));
    }

    /** An admin over {@code dataDirectory} with a host-supplied policy store. */
    public static SkillGateAdmin open(Path dataDirectory, PolicyStore store) {
        Objects.requireNonNull(store, "store");
        return new SkillGateAdmin(checkedDataDirectory(dataDirectory), store);
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
     * @return what changed, or why nothing did
     */
    public ConsentResult<PolicyChange> savePolicy(PolicyUpdate update) {
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
     * Trusts one exact revision for one agent in one workspace, within ceilings: keeps every scope
     * already stored, adds this one and switches the mode to {@code TRUST_SELECTED_REVISIONS}.
     * Launches inside the scope then need no per-invocation approval (any valid input); everything
     * else is still asked for. Trusting a revision does not make its script safe.
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
            if (!e.scope().equals(scope)) {
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
     * Resolves an execution whose cleanup is unknown: runs the staging janitor, which removes a
     * staging directory only after proving every recorded owner dead. While the process that
     * staged it (this JVM, for executions of this process) is alive, nothing is removed.
     *
     * @return whether the run's staging directory is gone now
     */
    public Resolution resolve(RunId run) {
        Objects.requireNonNull(run, "run");
        StagingJanitor.Report report =
                StagingJanitor.forDataDirectory(dataDirectory).sweep();
        String suffix = "-" + run.value();
        List<String> kept = new ArrayList<>();
        for (StagingJanitor.Retained r : report.retained()) {
            if (r.directory().getFileName().toString().endsWith(suffix)) {
                kept.add(r.reason() + ": " + r.detail());
            }
        }
        boolean removed = report.removed().stream()
                .anyMatch(p -> p.getFileName().toString().endsWith(suffix));
        if (kept.isEmpty()) {
            Settlements.forget(dataDirectory, run);
        }
        return new Resolution(run, kept.isEmpty(), removed, kept);
    }

    /**
     * The outcome of {@link #resolve}.
     *
     * @param run the run
     * @param resolved whether no staging directory of the run remains
     * @param removed whether this call removed one
     * @param kept why directories of the run were kept (owner alive or unknown, …)
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

    /** Releases the audit log's lock and files. Idempotent; afterwards nothing is trusted. */
    @Override
    public void close() {
        audit.close();
    }

    @Override
    public String toString() {
        return "SkillGateAdmin[" + dataDirectory + "]";
    }
}
