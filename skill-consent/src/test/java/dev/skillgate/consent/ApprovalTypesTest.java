package dev.skillgate.consent;

import static dev.skillgate.consent.Fixtures.RUN;
import static dev.skillgate.consent.Fixtures.SKILL;
import static dev.skillgate.consent.Fixtures.binding;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.consent.shared.ConsentLedger;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Sha256Digest;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Approval request values and the scripted channel. */
class ApprovalTypesTest {
    private final ConsentLedger ledger = ConsentLedger.open(RUN);
    private final ProposalSnapshot proposal = ledger.propose(SKILL, binding()).orElseThrow();

    @Test
    void aRequestCannotShowAnotherRevisionOrInputThanItsBinding() {
        assertThatThrownBy(() -> ApprovalRequest.forProposal(
                        proposal,
                        Fixtures.artifact(Fixtures.revision("other")),
                        new InvocationPreview("{}", proposal.binding().invocationDigest()),
                        List.of("/usr/bin/node"),
                        Enforcement.standard(
                                proposal.binding().timeout(), proposal.binding().outputLimit())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("revision");
        assertThatThrownBy(() -> ApprovalRequest.forProposal(
                        proposal,
                        Fixtures.artifact(proposal.binding().revision()),
                        new InvocationPreview("{}", Sha256Digest.hash(new byte[0])),
                        List.of("/usr/bin/node"),
                        Enforcement.standard(
                                proposal.binding().timeout(), proposal.binding().outputLimit())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("digest");
    }

    @Test
    void argvIsBoundedAndFreeOfNul() {
        for (List<String> bad : List.of(
                List.<String>of(),
                List.of("/usr/bin/node", "a\0b"),
                java.util.Collections.nCopies(ApprovalRequest.MAX_ARGS + 1, "x"),
                List.of("x".repeat(ApprovalRequest.MAX_ARG_CHARS + 1)))) {
            assertThatThrownBy(() -> ApprovalRequest.forProposal(
                            proposal,
                            Fixtures.artifact(proposal.binding().revision()),
                            new InvocationPreview("{}", proposal.binding().invocationDigest()),
                            bad,
                            Enforcement.standard(
                                    proposal.binding().timeout(),
                                    proposal.binding().outputLimit())))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void theArtifactMustListItsEntrypointOnceAndBoundsItsSource() {
        Sha256Digest d = Sha256Digest.hash(new byte[] {1});
        assertThatThrownBy(() -> new ArtifactDescription(
                        Fixtures.REVISION,
                        List.of(new ArtifactDescription.FileEntry(PortablePath.of("a.mjs"), 1, d)),
                        PortablePath.of("b.mjs"),
                        () -> ""))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ArtifactDescription(
                        Fixtures.REVISION,
                        List.of(
                                new ArtifactDescription.FileEntry(PortablePath.of("a.mjs"), 1, d),
                                new ArtifactDescription.FileEntry(PortablePath.of("a.mjs"), 2, d)),
                        PortablePath.of("a.mjs"),
                        () -> ""))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ArtifactDescription.FileEntry(PortablePath.of("a.mjs"), -1, d))
                .isInstanceOf(IllegalArgumentException.class);
        ArtifactDescription huge = new ArtifactDescription(
                Fixtures.REVISION,
                List.of(new ArtifactDescription.FileEntry(PortablePath.of("a.mjs"), 1, d)),
                PortablePath.of("a.mjs"),
                () -> "x".repeat(ArtifactDescription.MAX_SOURCE_CHARS + 1));
        assertThat(huge.readEntrypointSource()).isEmpty();
        ArtifactDescription failing = new ArtifactDescription(
                Fixtures.REVISION,
                List.of(new ArtifactDescription.FileEntry(PortablePath.of("a.mjs"), 1, d)),
                PortablePath.of("a.mjs"),
                () -> {
                    throw new IllegalStateException("disposed");
                });
        assertThat(failing.readEntrypointSource()).isEmpty();
    }

    @Test
    void theInvocationRenderingIsBounded() {
        assertThatThrownBy(
                        () -> new InvocationPreview("x".repeat(InvocationPreview.MAX_CHARS + 1), Fixtures.INPUT_DIGEST))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void enforcementAlwaysSaysIsolationNone() {
        Enforcement e =
                Enforcement.standard(dev.skillgate.model.Timeout.DEFAULT, dev.skillgate.model.OutputLimit.DEFAULT);
        assertThat(e.isolation()).isEqualTo("none");
        assertThat(String.join(" ", e.applied()))
                .contains("60000 ms")
                .contains("65536 bytes")
                .contains("16384");
        assertThat(String.join(" ", e.notEnforced()))
                .contains("network")
                .contains("file system")
                .contains("memory");
    }

    @Test
    void aDenialCarriesOnlyDenialCodesAndABoundedReason() {
        assertThatThrownBy(() -> new ApprovalDecision.Denied(ErrorCode.POLICY_BLOCKED, "x"))
                .isInstanceOf(IllegalArgumentException.class);
        ApprovalDecision.Denied d = new ApprovalDecision.Denied(ErrorCode.CONSENT_DENIED, "\u001b" + "z".repeat(1000));
        assertThat(d.reason())
                .doesNotContain("\u001b")
                .hasSizeLessThanOrEqualTo(ApprovalDecision.Denied.MAX_REASON + 8);
    }

    @Test
    void theScriptedChannelAnswersInOrderAndRecords() throws Exception {
        ApprovalRequest request = Fixtures.request(proposal);
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext().denyNext("second");
        assertThat(get(channel.request(request)).isApproval()).isTrue();
        assertThat(get(channel.request(request))).isEqualTo(ApprovalDecision.deny("second"));
        assertThat(get(channel.request(request)))
                .isInstanceOfSatisfying(
                        ApprovalDecision.Denied.class,
                        x -> assertThat(x.code()).isEqualTo(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE));
        assertThat(channel.requests()).hasSize(3).allMatch(r -> r == request);
    }

    @Test
    void theHoldingScriptedChannelReleasesInOrder() throws Exception {
        ScriptedApprovalChannel channel = ScriptedApprovalChannel.holdingWhenEmpty();
        CompletionStage<ApprovalDecision> first = channel.request(Fixtures.request(proposal));
        CompletionStage<ApprovalDecision> second = channel.request(Fixtures.request(proposal));
        assertThat(channel.heldCount()).isEqualTo(2);
        channel.denyNext("one");
        assertThat(get(first)).isEqualTo(ApprovalDecision.deny("one"));
        assertThat(second.toCompletableFuture().isDone()).isFalse();
        channel.close();
        assertThat(get(second).isApproval()).isFalse();
        assertThatThrownBy(channel::approveNext).isInstanceOf(IllegalStateException.class);
    }

    private static ApprovalDecision get(CompletionStage<ApprovalDecision> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
}
