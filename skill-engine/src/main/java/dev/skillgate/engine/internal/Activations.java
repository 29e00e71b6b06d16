package dev.skillgate.engine.internal;

import dev.skillgate.audit.PromptSkillScope;
import dev.skillgate.consent.ActivationApprovalRequest;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ArtifactDescription;
import dev.skillgate.consent.SkillLocation;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.engine.Activation;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.inspect.CaptureOutcome;
import dev.skillgate.inspect.CapturedFile;
import dev.skillgate.inspect.ContractVerdict;
import dev.skillgate.inspect.DiscoveredSkill;
import dev.skillgate.inspect.Inspection;
import dev.skillgate.inspect.SignatureVerdict;
import dev.skillgate.inspect.SkillArtifact;
import dev.skillgate.inspect.SkillInspector;
import dev.skillgate.inspect.SkillKind;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import dev.skillgate.model.OriginType;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Prompt-skill activation (SPEC §12): capture → contract check (preflight) → trust lookup for
 * {agent, contract hash, revision} → first-use approval through the approval channel (a verified
 * publisher signature stands in for it) → audit record → contract check again → the SKILL.md text of
 * the capture. An activation that ends after the gate closed is refused with {@code ENGINE_CLOSED},
 * never handed out and never thrown. Thread-safe. Not API.
 */
final class Activations {
    private final EngineCore.Config config;
    private final Closing closing;
    private final Demands demands;
    private final Supervision supervision;
    private final Function<SkillName, Optional<DiscoveredSkill>> locator;
    private final LateAnswers lateAnswers;

    Activations(
            EngineCore.Config config,
            Closing closing,
            Demands demands,
            Supervision supervision,
            Function<SkillName, Optional<DiscoveredSkill>> locator,
            LateAnswers lateAnswers) {
        this.config = config;
        this.closing = closing;
        this.demands = demands;
        this.supervision = supervision;
        this.locator = locator;
        this.lateAnswers = lateAnswers;
    }

    /**
     * Activates {@code name} for {@code agent}. A revoked scope is refused; a disabled audit log refuses
     * first use.
     */
    Activation activate(AgentId agent, SkillName name, AgentContext context) {
        if (closing.isClosed()) {
            return refusedActivation(name, ErrorCode.ENGINE_CLOSED, "this SkillGate is closed");
        }
        try {
            Activation outcome = activateOpen(agent, name, context);
            if (closing.isClosed() && outcome instanceof Activation.Activated) {
                // The gate closed meanwhile: an activation that ends after close is refused, never handed out.
                return refusedActivation(name, ErrorCode.ENGINE_CLOSED, "this SkillGate closed during the activation");
            }
            return outcome;
        } catch (IllegalStateException ex) {
            if (closing.isClosed()) {
                // The private admin's audit log closed under the activation: a refusal value, never an exception.
                return refusedActivation(name, ErrorCode.ENGINE_CLOSED, "this SkillGate closed during the activation");
            }
            throw ex;
        }
    }

    private Activation activateOpen(AgentId agent, SkillName name, AgentContext context) {
        Optional<Diagnostic> stranger = Vouching.notVouched(config, agent, Optional.of(context));
        if (stranger.isPresent()) {
            return new Activation.Refused(name, List.of(stranger.get()));
        }
        Optional<Diagnostic> unsafe = supervision.unsafeDataDirectory();
        if (unsafe.isPresent()) {
            return new Activation.Refused(name, List.of(unsafe.get()));
        }
        Optional<DiscoveredSkill> found = locator.apply(name);
        if (found.isEmpty()) {
            return refusedActivation(
                    name,
                    ErrorCode.SKILL_NOT_FOUND,
                    "no loadable skill named '" + name.value() + "' in the skill roots");
        }
        if (found.get().kind() == SkillKind.LEGACY_FLAT
                || found.get().directory().isEmpty()) {
            return refusedActivation(
                    name, ErrorCode.LAYOUT_LEGACY_FLAT, "a legacy flat skill has no directory to capture");
        }
        Path directory = found.get().directory().get();
        CaptureOutcome captured = SkillArtifact.capture(directory);
        if (captured instanceof CaptureOutcome.Failed f) {
            return new Activation.Refused(name, List.of(f.diagnostic()));
        }
        try (SkillArtifact artifact = captured.artifact().orElseThrow()) {
            Optional<AgentContext> ctx = Optional.of(context);
            Contracts.Outcome preflight = Contracts.check(artifact, ctx, config);
            if (!preflight.refusal().isEmpty()) {
                return new Activation.Refused(name, preflight.refusal());
            }
            Optional<Sha256Digest> contractDigest = preflight.accepted().map(ContractVerdict.Accepted::sha256);
            boolean signed = preflight
                    .accepted()
                    .map(a -> a.contract().origin().type() == OriginType.SIGNED)
                    .orElse(false);
            if (signed) {
                Optional<Diagnostic> unverified = verifySignature(directory, artifact, ctx);
                if (unverified.isPresent()) {
                    return new Activation.Refused(name, List.of(unverified.get()));
                }
            }
            PromptSkillScope scope = new PromptSkillScope(agent, name, contractDigest, artifact.revision());
            if (config.trail().revoked(scope)) {
                return refusedActivation(
                        name, ErrorCode.TRUST_REVOKED, "this agent's trust in these exact bytes was revoked");
            }
            boolean askedNow = false;
            if (!config.trail().trusts(scope)) {
                Optional<Diagnostic> cannotRecord = config.trail().unavailable();
                if (cannotRecord.isPresent()) {
                    return new Activation.Refused(name, List.of(cannotRecord.get()));
                }
                if (!signed) {
                    Optional<Diagnostic> denial = askActivation(
                            agent, name, context, artifact, preflight, NameWarnings.location(found.get()));
                    if (denial.isPresent()) {
                        return new Activation.Refused(name, List.of(denial.get()));
                    }
                    askedNow = true;
                }
                Optional<Diagnostic> notRecorded = config.trail().approve(scope);
                if (notRecorded.isPresent()) {
                    return new Activation.Refused(name, List.of(notRecorded.get()));
                }
            }
            Contracts.Outcome again = Contracts.check(artifact, ctx, config);
            if (!again.refusal().isEmpty()) {
                return new Activation.Refused(name, again.refusal());
            }
            return new Activation.Activated(
                    name, artifact.revision(), contractDigest, artifact.skillMarkdown(), askedNow);
        }
    }

    private Optional<Diagnostic> askActivation(
            AgentId agent,
            SkillName name,
            AgentContext context,
            SkillArtifact artifact,
            Contracts.Outcome contract,
            Optional<SkillLocation> location) {
        if (config.approvalChannel().isEmpty()) {
            return Optional.of(
                    Diagnostic.error(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE, "", "no approval channel is configured"));
        }
        List<ArtifactDescription.FileEntry> files = new ArrayList<>();
        for (CapturedFile f : artifact.files()) {
            files.add(new ArtifactDescription.FileEntry(f.path(), f.size(), f.sha256()));
        }
        String instructions = artifact.skillMarkdown();
        ActivationApprovalRequest request = new ActivationApprovalRequest(
                dev.skillgate.consent.ProposalId.random(),
                name,
                agent,
                context.agentKind(),
                context.agentVersion().toString(),
                artifact.revision(),
                files,
                contract.accepted().map(ContractVerdict.Accepted::contract),
                contract.accepted().map(ContractVerdict.Accepted::sha256),
                contract.accepted().map(ContractVerdict.Accepted::recordType),
                () -> instructions,
                Instant.now(),
                location);
        Optional<Diagnostic> tooMuch = demands.admit(agent);
        if (tooMuch.isPresent()) {
            return tooMuch;
        }
        CompletableFuture<ApprovalDecision> answer;
        LateAnswers.Watch watch = lateAnswers.activation(request);
        try {
            answer = ApprovalChannel.failClosed(
                            watch.observing(config.approvalChannel().get()), activationTimeout())
                    .requestActivation(request)
                    .toCompletableFuture();
            CompletableFuture.anyOf(answer, closing.signal()).join();
        } finally {
            demands.release(agent);
        }
        if (closing.isClosed()) {
            watch.end(Optional.empty());
            return Optional.of(Diagnostic.error(
                    ErrorCode.ENGINE_CLOSED, "", "this SkillGate closed while the activation was pending"));
        }
        ApprovalDecision decision = answer.join();
        // A timeout is not the host's decision: the host's answer, whenever it comes, is then late.
        watch.end(Optional.of(decision));
        if (decision instanceof ApprovalDecision.Denied d) {
            return Optional.of(
                    Diagnostic.error(d.code(), "", d.reason().isEmpty() ? "the approval was denied" : d.reason()));
        }
        if (!decision.answers(request.id())) {
            // An approval for another request (decision 0760): never applied to this one.
            return Optional.of(Diagnostic.error(
                    ErrorCode.BINDING_MISMATCH, "", "the approval names another request than this activation"));
        }
        return Optional.empty();
    }

    /**
     * An activation's answer is bounded like an execution's: by the approval timeout and the consent
     * window, whichever is shorter (decision 0761).
     */
    private Duration activationTimeout() {
        Duration window = Duration.ofNanos(Limits.CONSENT_WINDOW_NANOS);
        return config.approvalTimeout().compareTo(window) < 0 ? config.approvalTimeout() : window;
    }

    /**
     * A signed contract must carry a signature the host's checker verifies for exactly this capture;
     * the inspector reads {@code skill.contract.sig} and asks the checker.
     */
    private Optional<Diagnostic> verifySignature(Path directory, SkillArtifact artifact, Optional<AgentContext> ctx) {
        if (config.signatureChecker().isEmpty()) {
            return Optional.of(Diagnostic.error(
                    ErrorCode.SIGNATURE_UNKNOWN_KEY,
                    "/origin",
                    "the contract's origin is signed and the host configured no publisher keys"));
        }
        Inspection inspection = SkillInspector.inspect(directory, Inspections.options(config, ctx));
        if (!inspection.revision().equals(Optional.of(artifact.revision()))) {
            return Optional.of(Diagnostic.error(
                    ErrorCode.SOURCE_CHANGED, "", "the skill changed while its signature was checked"));
        }
        SignatureVerdict verdict = inspection.signature();
        if (verdict instanceof SignatureVerdict.Verified) {
            return Optional.empty();
        }
        if (verdict instanceof SignatureVerdict.Rejected r) {
            return Optional.of(r.diagnostic());
        }
        return Optional.of(Diagnostic.error(
                ErrorCode.SIGNATURE_MISSING, "skill.contract.sig", "the publisher signature could not be verified"));
    }

    private static Activation refusedActivation(SkillName name, ErrorCode code, String message) {
        return new Activation.Refused(name, List.of(Diagnostic.error(code, "", message)));
    }
}
