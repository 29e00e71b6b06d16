package dev.skillgate.engine;

import dev.skillgate.consent.Receipt;
import dev.skillgate.consent.TrustScope;
import dev.skillgate.model.Sha256Digest;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * What authorised one launch, as the {@link ExecutionEvent.Kind#AUTHORISED} event reports it: the
 * human answering this very request, a trusted-revision receipt (nobody was asked), or a step of an
 * approved workflow plan (the human approved the plan, not this launch). A host shows it so that a
 * launch nobody was asked about is never silent (issue 15, attack 5).
 *
 * <p>It describes the authorisation the engine used; it grants nothing and cannot be presented
 * back. The gates are re-checked before the launch, so an authorised execution may still be refused
 * (a receipt revoked in between: {@code TRUST_REVOKED}). Authorising a launch makes no script safe.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public sealed interface LaunchAuthority {

    /** The human approved exactly this request through the approval channel (a one-use grant). */
    record Asked() implements LaunchAuthority {}

    /**
     * A stored trusted-revision receipt covered the launch and the audit log vouched for it; nobody
     * was asked.
     *
     * @param receipt the receipt (its id and when the local user's save approved the scope)
     * @param scope what the receipt covers: revision, agent, workspace, timeout and output ceilings
     * @param scopeId the audit log's id of the receipted scope ({@code sha256:…}), the id
     *     {@code skillgate trust revoke --scope} and {@code TrustAdmin.revoke} take
     */
    record TrustedRevision(Receipt receipt, TrustScope scope, Sha256Digest scopeId) implements LaunchAuthority {
        public TrustedRevision {
            Objects.requireNonNull(receipt, "receipt");
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(scopeId, "scopeId");
        }
    }

    /**
     * A step of a workflow plan the human approved for this run.
     *
     * @param plan the plan's digest, as recorded in the audit log
     * @param step the step's index in the plan, from 0
     */
    record WorkflowStep(Sha256Digest plan, int step) implements LaunchAuthority {
        public WorkflowStep {
            Objects.requireNonNull(plan, "plan");
            if (step < 0) {
                throw new IllegalArgumentException("a step index is not negative");
            }
        }
    }
}
