package dev.skillgate.consent;

import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * What one {@link PolicyAdmin#save} changed, for the host's audit log.
 *
 * @param before the policy in force before the save
 * @param after the policy saved
 * @param minted scope entries that received a new receipt in this save
 * @param revoked entries that had a receipt before and were removed or changed (their receipt is
 *     gone)
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record PolicyChange(
        PolicySnapshot before, PolicySnapshot after, List<ScopeEntry> minted, List<ScopeEntry> revoked) {
    public PolicyChange {
        Objects.requireNonNull(before, "before");
        Objects.requireNonNull(after, "after");
        minted = List.copyOf(minted);
        revoked = List.copyOf(revoked);
    }
}
