package dev.skillgate.consent;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.shared.Text;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The human's answer to one approval request: {@link Approved} or {@link Denied}.
 *
 * <p>An approval names the request it answers (decision 0760): obtain it from the request object
 * the channel was shown — {@link ApprovalRequest#approve()}, {@link WorkflowApprovalRequest#approve()},
 * {@link ActivationApprovalRequest#approve()} — and the ledger and the engine refuse it for any other
 * request ({@link ErrorCode#BINDING_MISMATCH}), so a host UI that completes the wrong pending request
 * cannot approve the wrong proposal. A denial needs no binding: applied to any request it only
 * denies.
 *
 * <p>Anything that is not an explicit approval — a timeout, a failed or closed channel, an
 * exception — is a {@link Denied} with its own code. A decision means nothing until the ledger
 * records it for a live proposal.
 */
@API(status = API.Status.STABLE, since = "0.1.0")
public sealed interface ApprovalDecision permits ApprovalDecision.Approved, ApprovalDecision.Denied {

    /** Whether this is an approval. */
    boolean isApproval();

    /** The request this decision answers: an approval's proposal; empty for a denial. */
    Optional<ProposalId> boundTo();

    /**
     * Whether this decision may be recorded for the request {@code id}: an approval only for the
     * request it names, a denial for any.
     */
    default boolean answers(ProposalId id) {
        Objects.requireNonNull(id, "id");
        return boundTo().map(id::equals).orElse(!isApproval());
    }

    /** An approval of exactly the request {@code proposal} (prefer {@code request.approve()}). */
    static ApprovalDecision approve(ProposalId proposal) {
        return new Approved(proposal);
    }

    /** A human denial with a short reason. */
    static ApprovalDecision deny(String reason) {
        return new Denied(ErrorCode.CONSENT_DENIED, reason);
    }

    /**
     * The human approved exactly what the request {@code proposal} showed.
     *
     * @param proposal the id of the request (for an activation: {@link ActivationApprovalRequest#id()})
     */
    record Approved(ProposalId proposal) implements ApprovalDecision {
        public Approved {
            Objects.requireNonNull(proposal, "proposal");
        }

        @Override
        public boolean isApproval() {
            return true;
        }

        @Override
        public Optional<ProposalId> boundTo() {
            return Optional.of(proposal);
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

        @Override
        public Optional<ProposalId> boundTo() {
            return Optional.empty();
        }
    }
}
