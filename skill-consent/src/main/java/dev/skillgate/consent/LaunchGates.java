package dev.skillgate.consent;

import dev.skillgate.consent.shared.ConsumedGrant;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.SkillName;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The three independent launch gates of SPEC §8: the caller holds the execute capability, safe
 * mode is off, and the policy allows. The engine calls {@link #check} before seeking consent and
 * {@link #recheck} immediately before launch; each call re-reads safe mode, the capability and the
 * policy store.
 *
 * <p>Every gate is evaluated on every call and every failure is reported; no gate's outcome
 * influences another's, and no mode implies another (a trusted revision does not turn safe mode
 * off; a capability is not consent). The gates decide whether a launch may be authorised; they do
 * not confine what a launched script does.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class LaunchGates {
    private final PolicyView view;

    LaunchGates(PolicyView view) {
        this.view = Objects.requireNonNull(view, "view");
    }

    /**
     * Evaluates the gates for a launch of {@code skill} with {@code binding} and says how it must be
     * authorised. In {@link ExecutionPolicy#TRUST_SELECTED_REVISIONS} mode a launch that no
     * approved scope covers needs a grant like {@link ExecutionPolicy#ASK_EACH_TIME}.
     */
    public GateCheck check(Optional<ExecuteCapability> capability, SkillName skill, ConsentBinding binding) {
        Objects.requireNonNull(capability, "capability");
        Objects.requireNonNull(skill, "skill");
        Objects.requireNonNull(binding, "binding");
        PolicySnapshot policy = view.policy();
        List<Diagnostic> failures = independentGates(capability, policy);
        if (!failures.isEmpty()) {
            return new GateCheck(failures, GateCheck.Route.REFUSED, policy, Optional.empty());
        }
        switch (policy.mode()) {
            case APPROVE_WORKFLOW_RUN:
                return new GateCheck(List.of(), GateCheck.Route.WORKFLOW_PLAN, policy, Optional.empty());
            case TRUST_SELECTED_REVISIONS:
                Optional<ScopeEntry> scope = policy.trustedScopeFor(binding);
                if (scope.isPresent()) {
                    TrustedRevisionLaunch launch = new TrustedRevisionLaunch(
                            binding, scope.get().scope(), scope.get().receipt().get());
                    return new GateCheck(List.of(), GateCheck.Route.TRUSTED_REVISION, policy, Optional.of(launch));
                }
                return new GateCheck(List.of(), GateCheck.Route.ASK_EACH_TIME, policy, Optional.empty());
            default:
                return new GateCheck(List.of(), GateCheck.Route.ASK_EACH_TIME, policy, Optional.empty());
        }
    }

    /**
     * Re-evaluates every gate immediately before launch for an authorisation obtained earlier:
     * the capability, safe mode and a fresh read of the policy, plus whether the policy still
     * admits this kind of authorisation — a consumed grant in {@code ASK_EACH_TIME} or
     * {@code TRUST_SELECTED_REVISIONS} (the modes that ask; never in {@code APPROVE_WORKFLOW_RUN},
     * where nothing runs without a plan); a
     * trusted-revision launch only while the mode is trusted-revision and the same receipt still
     * covers the binding; a workflow step only while the mode is workflow. Otherwise
     * {@link ErrorCode#POLICY_CHANGED}.
     */
    public GateCheck recheck(Optional<ExecuteCapability> capability, LaunchAuthorization authorization) {
        Objects.requireNonNull(capability, "capability");
        Objects.requireNonNull(authorization, "authorization");
        PolicySnapshot policy = view.policy();
        List<Diagnostic> failures = independentGates(capability, policy);
        if (failures.isEmpty()) {
            stillAdmitted(policy, authorization).ifPresent(failures::add);
        }
        if (!failures.isEmpty()) {
            return new GateCheck(failures, GateCheck.Route.REFUSED, policy, Optional.empty());
        }
        return new GateCheck(List.of(), GateCheck.Route.CONFIRMED, policy, Optional.empty());
    }

    private List<Diagnostic> independentGates(Optional<ExecuteCapability> capability, PolicySnapshot policy) {
        List<Diagnostic> failures = new ArrayList<>(3);
        if (capability.isEmpty() || !view.holds(capability.get())) {
            failures.add(Diagnostic.error(
                    ErrorCode.GATE_CAPABILITY_MISSING, "", "the caller does not hold a valid execute capability"));
        }
        if (view.safeMode()) {
            failures.add(Diagnostic.error(ErrorCode.GATE_SAFE_MODE, "", "safe mode is on: scripts do not run"));
        }
        if (policy.isUnusable()) {
            failures.addAll(policy.problems());
        } else if (policy.mode() == ExecutionPolicy.BLOCKED) {
            failures.add(Diagnostic.error(ErrorCode.POLICY_BLOCKED, "", "the execution policy blocks scripts"));
        }
        return failures;
    }

    private static Optional<Diagnostic> stillAdmitted(PolicySnapshot policy, LaunchAuthorization authorization) {
        if (authorization instanceof ConsumedGrant) {
            // Only the asking modes mint grants; in workflow mode nothing runs without a plan (decision 0366).
            return policy.mode() == ExecutionPolicy.APPROVE_WORKFLOW_RUN
                    ? Optional.of(Diagnostic.error(
                            ErrorCode.POLICY_CHANGED,
                            "",
                            "the policy is now approve-workflow-run: a launch needs a plan step"))
                    : Optional.empty();
        }
        if (authorization instanceof TrustedRevisionLaunch) {
            TrustedRevisionLaunch trusted = (TrustedRevisionLaunch) authorization;
            boolean same = policy.mode() == ExecutionPolicy.TRUST_SELECTED_REVISIONS
                    && policy.scopes().stream()
                            .anyMatch(e -> e.receipt().equals(Optional.of(trusted.receipt()))
                                    && e.scope().equals(trusted.scope())
                                    && e.scope().covers(authorization.binding()));
            return same
                    ? Optional.empty()
                    : Optional.of(Diagnostic.error(
                            ErrorCode.POLICY_CHANGED, "", "the trusted-revision scope was revoked or changed"));
        }
        return policy.mode() == ExecutionPolicy.APPROVE_WORKFLOW_RUN
                ? Optional.empty()
                : Optional.of(
                        Diagnostic.error(ErrorCode.POLICY_CHANGED, "", "the policy is no longer approve-workflow-run"));
    }
}
