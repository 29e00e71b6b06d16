package dev.skillgate.tlog;

import dev.skillgate.model.ErrorCode;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * The outcome of opening a signed note against the caller's keys: verified, or rejected with a
 * stable code.
 *
 * <p>{@link Verified} means every signature by a known key verified and at least one did; it says
 * nothing about signatures by unknown keys (listed, unchecked) and nothing about the text's meaning.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public sealed interface NoteVerification {
    /** Whether the note was accepted. */
    boolean verified();

    /**
     * Accepted.
     *
     * @param note the note
     * @param verifiedBy the known keys whose signatures verified
     * @param unknownSignatures signatures by keys the caller did not give (ignored, unverified)
     */
    record Verified(SignedNote note, List<NoteVerifierKey> verifiedBy, List<NoteSignature> unknownSignatures)
            implements NoteVerification {
        public Verified {
            Objects.requireNonNull(note, "note");
            verifiedBy = List.copyOf(verifiedBy);
            unknownSignatures = List.copyOf(unknownSignatures);
        }

        @Override
        public boolean verified() {
            return true;
        }
    }

    /**
     * Refused.
     *
     * @param code {@code AUDIT_CHECKPOINT_FORMAT} (malformed) or {@code AUDIT_CHECKPOINT_SIGNATURE} (a
     *     known key's signature failed, a key was ambiguous, or no known key signed)
     * @param reason a short explanation that never quotes the note
     */
    record Rejected(ErrorCode code, String reason) implements NoteVerification {
        public Rejected {
            Objects.requireNonNull(code, "code");
            Objects.requireNonNull(reason, "reason");
        }

        @Override
        public boolean verified() {
            return false;
        }
    }
}
