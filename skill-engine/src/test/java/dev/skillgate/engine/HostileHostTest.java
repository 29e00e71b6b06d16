package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.consent.ActivationApprovalRequest;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.engine.HostAgent.HoldingUi;
import dev.skillgate.engine.HostAgent.Shown;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.InputType;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SemVer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Issue 24 through the public API with a real node: consent holds under a buggy host (a UI that
 * answers the wrong request, blocks, throws) and a pushy agent.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@org.junit.jupiter.api.Timeout(300)
@EnabledOnOs(OS.LINUX)
class HostileHostTest {
    private HostileFixture fx;
    private Path base;
    private Path skills;
    private Path workspace;

    @BeforeAll
    void setUp() throws IOException {
        fx = HostileFixture.create("skillgate-engine-hostile");
        base = fx.base();
        workspace = fx.workspace();
        skills = fx.skillRoot("skills", "hello-world", "word-stats", "release-notes");
    }

    private static final AgentContext CONTEXT = HostileFixture.EXAMPLE_AGENT;

    private SkillGate.Builder builder(SkillGateAdmin admin, ApprovalChannel channel) {
        return SkillGate.builder()
                .admin(admin)
                .skillRoot(skills)
                .nodeRuntime(Support.runtime())
                .approvalChannel(channel);
    }

    private ExecutionRequest hello(String name) {
        return ExecutionRequest.of(
                RunId.random(), AgentId.of("a"), "hello-world", "{\"name\":\"" + name + "\"}", workspace);
    }

    /** A host channel whose request() blocks the calling thread, then approves. */
    private static final class BlockingChannel implements ApprovalChannel {
        private final Duration block;
        final AtomicInteger calls = new AtomicInteger();
        final AtomicInteger interrupted = new AtomicInteger();

        BlockingChannel(Duration block) {
            this.block = block;
        }

        private void sleep() {
            calls.incrementAndGet();
            try {
                Thread.sleep(block.toMillis());
            } catch (InterruptedException e) {
                interrupted.incrementAndGet();
                // A careless host ignores the interrupt and answers anyway.
            }
        }

        @Override
        public CompletionStage<ApprovalDecision> request(ApprovalRequest request) {
            sleep();
            return CompletableFuture.completedFuture(request.approve());
        }

        @Override
        public CompletionStage<ApprovalDecision> requestActivation(ActivationApprovalRequest request) {
            sleep();
            return CompletableFuture.completedFuture(request.approve());
        }
    }

    /** Finding 1: a channel that blocks inside request() for three times the timeout launches nothing. */
    @Test
    void aChannelThatBlocksInRequestForThreeTimesTheTimeoutIsATimeout() throws Exception {
        Duration timeout = Duration.ofSeconds(1);
        BlockingChannel blocking = new BlockingChannel(timeout.multipliedBy(3));
        try (SkillGateAdmin admin = fx.admin();
                SkillGate gate =
                        builder(admin, blocking).approvalTimeout(timeout).build()) {
            ExecutionEnvelope env = gate.execute(hello("late"));
            assertThat(env.status()).isEqualTo(ExecutionStatus.REFUSED);
            assertThat(env.errorCodes()).containsExactly(ErrorCode.CONSENT_TIMEOUT);
            assertThat(blocking.calls.get()).isEqualTo(1);
            // The blocked call finishes (and its late approval is ignored) without launching anything.
            Thread.sleep(timeout.multipliedBy(3).toMillis());
            assertThat(events(admin)).noneMatch(e -> e instanceof AuditEvent.Consumed);
        }
    }

    /** Finding 1: an activation has the same bound; no APPROVE record is committed for a late answer. */
    @Test
    void anActivationWhoseChannelBlocksPastTheTimeoutIsRefusedAndNotRecorded() throws Exception {
        Duration timeout = Duration.ofSeconds(1);
        BlockingChannel blocking = new BlockingChannel(timeout.multipliedBy(3));
        try (SkillGateAdmin admin = fx.admin();
                SkillGate gate =
                        builder(admin, blocking).approvalTimeout(timeout).build()) {
            Activation a = gate.activate(AgentId.of("example-agent-1.5"), "release-notes", CONTEXT);
            assertThat(a)
                    .isInstanceOfSatisfying(
                            Activation.Refused.class,
                            r -> assertThat(r.reasons().stream().map(Diagnostic::code))
                                    .containsExactly(ErrorCode.CONSENT_TIMEOUT));
            Thread.sleep(timeout.multipliedBy(3).toMillis());
            assertThat(events(admin)).noneMatch(e -> e instanceof AuditEvent.Approved);
        }
    }

    /** Finding 2: a listener that throws an Error on every event changes no outcome, cleanup or record. */
    @Test
    void aListenerThatThrowsErrorsChangesNoOutcomeCleanupOrRecord() throws Exception {
        AtomicInteger thrown = new AtomicInteger();
        ExecutionListener hostile = event -> {
            thrown.incrementAndGet();
            throw new AssertionError("the host's listener is broken (" + event.kind() + ")");
        };
        try (SkillGateAdmin admin = fx.admin();
                SkillGate gate = builder(admin, r -> CompletableFuture.completedFuture(r.approve()))
                        .listener(hostile)
                        .build()) {
            PendingExecution p = gate.executeAsync(hello("Ada"));
            ExecutionEnvelope env = p.await();
            ExecutionEnvelope settled = p.settlement().toCompletableFuture().get(60, TimeUnit.SECONDS);
            assertThat(env.status()).as(env.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
            assertThat(settled.cleanup().status()).isEqualTo(CleanupStatus.PROVEN);
            assertThat(env.output().orElseThrow()).contains("Hello, Ada!");
            assertThat(gate.unresolved()).isEmpty();
            assertThat(thrown.get()).as("the listener was called and threw").isGreaterThan(3);
            assertThat(events(admin))
                    .filteredOn(e -> e instanceof AuditEvent.Settled)
                    .singleElement()
                    .satisfies(e -> {
                        AuditEvent.Settled s = (AuditEvent.Settled) e;
                        assertThat(s.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
                        assertThat(s.cleanup()).isEqualTo(CleanupStatus.PROVEN);
                    });
        }
    }

    /** Finding 3: close() while approvals are pending ends each as ENGINE_CLOSED and counts them exactly. */
    @Test
    void closeWhileApprovalsArePendingEndsEachAsEngineClosedAndCountsThem() throws Exception {
        HoldingUi ui = new HoldingUi();
        try (SkillGateAdmin admin = fx.admin()) {
            SkillGate gate = builder(admin, ui).maxPendingApprovalsPerAgent(8).build();
            List<PendingExecution> pending = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                pending.add(gate.executeAsync(hello("c" + i)));
            }
            ui.awaitShown(5);
            DrainReport report = gate.close(Duration.ofSeconds(60));
            assertThat(report.stopped()).isEqualTo(5);
            assertThat(report.settled()).isEqualTo(5);
            assertThat(report.unsettled()).isEmpty();
            for (PendingExecution p : pending) {
                ExecutionEnvelope env = p.await();
                assertThat(env.status()).isEqualTo(ExecutionStatus.REFUSED);
                assertThat(env.errorCodes()).containsExactly(ErrorCode.ENGINE_CLOSED);
            }
            // The host answers afterwards: nothing launches.
            for (Shown s : ui.awaitShown(5)) {
                s.answer().complete(s.approval());
            }
            assertThat(events(admin)).noneMatch(e -> e instanceof AuditEvent.Consumed);
        }
    }

    /** Finding 3: an activation waiting for approval when the gate closes is a refusal value. */
    @Test
    void anActivationWaitingWhenTheGateClosesIsRefusedEngineClosed() throws Exception {
        for (boolean hostAdmin : new boolean[] {true, false}) {
            HoldingUi ui = new HoldingUi();
            Path data = fx.data();
            SkillGateAdmin admin = hostAdmin ? SkillGateAdmin.open(data) : null;
            SkillGate gate = (hostAdmin
                            ? SkillGate.builder().admin(admin)
                            : SkillGate.builder().dataDirectory(data))
                    .skillRoot(skills)
                    .approvalChannel(ui)
                    .build();
            CompletableFuture<Activation> activation = CompletableFuture.supplyAsync(
                    () -> gate.activate(AgentId.of("example-agent-1.5"), "release-notes", CONTEXT));
            List<Shown> shown = ui.awaitShown(1);
            gate.close(Duration.ofSeconds(30));
            Activation a = activation.get(60, TimeUnit.SECONDS);
            assertThat(a)
                    .as("host-held admin: " + hostAdmin)
                    .isInstanceOfSatisfying(
                            Activation.Refused.class,
                            r -> assertThat(r.reasons().stream().map(Diagnostic::code))
                                    .containsExactly(ErrorCode.ENGINE_CLOSED));
            shown.get(0).answer().complete(shown.get(0).approval());
            if (admin != null) {
                assertThat(events(admin)).noneMatch(e -> e instanceof AuditEvent.Approved);
                admin.close();
            }
        }
    }

    @AfterAll
    void noSurvivors() throws IOException {
        fx.close();
    }

    private static List<AuditEvent> events(SkillGateAdmin admin) throws IOException {
        return HostileFixture.events(admin);
    }

    /** Finding 4: a host UI that completes the wrong pending request approves nothing. */
    @Test
    void anAnswerForAnotherRequestIsRefusedAndNothingLaunches() throws Exception {
        HoldingUi ui = new HoldingUi();
        try (SkillGateAdmin admin = fx.admin();
                SkillGate gate = SkillGate.builder()
                        .admin(admin)
                        .skillRoot(skills)
                        .nodeRuntime(Support.runtime())
                        .approvalChannel(ui)
                        .build()) {
            PendingExecution a = gate.executeAsync(
                    ExecutionRequest.of(RunId.random(), AgentId.of("a"), "hello-world", "{\"name\":\"A\"}", workspace));
            List<Shown> first = ui.awaitShown(1);
            PendingExecution b = gate.executeAsync(ExecutionRequest.of(
                    RunId.random(), AgentId.of("b"), "word-stats", "{\"text\":\"a b\"}", workspace));
            List<Shown> both = ui.awaitShown(2);
            // The UI swaps its answers: each request gets the other one's approval.
            both.get(0).answer().complete(both.get(1).approval());
            both.get(1).answer().complete(first.get(0).approval());
            ExecutionEnvelope ea = a.await();
            ExecutionEnvelope eb = b.await();
            assertThat(ea.status()).isEqualTo(ExecutionStatus.REFUSED);
            assertThat(ea.errorCodes()).containsExactly(ErrorCode.BINDING_MISMATCH);
            assertThat(eb.status()).isEqualTo(ExecutionStatus.REFUSED);
            assertThat(eb.errorCodes()).containsExactly(ErrorCode.BINDING_MISMATCH);
            assertThat(events(admin)).noneMatch(e -> e instanceof AuditEvent.Consumed);
        }
    }

    /** Finding 5: fresh runs do not reset what one agent can ask; another agent is still asked. */
    @Test
    void aPushyAgentOpeningFreshRunsIsBoundedPerAgentAcrossRuns() throws Exception {
        HoldingUi ui = new HoldingUi();
        try (SkillGateAdmin admin = fx.admin();
                SkillGate gate =
                        builder(admin, ui).maxPendingApprovalsPerAgent(2).build()) {
            List<PendingExecution> pushy =
                    new HostAgent.PushyAgent(gate, AgentId.of("pushy"), workspace).flood("hello-world", 6);
            ui.awaitShown(2);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (pushy.stream()
                                    .filter(p ->
                                            p.outcome().toCompletableFuture().isDone())
                                    .count()
                            < 4
                    && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            PendingExecution polite = gate.executeAsync(ExecutionRequest.of(
                    RunId.random(), AgentId.of("polite"), "hello-world", "{\"name\":\"P\"}", workspace));
            List<Shown> shown = ui.awaitShown(3);
            assertThat(shown).hasSize(3);
            // Which four were refused depends on scheduling; count them all.
            long limited = 0;
            for (PendingExecution p : pushy) {
                if (p.outcome().toCompletableFuture().isDone()) {
                    ExecutionEnvelope env = p.await();
                    assertThat(env.errorCodes()).containsExactly(ErrorCode.CONSENT_DEMAND_LIMIT);
                    limited++;
                }
            }
            assertThat(limited).isEqualTo(4);
            for (Shown s : shown) {
                s.answer().complete(s.approval());
            }
            assertThat(polite.await().status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        }
    }

    /** Finding 5: the per-minute bound holds across fresh runs. */
    @Test
    void anAgentThatAsksTooOftenPerMinuteIsRefusedBeforeTheHumanIsAsked() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        ApprovalChannel denying = r -> {
            asked.incrementAndGet();
            return CompletableFuture.completedFuture(r.deny("no"));
        };
        try (SkillGateAdmin admin = fx.admin();
                SkillGate gate = builder(admin, denying)
                        .maxApprovalRequestsPerAgentPerMinute(3)
                        .build()) {
            HostAgent.PushyAgent agent = new HostAgent.PushyAgent(gate, AgentId.of("pushy"), workspace);
            List<ErrorCode> codes = new ArrayList<>();
            for (PendingExecution p : agent.flood("hello-world", 1)) {
                codes.addAll(p.await().errorCodes());
            }
            for (int i = 0; i < 4; i++) {
                for (PendingExecution p : agent.flood("hello-world", 1)) {
                    codes.addAll(p.await().errorCodes());
                }
            }
            assertThat(codes)
                    .containsExactly(
                            ErrorCode.CONSENT_DENIED,
                            ErrorCode.CONSENT_DENIED,
                            ErrorCode.CONSENT_DENIED,
                            ErrorCode.CONSENT_DEMAND_LIMIT,
                            ErrorCode.CONSENT_DEMAND_LIMIT);
            assertThat(asked.get()).isEqualTo(3);
        }
    }

    /** Finding 5: more than 256 fresh runs never cancel another run's pending approval. */
    @Test
    void freshRunsBeyondTheRunCapNeverCancelAnotherRunsPendingApproval() throws Exception {
        HoldingUi held = new HoldingUi();
        ApprovalChannel channel = r -> r.agent().equals(AgentId.of("held"))
                ? held.request(r)
                : CompletableFuture.completedFuture(r.deny("no"));
        try (SkillGateAdmin admin = fx.admin();
                SkillGate gate = builder(admin, channel)
                        .maxApprovalRequestsPerAgentPerMinute(1000)
                        .maxPendingApprovalsPerAgent(16)
                        .build()) {
            PendingExecution waiting = gate.executeAsync(ExecutionRequest.of(
                    RunId.random(), AgentId.of("held"), "hello-world", "{\"name\":\"H\"}", workspace));
            held.awaitShown(1);
            HostAgent.PushyAgent pushy = new HostAgent.PushyAgent(gate, AgentId.of("pushy"), workspace);
            for (int round = 0; round < 30; round++) {
                for (PendingExecution p : pushy.flood("hello-world", 10)) {
                    assertThat(p.await().errorCodes()).containsExactly(ErrorCode.CONSENT_DENIED);
                }
            }
            assertThat(waiting.outcome().toCompletableFuture().isDone())
                    .as("300 fresh runs cancelled the held run's pending approval")
                    .isFalse();
            Shown s = held.awaitShown(1).get(0);
            s.answer().complete(s.approval());
            assertThat(waiting.await().status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        }
    }

    /** Finding 6: the host's agent and context are authoritative. */
    @Test
    void theHostsAgentAndContextAreAuthoritative() throws Exception {
        AgentContext poor = AgentContext.of(
                "example-agent", SemVer.parse("1.5.0"), Set.of(InputType.TEXT), Set.of(), PermissionMode.READ_ONLY);
        try (SkillGateAdmin admin = fx.admin();
                SkillGate gate = builder(admin, r -> CompletableFuture.completedFuture(r.approve()))
                        .agent(AgentId.of("vouched"))
                        .agentContext(poor)
                        .build()) {
            ExecutionEnvelope other = gate.execute(ExecutionRequest.of(
                    RunId.random(), AgentId.of("someone-else"), "hello-world", "{\"name\":\"X\"}", workspace));
            assertThat(other.errorCodes()).containsExactly(ErrorCode.AGENT_NOT_VOUCHED);
            ExecutionEnvelope richer = gate.execute(ExecutionRequest.of(
                            RunId.random(), AgentId.of("vouched"), "hello-world", "{\"name\":\"X\"}", workspace)
                    .withAgentContext(CONTEXT));
            assertThat(richer.errorCodes()).containsExactly(ErrorCode.AGENT_NOT_VOUCHED);
            assertThat(gate.activate(AgentId.of("someone-else"), "release-notes", poor))
                    .isInstanceOfSatisfying(
                            Activation.Refused.class,
                            r -> assertThat(r.reasons().stream().map(Diagnostic::code))
                                    .containsExactly(ErrorCode.AGENT_NOT_VOUCHED));
            assertThat(gate.activate(AgentId.of("vouched"), "release-notes", CONTEXT))
                    .isInstanceOfSatisfying(
                            Activation.Refused.class,
                            r -> assertThat(r.reasons().stream().map(Diagnostic::code))
                                    .containsExactly(ErrorCode.AGENT_NOT_VOUCHED));
            ExecutionEnvelope own = gate.execute(ExecutionRequest.of(
                    RunId.random(), AgentId.of("vouched"), "hello-world", "{\"name\":\"V\"}", workspace));
            assertThat(own.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
            assertThat(events(admin))
                    .filteredOn(e -> e instanceof AuditEvent.Consumed)
                    .allSatisfy(
                            e -> assertThat(((AuditEvent.Consumed) e).agent()).isEqualTo(AgentId.of("vouched")));
        }
        try (SkillGateAdmin admin = fx.admin();
                SkillGate gate = builder(admin, r -> CompletableFuture.completedFuture(r.approve()))
                        .agentContext(poor)
                        .allowRequestAgentContexts()
                        .build()) {
            ExecutionEnvelope richer = gate.execute(
                    ExecutionRequest.of(RunId.random(), AgentId.of("any"), "hello-world", "{\"name\":\"X\"}", workspace)
                            .withAgentContext(CONTEXT));
            assertThat(richer.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        }
    }

    /** Finding 7: a confusable directory is flagged, and the requests show where the skill lives. */
    @Test
    void aConfusableDirectoryIsFlaggedAndTheRequestsShowTheLocation() throws Exception {
        Path confusing = Files.createDirectories(base.resolve("confusing-root"));
        String cyrillicE = "\u0435";
        Path hello = Files.createDirectories(confusing.resolve("h" + cyrillicE + "llo-world"));
        Support.copySkill(Support.examples().resolve("hello-world"), hello.getParent());
        Files.move(confusing.resolve("hello-world"), hello, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        HoldingUi ui = new HoldingUi();
        try (SkillGateAdmin admin = fx.admin();
                SkillGate gate = SkillGate.builder()
                        .admin(admin)
                        .skillRoot(confusing)
                        .nodeRuntime(Support.runtime())
                        .approvalChannel(ui)
                        .build()) {
            PendingExecution p = gate.executeAsync(
                    ExecutionRequest.of(RunId.random(), AgentId.of("a"), "hello-world", "{\"name\":\"C\"}", workspace));
            ApprovalRequest shown = (ApprovalRequest) ui.awaitShown(1).get(0).request();
            assertThat(shown.location()).hasValueSatisfying(l -> {
                assertThat(l.root()).isEqualTo(confusing.toAbsolutePath().normalize());
                assertThat(l.directory().getFileName().toString()).isEqualTo("h" + cyrillicE + "llo-world");
                assertThat(l.flagged()).isTrue();
                assertThat(l.warnings())
                        .anyMatch(w -> w.contains("hU+0435llo-world") && w.contains("differs from"))
                        .anyMatch(w -> w.contains("mixes scripts (CYRILLIC, LATIN)"));
            });
            ui.awaitShown(1).get(0).answer().complete(shown.deny("not this one"));
            assertThat(p.await().errorCodes()).containsExactly(ErrorCode.CONSENT_DENIED);
        }
    }
}
