package dev.skillgate.engine.internal;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.PromptSkillScope;
import dev.skillgate.audit.TrustScope;
import dev.skillgate.consent.TrustedRevisionLaunch;
import dev.skillgate.consent.WorkflowPlan;
import dev.skillgate.consent.shared.ConsumedGrant;
import dev.skillgate.consent.shared.WorkflowStepGrant;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.Sha256Digest;
import java.util.Optional;

/** The engine's hooks into the trust audit log ({@link AuditTrail}). Not API. */
public interface Trail {

    /**
     * Records that {@code grant} was consumed, durably, before the launch.
     *
     * @return why the record could not be committed (the launch is then refused), or empty
     */
    Optional<Diagnostic> consumed(ConsumedGrant grant);

    /** Whether the audit log vouches for the receipt behind {@code launch}. */
    boolean vouchesFor(TrustedRevisionLaunch launch);

    /** Whether the audit log trusts a prompt skill's first-use scope now. */
    boolean trusts(PromptSkillScope scope);

    /** Whether the latest decision on {@code scope} is a revocation. */
    boolean revoked(TrustScope scope);

    /**
     * Why the audit log cannot record a trust decision now (disabled, or this handle may not write),
     * checked before a human is asked; empty when it can.
     */
    Optional<Diagnostic> unavailable();

    /** Appends an approval, durably; empty when committed, else why not. */
    Optional<Diagnostic> approve(TrustScope scope);

    /**
     * Records that one step of an approved workflow plan was used, durably, before the launch.
     *
     * @param plan the plan's digest
     * @return why the record could not be committed (the launch is then refused), or empty
     */
    Optional<Diagnostic> stepConsumed(WorkflowStepGrant grant, Sha256Digest plan);

    /** Records the approval of a workflow plan, durably; empty when committed, else why not. */
    Optional<Diagnostic> planApproved(WorkflowPlan plan, Sha256Digest digest);

    /**
     * Records how an authorised execution settled; empty when committed, else why not. Never throws:
     * the run already happened, so a failure is reported, never turned into another outcome.
     */
    Optional<Diagnostic> settled(AuditEvent.Settled record);

    /**
     * Records a human's answer that arrived after the engine stopped waiting for it (decision 0769);
     * empty when committed, else why not. Never throws: the answer was already ignored, so a failure is
     * only reported.
     */
    Optional<Diagnostic> lateAnswer(AuditEvent.LateAnswer record);
}
