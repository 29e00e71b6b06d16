package dev.skillgate.consent;

import dev.skillgate.model.SkillName;
import java.time.Instant;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * A point-in-time view of one invocation proposal in a {@link ConsentLedger}.
 *
 * <p>The wall-clock instants are for display only; the window is enforced on the ledger's
 * monotonic {@link Ticker}, so {@code expiresAt} may disagree with the wall clock after a clock
 * change and the ledger ignores it. A snapshot is a copy: holding one grants nothing, and it never
 * contains the invocation text (only its digest, inside the binding).
 *
 * @param id the proposal id
 * @param skill the skill the proposal is for (the key for staling older proposals)
 * @param binding exactly what an approval covers
 * @param state the state when the snapshot was taken
 * @param createdAt wall-clock creation time, for display
 * @param expiresAt wall-clock creation time plus the window, for display
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record ProposalSnapshot(
        ProposalId id,
        SkillName skill,
        ConsentBinding binding,
        ProposalState state,
        Instant createdAt,
        Instant expiresAt) {
    public ProposalSnapshot {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(skill, "skill");
        Objects.requireNonNull(binding, "binding");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(expiresAt, "expiresAt");
    }
}
