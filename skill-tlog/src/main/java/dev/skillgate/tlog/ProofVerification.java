package dev.skillgate.tlog;

import dev.skillgate.model.ErrorCode;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * The outcome of checking a proof file against trusted keys: the checkpoint it was checked against,
 * or a rejection with a stable code.
 *
 * <p>{@link Verified} means the checkpoint's note verified with a known key and the proof leads from
 * the claimed data to its root. Whether that checkpoint is the one the log showed everyone else is
 * for a witness or another checkpoint to establish.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public sealed interface ProofVerification {
    /** Whether the proof was accepted. */
    boolean verified();

    /**
     * Accepted.
     *
     * @param checkpoint the verified checkpoint the proof is against
     */
    record Verified(TlogCheckpoint checkpoint) implements ProofVerification {
        public Verified {
            Objects.requireNonNull(checkpoint, "checkpoint");
        }

        @Override
        public boolean verified() {
            return true;
        }
    }

    /**
     * Refused.
     *
     * @param code {@code AUDIT_CHECKPOINT_FORMAT}, {@code AUDIT_CHECKPOINT_SIGNATURE}, {@code
     *     AUDIT_CHECKPOINT_MISMATCH} (another origin) or {@code AUDIT_PROOF_INVALID}
     * @param reason a short explanation
     */
    record Rejected(ErrorCode code, String reason) implements ProofVerification {
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
