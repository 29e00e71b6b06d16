package dev.skillgate.engine.internal;

import dev.skillgate.audit.AppendResult;
import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.AuditStatus;
import dev.skillgate.audit.ExecutionScope;
import dev.skillgate.audit.PromptSkillScope;
import dev.skillgate.audit.TrustDecision;
import dev.skillgate.audit.TrustStatus;
import dev.skillgate.consent.ConsentBinding;
import dev.skillgate.consent.PlannedStep;
import dev.skillgate.consent.PolicySnapshot;
import dev.skillgate.consent.Receipt;
import dev.skillgate.consent.ScopeEntry;
import dev.skillgate.consent.TrustScope;
import dev.skillgate.consent.TrustedRevisionLaunch;
import dev.skillgate.consent.WorkflowPlan;
import dev.skillgate.consent.shared.ConsumedGrant;
import dev.skillgate.consent.shared.WorkflowStepGrant;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ErrorGroup;
import dev.skillgate.model.Sha256Digest;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;

/**
 * The engine's {@link Trail} over the hash-chained audit log: consumed grants are recorded durably
 * before the launch (a failed append refuses the launch), and a trusted-revision receipt counts only
 * while the log vouches for it. Not API.
 */
public final class AuditTrail implements Trail {
    private final AuditLog log;

    public AuditTrail(AuditLog log) {
        this.log = Objects.requireNonNull(log, "log");
    }

    @Override
    public Optional<Diagnostic> consumed(ConsumedGrant grant) {
        ConsentBinding b = grant.binding();
        return granting(log.recordConsumption(new AuditEvent.Consumed(b.run(), b.agent(), b.revision(), b.digest())));
    }

    /**
     * Records a consumed approval that is not a ledger grant (a project run, decision 0650): committed
     * before the first step starts, or the launch is refused.
     */
    public Optional<Diagnostic> consumed(AuditEvent.Consumed event) {
        return guarded(() -> granting(log.recordConsumption(event)));
    }

    @Override
    public boolean vouchesFor(TrustedRevisionLaunch launch) {
        return log.isTrusted(executionScope(launch.scope(), launch.receipt()));
    }

    @Override
    public boolean trusts(PromptSkillScope scope) {
        return log.isTrusted(scope);
    }

    @Override
    public boolean revoked(dev.skillgate.audit.TrustScope scope) {
        for (TrustDecision d : log.list()) {
            if (d.scope().equals(scope)) {
                return d.status() == TrustStatus.REVOKED;
            }
        }
        return false;
    }

    @Override
    public Optional<Diagnostic> unavailable() {
        AuditStatus status = log.status();
        if (status.state() != AuditState.DISABLED && status.writable()) {
            return Optional.empty();
        }
        ErrorCode code = status.state() == AuditState.DISABLED
                ? ErrorCode.AUDIT_DISABLED
                : status.diagnostics().stream()
                        .map(Diagnostic::code)
                        .filter(c -> c.group() == ErrorGroup.AUDIT)
                        .findFirst()
                        .orElse(ErrorCode.AUDIT_LOCKED);
        return Optional.of(
                Diagnostic.error(code, "", "the audit log cannot record trust decisions now (" + status.state() + ")"));
    }

    @Override
    public Optional<Diagnostic> approve(dev.skillgate.audit.TrustScope scope) {
        return granting(log.approve(scope));
    }

    @Override
    public Optional<Diagnostic> stepConsumed(WorkflowStepGrant grant, Sha256Digest plan) {
        ConsentBinding b = grant.binding();
        return guarded(() -> granting(log.recordPlanStep(
                new AuditEvent.PlanStepConsumed(b.run(), b.agent(), b.revision(), b.digest(), plan, grant.step()))));
    }

    @Override
    public Optional<Diagnostic> planApproved(WorkflowPlan plan, Sha256Digest digest) {
        return guarded(() -> granting(log.recordPlanApproval(new AuditEvent.PlanApproved(
                plan.run(),
                plan.agent(),
                ExecutionScope.workspaceDigest(plan.workspace()),
                digest,
                plan.steps().size()))));
    }

    @Override
    public Optional<Diagnostic> settled(AuditEvent.Settled record) {
        return guarded(() -> problem(log.recordSettlement(record)));
    }

    @Override
    public Optional<Diagnostic> lateAnswer(AuditEvent.LateAnswer record) {
        try {
            return guarded(() -> problem(log.recordLateAnswer(record)));
        } catch (RuntimeException e) {
            return Optional.of(Diagnostic.error(
                    ErrorCode.AUDIT_IO,
                    "",
                    "the late-answer record failed (" + e.getClass().getSimpleName() + ")"));
        }
    }

    /** Appends, turning a closed log into a diagnostic instead of an exception. */
    private static Optional<Diagnostic> guarded(java.util.function.Supplier<Optional<Diagnostic>> append) {
        try {
            return append.get();
        } catch (IllegalStateException e) {
            return Optional.of(Diagnostic.error(ErrorCode.AUDIT_LOCKED, "", "the audit log is closed"));
        }
    }

    /**
     * The digest recorded for a workflow plan: SHA-256 over the UTF-8 text
     * {@code skillgate-engine/v1/workflow-plan\n}, {@code run <run>\n}, {@code agent <agent>\n},
     * {@code workspace <workspace digest>\n} and one line per step in order,
     * {@code step <skill> <revision> <invocation digest|->\n}.
     */
    public static Sha256Digest planDigest(WorkflowPlan plan) {
        StringBuilder text = new StringBuilder("skillgate-engine/v1/workflow-plan\n");
        text.append("run ").append(plan.run().value()).append('\n');
        text.append("agent ").append(plan.agent().value()).append('\n');
        text.append("workspace ")
                .append(ExecutionScope.workspaceDigest(plan.workspace()))
                .append('\n');
        for (PlannedStep step : plan.steps()) {
            text.append("step ")
                    .append(step.skill().value())
                    .append(' ')
                    .append(step.revision())
                    .append(' ')
                    .append(step.invocationDigest().map(Sha256Digest::toString).orElse("-"))
                    .append('\n');
        }
        return Sha256Digest.hash(text.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** The audit scope of a receipted trusted-revision scope. */
    public static ExecutionScope executionScope(TrustScope scope, Receipt receipt) {
        return new ExecutionScope(
                scope.revision(),
                scope.agent(),
                ExecutionScope.workspaceDigest(scope.workspace()),
                scope.timeoutCeiling(),
                scope.outputCeiling(),
                receipt.id(),
                receipt.approvedAt());
    }

    /** The audit scope of a receipted scope entry, when it has a receipt. */
    public static Optional<ExecutionScope> executionScope(ScopeEntry entry) {
        return entry.receipt().map(r -> executionScope(entry.scope(), r));
    }

    /**
     * The digest recorded for a saved policy: SHA-256 over the UTF-8 text
     * {@code skillgate-engine/v1/policy\n mode <MODE>\n} and one line per scope
     * {@code scope <revision> <agent> <workspace digest> <timeout ms> <output bytes> <receipt id|-> <receipt instant|->\n},
     * in stored order.
     */
    public static Sha256Digest policyDigest(PolicySnapshot policy) {
        StringBuilder text = new StringBuilder("skillgate-engine/v1/policy\n");
        text.append("mode ").append(policy.mode().name()).append('\n');
        for (ScopeEntry e : policy.scopes()) {
            TrustScope s = e.scope();
            text.append("scope ")
                    .append(s.revision())
                    .append(' ')
                    .append(s.agent().value())
                    .append(' ')
                    .append(ExecutionScope.workspaceDigest(s.workspace()))
                    .append(' ')
                    .append(s.timeoutCeiling().millis())
                    .append(' ')
                    .append(s.outputCeiling().bytes())
                    .append(' ')
                    .append(e.receipt().map(r -> r.id().toString()).orElse("-"))
                    .append(' ')
                    .append(e.receipt().map(r -> r.approvedAt().toString()).orElse("-"))
                    .append('\n');
        }
        return Sha256Digest.hash(text.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * For a record that lets something proceed (a consumed grant, an approval, a plan or one of its
     * steps): committed is not enough when the log halted while exporting it (decision 0370). The
     * record stays committed locally; what it would have allowed is refused, like everything after
     * it until the export resumes.
     */
    private Optional<Diagnostic> granting(AppendResult result) {
        Optional<Diagnostic> p = problem(result);
        if (p.isPresent() || log.status().state() != AuditState.EXPORT_HALTED) {
            return p;
        }
        return Optional.of(Diagnostic.error(
                ErrorCode.AUDIT_SINK_FAILED,
                "",
                "the record is committed locally but an audit sink did not accept it; nothing proceeds until"
                        + " the export resumes"));
    }

    static Optional<Diagnostic> problem(AppendResult result) {
        if (result instanceof AppendResult.Committed) {
            return Optional.empty();
        }
        Diagnostic reason =
                result instanceof AppendResult.Refused r ? r.reason() : ((AppendResult.Failed) result).reason();
        ErrorCode code = reason.code();
        return Optional.of(
                Diagnostic.error(code, reason.location(), "the audit log did not commit: " + reason.message()));
    }
}
