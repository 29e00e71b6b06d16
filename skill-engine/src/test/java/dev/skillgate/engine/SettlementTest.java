package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.ScriptedApprovalChannel;
import dev.skillgate.fixtures.NodeFixture;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.RunId;
import dev.skillgate.runner.ProgressEvent;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Settlement (SPEC §12, seed 003): a caller's deadline or cancel returns early while a
 * non-cooperative script is still being cleaned up; {@code close()} drains; a late settlement never
 * rewrites the delivered outcome; nothing survives.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@org.junit.jupiter.api.Timeout(120)
@EnabledOnOs(OS.LINUX)
class SettlementTest extends LiveEngineTest {
    private static final AgentId AGENT = AgentId.of("agent-1");

    @BeforeEach
    void fresh() throws IOException {
        Bundles.fixtureSkill(skills, "stubborn", NodeFixture.IGNORE_SIGTERM, 30_000);
        Bundles.fixtureSkill(skills, "writer", NodeFixture.CHDIR_WRITE_WORKSPACE, 10_000);
        Bundles.fixtureSkill(skills, "sleeper", NodeFixture.SLEEP_PAST_DEADLINE, 30_000);
        // Says on stderr once its SIGTERM handler is in place, so a test can cancel after that point.
        Bundles.skill(
                skills,
                "stubborn-ready",
                "stubborn-ready.mjs",
                ("process.on('SIGTERM', () => {});\n"
                                + "process.stderr.write('ready\\n');\n"
                                + "setInterval(() => {}, 1000);\n")
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8),
                Bundles.OPEN_OBJECT,
                Bundles.OPEN_OBJECT,
                30_000,
                65_536);
    }

    private SkillGate gate(ScriptedApprovalChannel channel, ExecutionListener listener) {
        return SkillGate.builder()
                .dataDirectory(data)
                .skillRoot(skills)
                .nodeRuntime(Support.runtime())
                .approvalChannel(channel)
                .listener(listener)
                .build();
    }

    private static ExecutionListener onStarted(CountDownLatch started) {
        return event -> {
            if (event.progress().orElse(null) instanceof ProgressEvent.Started) {
                started.countDown();
            }
        };
    }

    @Test
    void aCallerDeadlineReturnsEarlyAndCloseWaitsForTheCleanupWithoutRewritingTheOutcome() throws Exception {
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        CountDownLatch started = new CountDownLatch(1);
        SkillGate gate = gate(channel, onStarted(started));
        RunId run = RunId.random();
        PendingExecution pending = gate.executeAsync(ExecutionRequest.of(run, AGENT, "stubborn", "{}", workspace)
                .withCallerDeadline(Duration.ofMillis(1500)));
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();

        ExecutionEnvelope delivered = pending.await();
        assertThat(delivered.status()).isEqualTo(ExecutionStatus.CLEANUP_UNKNOWN);
        assertThat(delivered.errorCodes()).containsExactly(ErrorCode.EXEC_CALLER_DEADLINE, ErrorCode.CLEANUP_UNKNOWN);
        // Delivered while the SIGTERM-ignoring script was still being terminated.
        assertThat(pending.settlement().toCompletableFuture().isDone()).isFalse();
        assertThat(Support.survivors(marker)).as("still being cleaned up").isNotEmpty();
        assertThat(gate.unresolved())
                .singleElement()
                .satisfies(u -> assertThat(u.state()).isEqualTo(UnresolvedExecution.State.SETTLING));

        DrainReport report = gate.close(Duration.ofSeconds(30));
        assertThat(report.stopped()).isEqualTo(1);
        assertThat(report.settled()).isEqualTo(1);
        assertThat(report.complete()).isTrue();

        ExecutionEnvelope settled = pending.settlement().toCompletableFuture().getNow(null);
        assertThat(settled).isNotNull();
        assertThat(settled.status()).isEqualTo(ExecutionStatus.CANCELLED);
        assertThat(settled.cleanup().status()).isEqualTo(CleanupStatus.PROVEN);
        assertThat(pending.outcome().toCompletableFuture().getNow(null)).isSameAs(delivered);
        assertThat(gate.unresolved()).isEmpty();
        assertThat(Support.survivors(marker)).isEmpty();
    }

    @Test
    void cancellingAScriptThatEndsOnSigtermDeliversCancelledWithProvenCleanup() throws Exception {
        // SPEC §10/§12: CANCELLED = the caller cancelled, the tree was terminated and cleanup proven.
        // Only a non-cooperative script may be reported before it settled (decision 0363).
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        CountDownLatch started = new CountDownLatch(1);
        try (SkillGate gate = gate(channel, onStarted(started))) {
            PendingExecution pending =
                    gate.executeAsync(ExecutionRequest.of(RunId.random(), AGENT, "sleeper", "{}", workspace));
            assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
            pending.cancel();
            ExecutionEnvelope delivered = pending.await();
            assertThat(delivered.status()).as(delivered.toString()).isEqualTo(ExecutionStatus.CANCELLED);
            assertThat(delivered.errorCodes()).containsExactly(ErrorCode.EXEC_CANCELLED);
            assertThat(delivered.cleanup().status()).isEqualTo(CleanupStatus.PROVEN);
            assertThat(pending.settlement().toCompletableFuture().getNow(null)).isSameAs(delivered);
            assertThat(gate.unresolved()).isEmpty();
        }
        assertThat(Support.survivors(marker)).isEmpty();
    }

    @Test
    void cancellingAScriptThatIgnoresSigtermDeliversEarlyAndTheRunnerStillProvesCleanup() throws Exception {
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        CountDownLatch ready = new CountDownLatch(1);
        ExecutionListener onReady = event -> {
            if (event.progress().orElse(null) instanceof ProgressEvent.OutputBytes b && b.stderrBytes() > 0) {
                ready.countDown();
            }
        };
        try (SkillGate gate = gate(channel, onReady)) {
            PendingExecution pending =
                    gate.executeAsync(ExecutionRequest.of(RunId.random(), AGENT, "stubborn-ready", "{}", workspace));
            assertThat(ready.await(30, TimeUnit.SECONDS)).isTrue();
            pending.cancel();
            ExecutionEnvelope delivered = pending.await();
            assertThat(delivered.errorCodes()).containsExactly(ErrorCode.EXEC_CANCELLED, ErrorCode.CLEANUP_UNKNOWN);
            ExecutionEnvelope settled =
                    pending.settlement().toCompletableFuture().get(30, TimeUnit.SECONDS);
            assertThat(settled.status()).isEqualTo(ExecutionStatus.CANCELLED);
            assertThat(settled.cleanup().status()).isEqualTo(CleanupStatus.PROVEN);
            assertThat(pending.outcome().toCompletableFuture().getNow(null)).isSameAs(delivered);
        }
        assertThat(Support.survivors(marker)).isEmpty();
    }

    @Test
    void cancelWhileWaitingForApprovalLaunchesNothingEvenIfApprovedLater() throws Exception {
        ScriptedApprovalChannel channel = ScriptedApprovalChannel.holdingWhenEmpty();
        try (SkillGate gate = gate(channel, ExecutionListener.NONE)) {
            PendingExecution pending = gate.executeAsync(
                    ExecutionRequest.of(RunId.random(), AGENT, "writer", "{\"fileName\":\"x.txt\"}", workspace));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (channel.heldCount() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(channel.heldCount()).isEqualTo(1);
            pending.cancel();
            ExecutionEnvelope env = pending.await();
            assertThat(env.status()).isEqualTo(ExecutionStatus.REFUSED);
            assertThat(env.errorCodes()).containsExactly(ErrorCode.EXEC_ABORTED);
            channel.approveNext();
            assertThat(pending.settlement().toCompletableFuture().get(30, TimeUnit.SECONDS))
                    .isSameAs(env);
            Thread.sleep(300);
            assertThat(workspace.resolve("x.txt")).doesNotExist();
        }
        channel.close();
    }

    @Test
    void endingTheRunCancelsItsOutstandingProposalSoALateApprovalLaunchesNothing() throws Exception {
        ScriptedApprovalChannel channel = ScriptedApprovalChannel.holdingWhenEmpty();
        try (SkillGate gate = gate(channel, ExecutionListener.NONE)) {
            RunId run = RunId.random();
            PendingExecution pending = gate.executeAsync(
                    ExecutionRequest.of(run, AGENT, "writer", "{\"fileName\":\"ended.txt\"}", workspace));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (channel.heldCount() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            gate.endRun(run);
            channel.approveNext();
            ExecutionEnvelope env = pending.await();
            assertThat(env.status()).isEqualTo(ExecutionStatus.REFUSED);
            assertThat(env.errorCodes()).containsExactly(ErrorCode.CONSENT_CANCELLED);
            assertThat(workspace.resolve("ended.txt")).doesNotExist();
        }
        channel.close();
    }

    @Test
    void anUnansweredRequestEndsAtOnceWhenItIsStaledOrItsRunEnds() throws Exception {
        // SPEC §8: nobody answers; a newer proposal for the same run and skill stales the first, and
        // ending the run cancels the second — each caller gets its refusal now, not after the
        // 5-minute approval timeout (decision 0364).
        ScriptedApprovalChannel channel = ScriptedApprovalChannel.holdingWhenEmpty();
        try (SkillGate gate = gate(channel, ExecutionListener.NONE)) {
            RunId run = RunId.random();
            PendingExecution first = gate.executeAsync(
                    ExecutionRequest.of(run, AGENT, "writer", "{\"fileName\":\"first.txt\"}", workspace));
            awaitHeld(channel, 1);
            PendingExecution second = gate.executeAsync(
                    ExecutionRequest.of(run, AGENT, "writer", "{\"fileName\":\"second.txt\"}", workspace));
            ExecutionEnvelope staled = first.outcome().toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(staled.status()).isEqualTo(ExecutionStatus.REFUSED);
            assertThat(staled.errorCodes()).containsExactly(ErrorCode.CONSENT_STALE);
            awaitHeld(channel, 2);
            gate.endRun(run);
            ExecutionEnvelope cancelled = second.outcome().toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(cancelled.status()).isEqualTo(ExecutionStatus.REFUSED);
            assertThat(cancelled.errorCodes()).containsExactly(ErrorCode.CONSENT_CANCELLED);
            channel.approveNext();
            channel.approveNext();
            Thread.sleep(300);
            assertThat(workspace.resolve("first.txt")).doesNotExist();
            assertThat(workspace.resolve("second.txt")).doesNotExist();
        }
        channel.close();
    }

    private static void awaitHeld(ScriptedApprovalChannel channel, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (channel.heldCount() < count && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(channel.heldCount()).isEqualTo(count);
    }

    @Test
    void closeStopsAndDrainsInFlightExecutionsAndRefusesNewOnes() throws Exception {
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        CountDownLatch started = new CountDownLatch(1);
        SkillGate gate = gate(channel, onStarted(started));
        PendingExecution pending =
                gate.executeAsync(ExecutionRequest.of(RunId.random(), AGENT, "stubborn", "{}", workspace));
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();

        DrainReport report = gate.close(SkillGate.DEFAULT_DRAIN_WAIT);
        assertThat(report.stopped()).isEqualTo(1);
        assertThat(report.complete()).isTrue();
        assertThat(pending.await().errorCodes()).containsExactly(ErrorCode.EXEC_CANCELLED, ErrorCode.CLEANUP_UNKNOWN);
        assertThat(pending.settlement()
                        .toCompletableFuture()
                        .getNow(null)
                        .cleanup()
                        .status())
                .isEqualTo(CleanupStatus.PROVEN);

        ExecutionEnvelope after = gate.execute(
                ExecutionRequest.of(RunId.random(), AGENT, "writer", "{\"fileName\":\"y.txt\"}", workspace));
        assertThat(after.errorCodes()).containsExactly(ErrorCode.ENGINE_CLOSED);
        assertThat(workspace.resolve("y.txt")).doesNotExist();
        assertThat(Support.survivors(marker)).isEmpty();
    }
}
