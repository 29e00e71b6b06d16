package dev.skillgate.consent;

import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * A stored trusted-revision scope with its receipt, or without one (an unapproved draft).
 *
 * <p>Only entries with a receipt can cover a launch, and only while the policy is
 * {@link ExecutionPolicy#TRUST_SELECTED_REVISIONS}.
 *
 * @param scope the scope
 * @param receipt the store-minted receipt, empty for a draft
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record ScopeEntry(TrustScope scope, Optional<Receipt> receipt) {
    public ScopeEntry {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(receipt, "receipt");
    }

    /** Whether the scope has a receipt. */
    public boolean isApproved() {
        return receipt.isPresent();
    }
}
