package dev.skillgate.consent;

import java.util.Objects;
import org.apiguardian.api.API;

/**
 * A launch covered by an approved trusted-revision scope: minted only by {@link LaunchGates#check}
 * when the policy is {@link ExecutionPolicy#TRUST_SELECTED_REVISIONS} and a receipted scope covers
 * the binding.
 *
 * <p>{@link LaunchGates#recheck} re-reads the policy and requires the same receipt to still cover
 * the binding, so a revocation applies to every launch that has not started. It cannot stop a
 * script that already runs.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class TrustedRevisionLaunch implements LaunchAuthorization {
    private final ConsentBinding binding;
    private final TrustScope scope;
    private final Receipt receipt;

    TrustedRevisionLaunch(ConsentBinding binding, TrustScope scope, Receipt receipt) {
        this.binding = Objects.requireNonNull(binding, "binding");
        this.scope = Objects.requireNonNull(scope, "scope");
        this.receipt = Objects.requireNonNull(receipt, "receipt");
    }

    @Override
    public ConsentBinding binding() {
        return binding;
    }

    /** The scope that covers the launch. */
    public TrustScope scope() {
        return scope;
    }

    /** The store-minted receipt of that scope. */
    public Receipt receipt() {
        return receipt;
    }

    @Override
    public String toString() {
        return "TrustedRevisionLaunch[" + binding.revision() + ", receipt " + receipt.id() + "]";
    }
}
