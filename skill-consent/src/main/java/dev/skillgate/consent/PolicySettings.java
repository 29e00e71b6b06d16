package dev.skillgate.consent;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Limits;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.apiguardian.api.API;

/**
 * The persisted execution policy: a mode and up to {@link Limits#TRUSTED_SCOPES} scope entries with
 * their receipts (what a {@code PolicyStore} reads and writes).
 *
 * <p>Invariants, checked on construction: at most 64 entries, no scope twice, no receipt id twice.
 * Holding a settings value changes nothing; only {@link PolicyAdmin} writes the store.
 *
 * @param mode the policy mode
 * @param scopes the stored scopes in the order the local user saved them
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record PolicySettings(ExecutionPolicy mode, List<ScopeEntry> scopes) {
    /** The settings in force when nothing was ever saved: ask each time, no scopes. */
    public static final PolicySettings DEFAULT = new PolicySettings(ExecutionPolicy.ASK_EACH_TIME, List.of());

    public PolicySettings {
        Objects.requireNonNull(mode, "mode");
        scopes = List.copyOf(scopes);
        if (scopes.size() > Limits.TRUSTED_SCOPES) {
            throw new InvalidValueException(
                    ErrorCode.POLICY_SCOPE_LIMIT, "at most " + Limits.TRUSTED_SCOPES + " trusted-revision scopes");
        }
        Set<TrustScope> seen = new HashSet<>();
        Set<UUID> receipts = new HashSet<>();
        for (ScopeEntry entry : scopes) {
            if (!seen.add(entry.scope())) {
                throw new InvalidValueException(ErrorCode.POLICY_INVALID, "a trusted-revision scope is listed twice");
            }
            if (entry.receipt().isPresent()
                    && !receipts.add(entry.receipt().get().id())) {
                throw new InvalidValueException(ErrorCode.POLICY_INVALID, "a receipt id is used twice");
            }
        }
    }
}
