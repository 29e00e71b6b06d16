package dev.skillgate.consent.shared;

import dev.skillgate.consent.ConsentBinding;
import dev.skillgate.consent.LaunchAuthorization;
import dev.skillgate.consent.ProposalId;
import dev.skillgate.model.SkillName;
import java.time.Instant;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * A one-use consent that has just been consumed: the only way {@link ConsentLedger#consume} says
 * "yes".
 *
 * <p>Minted only by the ledger, exactly once per approved proposal. It is not persisted and means
 * nothing to another ledger. Consuming proves nothing about whether the script started or
 * finished.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class ConsumedGrant implements LaunchAuthorization {
    private final ProposalId proposal;
    private final SkillName skill;
    private final ConsentBinding binding;
    private final Instant consumedAt;

    ConsumedGrant(ProposalId proposal, SkillName skill, ConsentBinding binding, Instant consumedAt) {
        this.proposal = Objects.requireNonNull(proposal, "proposal");
        this.skill = Objects.requireNonNull(skill, "skill");
        this.binding = Objects.requireNonNull(binding, "binding");
        this.consumedAt = Objects.requireNonNull(consumedAt, "consumedAt");
    }

    /** The proposal that was consumed. */
    public ProposalId proposal() {
        return proposal;
    }

    /** The skill. */
    public SkillName skill() {
        return skill;
    }

    @Override
    public ConsentBinding binding() {
        return binding;
    }

    /** Wall-clock time of consumption, for display and audit. */
    public Instant consumedAt() {
        return consumedAt;
    }

    @Override
    public String toString() {
        return "ConsumedGrant[" + proposal + ", " + skill + ", " + binding.revision() + "]";
    }
}
