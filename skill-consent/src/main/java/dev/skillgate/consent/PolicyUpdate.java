package dev.skillgate.consent;

import dev.skillgate.consent.internal.PolicyCodec;
import dev.skillgate.model.ErrorCode;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * What the local user saves in the settings UI: a mode and the trusted-revision scopes they want.
 *
 * <p>It has no place for a receipt: receipts are minted by {@link PolicyAdmin#save}. Bounds (64
 * scopes, no duplicates) are checked by {@code save}, which rejects a bad update as a value and
 * changes nothing. Scopes saved in a mode other than
 * {@link ExecutionPolicy#TRUST_SELECTED_REVISIONS} are kept as unapproved drafts.
 *
 * @param mode the mode to save
 * @param scopes the scopes to keep (any scope not listed is removed, which revokes it)
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record PolicyUpdate(ExecutionPolicy mode, List<TrustScope> scopes) {
    public PolicyUpdate {
        Objects.requireNonNull(mode, "mode");
        scopes = List.copyOf(scopes);
    }

    /** An update to {@code mode} with no scopes. */
    public static PolicyUpdate of(ExecutionPolicy mode) {
        return new PolicyUpdate(mode, List.of());
    }

    /**
     * Parses an update submitted as JSON by a settings UI, with the strict reader of the policy
     * file (bounded, duplicate keys and unknown fields rejected).
     *
     * <p>The accepted shape is the policy file's ({@code docs/consent.md}); {@code format} and
     * {@code version} are optional, and a {@code receipt} member of a scope is accepted and
     * <em>ignored</em>, so a UI may post back what it displayed — submitted receipt ids and times
     * never reach the store. Malformed input yields {@link ErrorCode#POLICY_INVALID}.
     */
    public static ConsentResult<PolicyUpdate> parseJson(byte[] json) {
        return PolicyCodec.decodeUpdate(Objects.requireNonNull(json, "json"));
    }
}
