package dev.skillgate.consent;

import dev.skillgate.model.Diagnostic;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The result of one {@link LaunchGates} evaluation: every failing gate, the policy that was read,
 * and which way the launch must be authorised.
 *
 * <p>{@link #allowed()} means the gates pass <em>for this moment</em>; it is not consent. For
 * {@link Route#ASK_EACH_TIME} the engine still needs a consumed grant, for
 * {@link Route#WORKFLOW_PLAN} a used plan step; only {@link Route#TRUSTED_REVISION} carries its
 * authorisation ({@link #trustedLaunch()}).
 *
 * @param failures one error per failing gate (capability, safe mode, policy); empty when allowed
 * @param route how the launch must be authorised; {@link Route#REFUSED} when a gate fails
 * @param policy the policy read for this check
 * @param trustedLaunch the receipt-matched authorisation when the route is trusted-revision
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public record GateCheck(
        List<Diagnostic> failures, Route route, PolicySnapshot policy, Optional<TrustedRevisionLaunch> trustedLaunch) {

    /** How a launch that passes the gates must be authorised. */
    public enum Route {
        /** A gate failed: nothing may run. */
        REFUSED,
        /** A one-use grant from the ledger (proposal → approval → consume). */
        ASK_EACH_TIME,
        /** Covered by an approved trusted-revision scope; see {@link GateCheck#trustedLaunch()}. */
        TRUSTED_REVISION,
        /** A step of the run's approved workflow plan ({@link ConsentLedger#consumePlanStep}). */
        WORKFLOW_PLAN,
        /** A recheck confirmed an authorisation obtained earlier. */
        CONFIRMED
    }

    public GateCheck {
        failures = List.copyOf(failures);
        Objects.requireNonNull(route, "route");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(trustedLaunch, "trustedLaunch");
        if (failures.isEmpty() == (route == Route.REFUSED)) {
            throw new IllegalArgumentException("the route is REFUSED exactly when a gate fails");
        }
        if (trustedLaunch.isPresent() != (route == Route.TRUSTED_REVISION)) {
            throw new IllegalArgumentException("a trusted launch is present exactly for TRUSTED_REVISION");
        }
    }

    /** Whether every gate passed. */
    public boolean allowed() {
        return failures.isEmpty();
    }
}
