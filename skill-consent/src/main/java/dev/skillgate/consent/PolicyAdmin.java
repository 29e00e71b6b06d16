package dev.skillgate.consent;

import dev.skillgate.consent.spi.PolicyStore;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apiguardian.api.API;

/**
 * The only writer of execution policy, trusted-revision receipts, safe mode and execute
 * capabilities (SPEC §8, "who may change policy and trust").
 *
 * <p>A host creates one admin per data directory and hands it only to its local-user settings UI;
 * the engine and everything agent-facing get the read-only {@link #view()}. No method of the view,
 * the gates or the ledger returns or accepts an admin or a store.
 *
 * <p>Receipt rules, applied by {@link #save}: a scope saved in
 * {@link ExecutionPolicy#TRUST_SELECTED_REVISIONS} mode that has no receipt yet gets a new one
 * {random UUID, UTC instant from the admin's clock}; a scope that is unchanged (equal in every
 * field) keeps its receipt across saves and restarts; a changed scope is a new scope and gets a new
 * receipt; a removed scope loses its receipt (revoked), and re-adding it later mints a new one;
 * scopes saved in other modes without a receipt stay unapproved drafts (an already receipted,
 * unchanged scope keeps its receipt, which only takes effect in trusted-revision mode). Callers
 * cannot supply receipts. Each save mints inside the store's atomic
 * {@link PolicyStore#update}: saves through one store instance are serialised, and a store shared by
 * several processes (the PostgreSQL one) serialises them across processes, so a receipt is minted
 * once even when two admins save at once. The default file store does not coordinate processes.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class PolicyAdmin {
    private final ControlState state;
    private final Clock clock;

    private PolicyAdmin(PolicyStore store, Clock clock, boolean safeMode) {
        this.state = new ControlState(Objects.requireNonNull(store, "store"), safeMode);
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** An admin over {@code store}, minting receipt times from the UTC system clock; safe mode off. */
    public static PolicyAdmin open(PolicyStore store) {
        return new PolicyAdmin(store, Clock.systemUTC(), false);
    }

    /** An admin with an explicit receipt clock and initial safe mode. */
    public static PolicyAdmin open(PolicyStore store, Clock receiptClock, boolean safeMode) {
        return new PolicyAdmin(store, receiptClock, safeMode);
    }

    /** The read-only view to hand to the engine. */
    public PolicyView view() {
        return new PolicyView(state);
    }

    /** The effective policy now. */
    public PolicySnapshot currentPolicy() {
        return PolicySnapshot.of(state.load());
    }

    /**
     * Saves {@code update}, minting and keeping receipts by the rules above.
     *
     * @return what changed; or {@link ErrorCode#POLICY_SCOPE_LIMIT} (more than 64 scopes),
     *     {@link ErrorCode#POLICY_INVALID} (a scope listed twice) or {@link ErrorCode#POLICY_IO}
     *     (the store could not replace the policy) — in each case nothing changed
     */
    public synchronized ConsentResult<PolicyChange> save(PolicyUpdate update) {
        Objects.requireNonNull(update, "update");
        if (update.scopes().size() > Limits.TRUSTED_SCOPES) {
            return ConsentResult.failure(
                    ErrorCode.POLICY_SCOPE_LIMIT,
                    "at most " + Limits.TRUSTED_SCOPES + " trusted-revision scopes, got "
                            + update.scopes().size());
        }
        Set<TrustScope> distinct = new HashSet<>(update.scopes());
        if (distinct.size() != update.scopes().size()) {
            return ConsentResult.failure(ErrorCode.POLICY_INVALID, "a trusted-revision scope is listed twice");
        }
        // Receipts are minted from exactly what the store holds at the moment it writes (one atomic
        // update), so two admins over one shared store saving the same new scope mint one receipt.
        PolicySnapshot[] before = new PolicySnapshot[1];
        List<ScopeEntry> minted = new ArrayList<>();
        List<ScopeEntry> revoked = new ArrayList<>();
        boolean trustMode = update.mode() == ExecutionPolicy.TRUST_SELECTED_REVISIONS;
        try {
            state.store.update(load -> {
                PolicySnapshot current = PolicySnapshot.of(load == null ? PolicyLoad.absent() : load);
                before[0] = current;
                minted.clear();
                revoked.clear();
                Map<TrustScope, Receipt> existing = new HashMap<>();
                for (ScopeEntry e : current.scopes()) {
                    e.receipt().ifPresent(r -> existing.put(e.scope(), r));
                }
                List<ScopeEntry> entries = new ArrayList<>();
                for (TrustScope scope : update.scopes()) {
                    Receipt kept = existing.get(scope);
                    if (kept != null) {
                        entries.add(new ScopeEntry(scope, Optional.of(kept)));
                    } else if (trustMode) {
                        ScopeEntry fresh =
                                new ScopeEntry(scope, Optional.of(new Receipt(UUID.randomUUID(), clock.instant())));
                        entries.add(fresh);
                        minted.add(fresh);
                    } else {
                        entries.add(new ScopeEntry(scope, Optional.empty()));
                    }
                }
                for (ScopeEntry e : current.scopes()) {
                    if (e.isApproved() && !distinct.contains(e.scope())) {
                        revoked.add(e);
                    }
                }
                return Optional.of(new PolicySettings(update.mode(), entries));
            });
        } catch (IOException | RuntimeException e) {
            return ConsentResult.failure(
                    ErrorCode.POLICY_IO,
                    "the policy could not be saved (" + e.getClass().getSimpleName() + ")");
        }
        if (before[0] == null) {
            return ConsentResult.failure(ErrorCode.POLICY_IO, "the policy store did not apply the save");
        }
        return ConsentResult.success(new PolicyChange(before[0], currentPolicy(), minted, revoked));
    }

    /** Turns safe mode on or off; applies to the next gate check. */
    public void setSafeMode(boolean on) {
        state.setSafeMode(on);
    }

    /** Whether safe mode is on. */
    public boolean safeMode() {
        return state.safeMode();
    }

    /**
     * Mints a new execute capability, valid with this admin until revoked.
     *
     * @param label the host's name for it (1-64 printable ASCII characters; carries no authority)
     */
    public ExecuteCapability grantExecuteCapability(String label) {
        Objects.requireNonNull(label, "label");
        if (label.isEmpty() || label.length() > 64 || !label.chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
            throw new IllegalArgumentException("a capability label is 1-64 printable ASCII characters");
        }
        ExecuteCapability capability = new ExecuteCapability(state, label);
        state.addCapability(capability);
        return capability;
    }

    /** Revokes a capability; later gate checks fail for it. Returns whether it was valid. */
    public boolean revokeExecuteCapability(ExecuteCapability capability) {
        Objects.requireNonNull(capability, "capability");
        return state.removeCapability(capability);
    }
}
