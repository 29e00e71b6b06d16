package dev.skillgate.consent;

import dev.skillgate.consent.shared.ConsumedGrant;
import dev.skillgate.consent.shared.WorkflowStepGrant;
import org.apiguardian.api.API;

/**
 * What entitles one launch: a consumed one-use grant, a receipt-matched trusted-revision scope, or
 * a used step of an approved workflow plan.
 *
 * <p>Instances are minted only by this module ({@link ConsentLedger}, {@link LaunchGates}); callers
 * cannot construct one. An authorization proves a decision was made and used, nothing about
 * whether the script started or finished; it must still pass {@link LaunchGates#recheck}
 * immediately before launch.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public sealed interface LaunchAuthorization permits ConsumedGrant, TrustedRevisionLaunch, WorkflowStepGrant {
    /** The exact binding the authorization covers. */
    ConsentBinding binding();
}
