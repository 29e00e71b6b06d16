package dev.skillgate.consent;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Text;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * The human's answer to one approval request: {@link Approved} or {@link Denied}.
 *
 * <p>Anything that is not an explicit approval — a timeout, a failed or closed channel, an
 * exception — is a {@link Denied} with its own code. A decision means nothing until the ledger
 * records it for a live proposal.
 */
@API(status = API.Status.STABLE, since = "0.1.0")
public sealed interface ApprovalDecision permits ApprovalDecision.Approved, ApprovalDecision.Denied {

    /** Whether this is an approval. */
    boolean isApproval();

    /** An approval. */
    static ApprovalDecision approve() {
        return Approved.INSTANCE;
    }

    /** A human denial with a short reason. */
    static ApprovalDecision deny(String reason) {
        return new Denied(ErrorCode.CONSENT_DENIED, reason);
    }

    /** The human approved exactly what the request showed. */
    record Approved() implements ApprovalDecision {
        static final Approved INSTANCE = new Approved();

        @Override
        public boolean isApproval() {
            return true;
        }
    }

    /**
     * A denial.
     *
     * @param code {@link ErrorCode#CONSENT_DENIED}, {@link ErrorCode#CONSENT_TIMEOUT} or
     *     {@link ErrorCode#CONSENT_CHANNEL_UNAVAILABLE}
     * @param reason short text (cut and escaped)
     */
    record Denied(ErrorCode code, String reason) implements ApprovalDecision {
        /** Longest reason kept, in code points. */
        public static final int MAX_REASON = 200;

        public Denied {
            Objects.requireNonNull(code, "code");
            if (code != ErrorCode.CONSENT_DENIED
                    && code != ErrorCode.CONSENT_TIMEOUT
                    && code != ErrorCode.CONSENT_CHANNEL_UNAVAILABLE) {
                throw new IllegalArgumentException(
                        "a denial's code is CONSENT_DENIED, CONSENT_TIMEOUT or " + "CONSENT_CHANNEL_UNAVAILABLE");
            }
            reason = Text.sanitize(Objects.requireNonNull(reason, "reason"), MAX_REASON);
        }

        @Override
        public boolean isApproval() {
            return false;
        }
    }
}
