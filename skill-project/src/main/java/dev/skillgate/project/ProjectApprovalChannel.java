package dev.skillgate.project;

import dev.skillgate.consent.ApprovalDecision;
import java.util.concurrent.CompletionStage;
import org.apiguardian.api.API;

/**
 * The host's approval surface for project runs: shows a {@link ProjectApprovalRequest} — all of it,
 * the warning included — and answers asynchronously. Only an explicit human approval of exactly that
 * request may answer {@link ProjectApprovalRequest#approve()}; the caller treats an exception, a failed or
 * late stage and {@code null} as a denial.
 */
@FunctionalInterface
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public interface ProjectApprovalChannel {
    /** Shows {@code request}; the stage completes with the human's decision. */
    CompletionStage<ApprovalDecision> request(ProjectApprovalRequest request);
}
