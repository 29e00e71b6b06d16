package dev.skillgate.consent;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import java.util.Objects;
import java.util.UUID;
import org.apiguardian.api.API;

/**
 * Names one consent proposal (or workflow plan proposal) in a {@link ConsentLedger}: a random
 * (type 4) UUID, so that an agent cannot guess a live proposal's id.
 *
 * <p>A host may persist proposal ids in its pending-action records, but an id only refers to a
 * proposal of a live ledger; a ledger that does not know an id answers
 * {@link ErrorCode#UNKNOWN_PROPOSAL}. Knowing an id grants nothing by itself.
 *
 * @param value the UUID
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record ProposalId(UUID value) {
    public ProposalId {
        Objects.requireNonNull(value, "value");
    }

    /** A fresh id from the JDK's cryptographically strong random source. */
    public static ProposalId random() {
        return new ProposalId(UUID.randomUUID());
    }

    /**
     * Parses the canonical lowercase 36-character UUID form exactly; anything else (uppercase,
     * braces, missing hyphens, surrounding space) is rejected with
     * {@link ErrorCode#INVALID_IDENTIFIER}.
     */
    public static ProposalId parse(String text) {
        Objects.requireNonNull(text, "text");
        if (text.length() != 36) {
            throw new InvalidValueException(ErrorCode.INVALID_IDENTIFIER, "a proposal id is a 36-character UUID");
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean hyphen = i == 8 || i == 13 || i == 18 || i == 23;
            boolean ok = hyphen ? c == '-' : (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
            if (!ok) {
                throw new InvalidValueException(
                        ErrorCode.INVALID_IDENTIFIER, "a proposal id is a lowercase canonical UUID");
            }
        }
        return new ProposalId(UUID.fromString(text));
    }

    @Override
    public String toString() {
        return value.toString();
    }
}
