package dev.skillgate.consent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.AgentRequirement;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InputType;
import dev.skillgate.model.NetworkDestination;
import dev.skillgate.model.OriginType;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SideEffectClass;
import dev.skillgate.model.SkillContract;
import dev.skillgate.model.ToolClass;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** First-use (activation) approval requests: shown in full, escaped, fail closed, scripted. */
class ActivationApprovalTest {
    private static final SkillContract CONTRACT = new SkillContract(
            new SkillContract.Identity("acme/pdf-fill", SemVer.parse("1.2.0")),
            new SkillContract.Origin(OriginType.LOCAL_UNSIGNED, Optional.of("Acme Corp")),
            List.of(new AgentRequirement("codex", SemVer.parse("0.130.0"), SemVer.parse("0.200.0"))),
            Set.of(InputType.TEXT, InputType.FILE),
            Set.of(ToolClass.FILESYSTEM),
            List.of(),
            PermissionMode.WORKSPACE_WRITE,
            List.of(NetworkDestination.parse("https://api.example.com")),
            SideEffectClass.WORKSPACE_WRITE);

    private static ActivationApprovalRequest request(Optional<SkillContract> contract) {
        return new ActivationApprovalRequest(
                Fixtures.SKILL,
                AgentId.of("codex-0.150"),
                "codex",
                "0.150.0",
                Fixtures.REVISION,
                Fixtures.artifact(Fixtures.REVISION).files(),
                contract,
                contract.map(c -> Sha256Digest.hash(new byte[] {7})),
                () -> "---\nname: pdf-fill\n---\nDo \u001b[2J things\n",
                Instant.parse("2026-12-01T00:00:00Z"));
    }

    @Test
    void theConsoleShowsEveryFieldOfTheContractEscapedAndApprovesOnlyOnYes() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ConsoleApprovalChannel console = new ConsoleApprovalChannel(
                new PrintStream(bytes, true, StandardCharsets.UTF_8), new StringReader("s\nyes\n"));
        ApprovalDecision d = console.requestActivation(request(Optional.of(CONTRACT)))
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        assertThat(d.isApproval()).isTrue();
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertThat(text)
                .contains("first-use approval of a prompt skill")
                .contains(ActivationApprovalRequest.PROMPT_WARNING)
                .contains("revision:     " + Fixtures.REVISION)
                .contains("codex-0.150  (codex 0.150.0)")
                .contains("acme/pdf-fill 1.2.0")
                .contains("local-unsigned, publisher Acme Corp")
                .contains("agent range:  codex 0.130.0 to 0.200.0")
                .contains("inputs:       file, text")
                .contains("tools:        filesystem")
                .contains("credentials:  none")
                .contains("permission:   workspace-write")
                .contains("destinations: https://api.example.com")
                .contains("side effects: workspace-write")
                .contains("SKILL.md")
                .contains("  | Do \\u001B[2J things")
                .doesNotContain("\u001b");
        console.close();
    }

    @Test
    void aDialectContractIsNamedOnTheConsoleAndABuiltInOneIsNot() throws Exception {
        ActivationApprovalRequest builtIn = request(Optional.of(CONTRACT));
        assertThat(builtIn.contractRecordType()).contains(SkillContract.RECORD_TYPE);
        assertThat(builtIn.contractFromDialect()).isFalse();
        ActivationApprovalRequest dialect = new ActivationApprovalRequest(
                builtIn.skill(),
                builtIn.agent(),
                builtIn.agentKind(),
                builtIn.agentVersion(),
                builtIn.revision(),
                builtIn.files(),
                builtIn.contract(),
                builtIn.contractDigest(),
                Optional.of("acme-permissions/1"),
                builtIn.instructions(),
                builtIn.createdAt());
        assertThat(dialect.contractFromDialect()).isTrue();
        for (ActivationApprovalRequest r : List.of(builtIn, dialect)) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            ConsoleApprovalChannel console = new ConsoleApprovalChannel(
                    new PrintStream(bytes, true, StandardCharsets.UTF_8), new StringReader("no\n"));
            console.requestActivation(r).toCompletableFuture().get(10, TimeUnit.SECONDS);
            String text = bytes.toString(StandardCharsets.UTF_8);
            if (r == dialect) {
                assertThat(text).contains("dialect:      record type acme-permissions/1, mapped by host code");
            } else {
                assertThat(text).doesNotContain("dialect:");
            }
            console.close();
        }
    }

    @Test
    void aSkillWithoutAContractSaysSoAndAnythingButYesDenies() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ConsoleApprovalChannel console = new ConsoleApprovalChannel(
                new PrintStream(bytes, true, StandardCharsets.UTF_8), new StringReader("no\n"));
        ApprovalDecision d = console.requestActivation(request(Optional.empty()))
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        assertThat(d)
                .isInstanceOfSatisfying(
                        ApprovalDecision.Denied.class, x -> assertThat(x.code()).isEqualTo(ErrorCode.CONSENT_DENIED));
        assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("contract:     none");
        console.close();
    }

    @Test
    void aChannelThatCannotShowActivationsDeniesAndFailClosedForwardsAndTimesOut() throws Exception {
        ApprovalChannel executionsOnly = r -> CompletableFuture.completedFuture(r.approve());
        ApprovalDecision d = executionsOnly
                .requestActivation(request(Optional.empty()))
                .toCompletableFuture()
                .get();
        assertThat(d)
                .isInstanceOfSatisfying(
                        ApprovalDecision.Denied.class,
                        x -> assertThat(x.code()).isEqualTo(ErrorCode.CONSENT_CHANNEL_UNAVAILABLE));

        ScriptedApprovalChannel holding = ScriptedApprovalChannel.holdingWhenEmpty();
        ApprovalDecision timedOut = ApprovalChannel.failClosed(holding, Duration.ofMillis(50))
                .requestActivation(request(Optional.empty()))
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
        assertThat(timedOut)
                .isInstanceOfSatisfying(
                        ApprovalDecision.Denied.class, x -> assertThat(x.code()).isEqualTo(ErrorCode.CONSENT_TIMEOUT));
        assertThat(holding.activationRequests()).hasSize(1);
        holding.close();

        ApprovalChannel throwing = new ApprovalChannel() {
            @Override
            public java.util.concurrent.CompletionStage<ApprovalDecision> request(ApprovalRequest r) {
                throw new AssertionError();
            }

            @Override
            public java.util.concurrent.CompletionStage<ApprovalDecision> requestActivation(
                    ActivationApprovalRequest r) {
                throw new IllegalStateException("ui crashed");
            }
        };
        assertThat(ApprovalChannel.failClosed(throwing, Duration.ofSeconds(1))
                        .requestActivation(request(Optional.empty()))
                        .toCompletableFuture()
                        .get(10, TimeUnit.SECONDS)
                        .isApproval())
                .isFalse();
    }

    @Test
    void theScriptedChannelAnswersActivationsFromTheSameQueue() throws Exception {
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        assertThat(channel.requestActivation(request(Optional.empty()))
                        .toCompletableFuture()
                        .get()
                        .isApproval())
                .isTrue();
        assertThat(channel.requestActivation(request(Optional.empty()))
                        .toCompletableFuture()
                        .get()
                        .isApproval())
                .isFalse();
        assertThat(channel.activationRequests()).hasSize(2);
        assertThat(channel.requests()).isEmpty();
    }

    @Test
    void aContractAndItsDigestGoTogether() {
        assertThatThrownBy(() -> new ActivationApprovalRequest(
                        Fixtures.SKILL,
                        AgentId.of("a"),
                        "a",
                        "1.0.0",
                        Fixtures.REVISION,
                        Fixtures.artifact(Fixtures.REVISION).files(),
                        Optional.of(CONTRACT),
                        Optional.empty(),
                        () -> "",
                        Instant.EPOCH))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ActivationApprovalRequest(
                        Fixtures.SKILL,
                        AgentId.of("a"),
                        "a",
                        "1.0.0",
                        Fixtures.REVISION,
                        Fixtures.artifact(Fixtures.REVISION).files(),
                        Optional.empty(),
                        Optional.empty(),
                        Optional.of("acme-permissions/1"),
                        () -> "",
                        Instant.EPOCH))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
