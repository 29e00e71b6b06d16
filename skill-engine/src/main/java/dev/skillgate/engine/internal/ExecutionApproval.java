package dev.skillgate.engine.internal;

import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.ConsentBinding;
import dev.skillgate.consent.ConsentResult;
import dev.skillgate.consent.LaunchAuthorization;
import dev.skillgate.consent.ProposalSnapshot;
import dev.skillgate.consent.ProposalState;
import dev.skillgate.consent.shared.ConsentLedger;
import dev.skillgate.consent.shared.ConsumedGrant;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.engine.ExecutionEvent;
import dev.skillgate.engine.ExecutionRequest;
import dev.skillgate.inspect.SkillArtifact;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionManifest;
import dev.skillgate.model.SkillContract;
import dev.skillgate.protocol.Invocation;
import dev.skillgate.runner.NodeRuntime;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Asking the human for one execution: admission against the demands on the human (decision 0763),
 * proposal in the run's ledger, the approval request through the host's channel (fail closed, bounded
 * by the approval timeout and the consent window, woken by the caller's stop and by close) and the
 * consumption with the identical binding. What it refuses it settles through {@link Outcomes}.
 * Thread-safe. Not API.
 */
final class ExecutionApproval {
    private final EngineCore.Config config;
    private final Closing closing;
    private final Demands demands;
    private final RunLedgers ledgers;
    private final Supervision supervision;
    private final Listeners listeners;
    private final Outcomes outcomes;
    private final LateAnswers lateAnswers;

    ExecutionApproval(
            EngineCore.Config config,
            Closing closing,
            Demands demands,
            RunLedgers ledgers,
            Supervision supervision,
            Listeners listeners,
            Outcomes outcomes,
            LateAnswers lateAnswers) {
        this.config = config;
        this.closing = closing;
        this.demands = demands;
        this.ledgers = ledgers;
        this.supervision = supervision;
        this.listeners = listeners;
        this.outcomes = outcomes;
        this.lateAnswers = lateAnswers;
    }

    /**
     * Proposal → approval through the host's channel (fail closed, bounded by the approval timeout
     * and the consent window) → consume with the identical binding.
     */
    Optional<LaunchAuthorization> ask(
            Execution e,
            ExecutionRequest request,
            SkillArtifact artifact,
            ExecutionManifest manifest,
            Invocation invocation,
            NodeRuntime runtime,
            ConsentBinding binding,
            SupervisorSelector.Choice sel,
            Optional<SkillContract> contract) {
        // Verified before anyone is asked, so the request shows the flags of the binary that will be
        // re-verified at launch (a trusted-revision launch relies on the runner's own verification).
        NodeRuntime.Verification verification = runtime.verify();
        if (verification instanceof NodeRuntime.Refused r) {
            outcomes.refuse(e, List.of(r.reason()));
            return Optional.empty();
        }
        NodeRuntime.Verified verified = (NodeRuntime.Verified) verification;
        Optional<Diagnostic> tooMuch = demands.admit(request.agent());
        if (tooMuch.isPresent()) {
            outcomes.refuse(e, List.of(tooMuch.get()));
            return Optional.empty();
        }
        try {
            return askAdmitted(e, request, artifact, manifest, invocation, binding, sel, verified, contract);
        } finally {
            demands.release(request.agent());
        }
    }

    private Optional<LaunchAuthorization> askAdmitted(
            Execution e,
            ExecutionRequest request,
            SkillArtifact artifact,
            ExecutionManifest manifest,
            Invocation invocation,
            ConsentBinding binding,
            SupervisorSelector.Choice sel,
            NodeRuntime.Verified verified,
            Optional<SkillContract> contract) {
        ConsentResult<RunLedgers.Proposed> proposed = ledgers.propose(request.run(), request.skill(), binding);
        if (!proposed.isSuccess()) {
            outcomes.refuse(e, List.of(proposed.failure().orElseThrow()));
            return Optional.empty();
        }
        ConsentLedger ledger = proposed.value().orElseThrow().ledger();
        ProposalSnapshot proposal = proposed.value().orElseThrow().proposal();
        Optional<Diagnostic> cannotRecord = config.trail().unavailable();
        if (cannotRecord.isPresent()) {
            // The consumption could not be recorded: do not ask a human for a launch that cannot happen.
            ledger.cancel(proposal.id());
            outcomes.refuse(e, List.of(cannotRecord.get()));
            return Optional.empty();
        }
        if (config.approvalChannel().isEmpty()) {
            ledger.cancel(proposal.id());
            outcomes.refuse(e, ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, "no approval channel is configured");
            return Optional.empty();
        }
        List<String> argv = supervision
                .runner(sel, config.runtime().orElseThrow())
                .argvPreview(verified, request.run(), manifest.entrypoint());
        ApprovalRequest approvalRequest = ApprovalRequests.build(
                proposal,
                artifact,
                manifest,
                invocation,
                argv,
                sel.report(),
                contract,
                e.location(),
                config.ceilings());
        AtomicReference<ApprovalDecision> seen = new AtomicReference<>();
        // Every host decision passes the watch first: one the engine does not act on is late (decision 0769).
        LateAnswers.Watch watch = lateAnswers.execution(approvalRequest);
        ApprovalChannel bounded = ApprovalChannel.failClosed(
                watch.observing(config.approvalChannel().get()), config.approvalTimeout());
        ApprovalChannel recording = r -> bounded.request(r).thenApply(d -> {
            seen.set(d);
            return d;
        });
        listeners.emit(e, ExecutionEvent.Kind.APPROVAL_REQUESTED, List.of(), Optional.empty());
        CompletableFuture<ConsentResult<ProposalState>> answer =
                ledger.requestApproval(approvalRequest, recording).toCompletableFuture();
        CompletableFuture.anyOf(answer, e.stopSignal(), closing.signal()).join();
        if (e.stopped().isPresent()) {
            watch.end(Optional.empty());
            ledger.cancel(proposal.id());
            outcomes.stoppedBeforeLaunch(e);
            return Optional.empty();
        }
        if (closing.isClosed()) {
            // Closing ends every pending approval as ENGINE_CLOSED, whatever cancelled its proposal first.
            watch.end(Optional.empty());
            ledger.cancel(proposal.id());
            outcomes.refuse(e, ErrorCode.ENGINE_CLOSED, "this SkillGate closed while the approval was pending");
            return Optional.empty();
        }
        ConsentResult<ProposalState> result = answer.join();
        ApprovalDecision decided = seen.get();
        // The ledger acted on the host's decision when it approved, refused it, or recorded its denial;
        // an approval it did not record (its consent window had ended) was late.
        watch.end(
                result.isSuccess()
                                && result.value().orElseThrow() != ProposalState.APPROVED
                                && !(decided instanceof ApprovalDecision.Denied)
                        ? Optional.empty()
                        : Optional.ofNullable(decided));
        if (!result.isSuccess()) {
            outcomes.refuse(e, List.of(result.failure().orElseThrow()));
            return Optional.empty();
        }
        if (result.value().orElseThrow() != ProposalState.APPROVED) {
            ApprovalDecision decision = seen.get();
            if (decision instanceof ApprovalDecision.Denied d) {
                outcomes.refuse(e, d.code(), d.reason().isEmpty() ? "the approval was denied" : d.reason());
            } else {
                outcomes.refuse(e, ErrorCode.CONSENT_TIMEOUT, "no approval within the consent window");
            }
            return Optional.empty();
        }
        ConsentResult<ConsumedGrant> grant = ledger.consume(proposal.id(), binding);
        if (!grant.isSuccess()) {
            outcomes.refuse(e, List.of(grant.failure().orElseThrow()));
            return Optional.empty();
        }
        return Optional.of(grant.value().orElseThrow());
    }
}
