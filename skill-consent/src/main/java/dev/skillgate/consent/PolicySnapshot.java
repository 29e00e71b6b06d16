package dev.skillgate.consent;

import dev.skillgate.model.Diagnostic;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The effective policy at one moment, as read from the store.
 *
 * <p>When the store is unusable the effective mode is {@link ExecutionPolicy#BLOCKED}, there are no
 * scopes, and {@link #problems()} says why. Read-only: nothing reachable from a snapshot writes
 * policy.
 *
 * @param mode the effective mode
 * @param scopes the stored scopes (drafts included); empty when the store is unusable
 * @param problems why the store is unusable; empty otherwise
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record PolicySnapshot(ExecutionPolicy mode, List<ScopeEntry> scopes, List<Diagnostic> problems) {
    public PolicySnapshot {
        Objects.requireNonNull(mode, "mode");
        scopes = List.copyOf(scopes);
        problems = List.copyOf(problems);
        if (!problems.isEmpty() && (mode != ExecutionPolicy.BLOCKED || !scopes.isEmpty())) {
            throw new IllegalArgumentException("an unusable policy is BLOCKED with no scopes");
        }
    }

    /** The effective policy for what a store returned. */
    public static PolicySnapshot of(PolicyLoad load) {
        if (load.status() == PolicyLoad.Status.UNUSABLE) {
            return new PolicySnapshot(
                    ExecutionPolicy.BLOCKED, List.of(), List.of(load.problem().get()));
        }
        return new PolicySnapshot(load.settings().mode(), load.settings().scopes(), List.of());
    }

    /** Whether the store could not be used (the policy is then blocked). */
    public boolean isUnusable() {
        return !problems.isEmpty();
    }

    /**
     * The first approved scope covering {@code binding}, only when the mode is
     * {@link ExecutionPolicy#TRUST_SELECTED_REVISIONS}.
     */
    public Optional<ScopeEntry> trustedScopeFor(ConsentBinding binding) {
        if (mode != ExecutionPolicy.TRUST_SELECTED_REVISIONS) {
            return Optional.empty();
        }
        return scopes.stream()
                .filter(e -> e.isApproved() && e.scope().covers(binding))
                .findFirst();
    }
}
