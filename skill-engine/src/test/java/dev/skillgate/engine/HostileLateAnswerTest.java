package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditState;
import dev.skillgate.consent.ActivationApprovalRequest;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.RunId;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Issue 24, deliverable 1 (decision 0769), through the public API with a real node: a human's answer
 * that arrives after the approval timeout is ignored — nothing launches, nothing is trusted — and is
 * recorded in the audit log as its own {@code LATE_ANSWER} record; the log still verifies.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@org.junit.jupiter.api.Timeout(300)
@EnabledOnOs(OS.LINUX)
class HostileLateAnswerTest {
    private static final AgentContext CONTEXT = HostileFixture.EXAMPLE_AGENT;

    private HostileFixture fx;
    private Path skills;
    private Path workspace;

    @BeforeAll
    void setUp() throws IOException {
        fx = HostileFixture.create("skillgate-engine-late");
        workspace = fx.workspace();
        skills = fx.skillRoot("skills", "hello-world", "release-notes");
    }

    @AfterAll
    void tearDown() throws IOException {
        fx.close();
    }

    /** Blocks inside request() for {@code block} (ignoring interrupts, as a careless host does), then approves. */
    private static final class BlockingChannel implements ApprovalChannel {
        private final Duration block;
        final AtomicReference<ApprovalRequest> asked = new AtomicReference<>();
        final AtomicReference<ActivationApprovalRequest> askedActivation = new AtomicReference<>();

        BlockingChannel(Duration block) {
            this.block = block;
        }

        private void sleep() {
            long end = System.nanoTime() + block.toNanos();
            for (long left; (left = end - System.nanoTime()) > 0; ) {
                try {
                    TimeUnit.NANOSECONDS.sleep(left);
                } catch (InterruptedException e) {
                    // ignored: the host answers anyway
                }
            }
        }

        @Override
        public CompletionStage<ApprovalDecision> request(ApprovalRequest request) {
            asked.set(request);
            sleep();
            return CompletableFuture.completedFuture(request.approve());
        }

        @Override
        public CompletionStage<ApprovalDecision> requestActivation(ActivationApprovalRequest request) {
            askedActivation.set(request);
            sleep();
            return CompletableFuture.completedFuture(request.approve());
        }
    }

    private static List<AuditEvent> events(SkillGateAdmin admin) throws IOException {
        return HostileFixture.events(admin);
    }

    private static Optional<AuditEvent.LateAnswer> awaitLate(SkillGateAdmin admin) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            Optional<AuditEvent.LateAnswer> late = events(admin).stream()
                    .filter(AuditEvent.LateAnswer.class::isInstance)
                    .map(AuditEvent.LateAnswer.class::cast)
                    .findFirst();
            if (late.isPresent()) {
                return late;
            }
            Thread.sleep(50);
        }
        return Optional.empty();
    }

    private static void assertVerifies(Path data) {
        try (AuditLog log = AuditLog.openReadOnly(SkillGateAdmin.auditDirectory(data))) {
            assertThat(log.awaitReady(Duration.ofSeconds(30)).state()).isEqualTo(AuditState.OK);
        }
    }

    @Test
    void anApprovalThreeTimesTheTimeoutLateIsIgnoredAndRecordedAsLate() throws Exception {
        Duration timeout = Duration.ofSeconds(1);
        BlockingChannel blocking = new BlockingChannel(timeout.multipliedBy(3));
        Path data = fx.data();
        RunId run = RunId.random();
        try (SkillGateAdmin admin = SkillGateAdmin.open(data)) {
            ExecutionEnvelope env;
            try (SkillGate gate = SkillGate.builder()
                    .admin(admin)
                    .skillRoot(skills)
                    .nodeRuntime(Support.runtime())
                    .approvalChannel(blocking)
                    .approvalTimeout(timeout)
                    .build()) {
                env = gate.execute(
                        ExecutionRequest.of(run, AgentId.of("a"), "hello-world", "{\"name\":\"late\"}", workspace));
                assertThat(env.status()).isEqualTo(ExecutionStatus.REFUSED);
                assertThat(env.errorCodes()).containsExactly(ErrorCode.CONSENT_TIMEOUT);
                AuditEvent.LateAnswer late = awaitLate(admin)
                        .orElseThrow(() -> new AssertionError("no LATE_ANSWER record in " + eventsQuietly(admin)));
                ApprovalRequest shown = blocking.asked.get();
                assertThat(late.request()).isEqualTo(AuditEvent.LateAnswer.Request.EXECUTION);
                assertThat(late.id()).isEqualTo(shown.proposal().toString());
                assertThat(late.run()).contains(run);
                assertThat(late.agent()).isEqualTo(AgentId.of("a"));
                assertThat(late.skill().value()).isEqualTo("hello-world");
                assertThat(late.revision()).isEqualTo(shown.artifact().revision());
                assertThat(late.approved()).isTrue();
                assertThat(late.afterMillis()).isGreaterThanOrEqualTo(timeout.toMillis() * 3 - 50);
            }
            // Nothing was consumed, launched or settled on the late approval; it is recorded exactly once.
            List<AuditEvent> all = events(admin);
            assertThat(all).noneMatch(e -> e instanceof AuditEvent.Consumed || e instanceof AuditEvent.Settled);
            assertThat(all).filteredOn(AuditEvent.LateAnswer.class::isInstance).hasSize(1);
        }
        assertVerifies(data);
    }

    @Test
    void aLateActivationApprovalTrustsNothingAndIsRecordedAsLate() throws Exception {
        Duration timeout = Duration.ofSeconds(1);
        BlockingChannel blocking = new BlockingChannel(timeout.multipliedBy(3));
        Path data = fx.data();
        try (SkillGateAdmin admin = SkillGateAdmin.open(data)) {
            try (SkillGate gate = SkillGate.builder()
                    .admin(admin)
                    .skillRoot(skills)
                    .nodeRuntime(Support.runtime())
                    .approvalChannel(blocking)
                    .approvalTimeout(timeout)
                    .build()) {
                Activation a = gate.activate(AgentId.of("example-agent-1.5"), "release-notes", CONTEXT);
                assertThat(a)
                        .isInstanceOfSatisfying(
                                Activation.Refused.class,
                                r -> assertThat(r.reasons().stream().map(Diagnostic::code))
                                        .containsExactly(ErrorCode.CONSENT_TIMEOUT));
                AuditEvent.LateAnswer late = awaitLate(admin).orElseThrow();
                assertThat(late.request()).isEqualTo(AuditEvent.LateAnswer.Request.ACTIVATION);
                assertThat(late.id())
                        .isEqualTo(blocking.askedActivation.get().id().toString());
                assertThat(late.run()).isEmpty();
                assertThat(late.approved()).isTrue();
            }
            assertThat(events(admin)).noneMatch(AuditEvent.Approved.class::isInstance);
            assertThat(admin.trust().list()).isEmpty();
        }
        assertVerifies(data);
    }

    @Test
    void anAnswerInTimeIsNotLate() throws Exception {
        Path data = fx.data();
        try (SkillGateAdmin admin = SkillGateAdmin.open(data)) {
            try (SkillGate gate = SkillGate.builder()
                    .admin(admin)
                    .skillRoot(skills)
                    .nodeRuntime(Support.runtime())
                    .approvalChannel(new BlockingChannel(Duration.ofMillis(50)))
                    .approvalTimeout(Duration.ofSeconds(30))
                    .build()) {
                ExecutionEnvelope env = gate.execute(ExecutionRequest.of(
                        RunId.random(), AgentId.of("a"), "hello-world", "{\"name\":\"on time\"}", workspace));
                assertThat(env.status()).isEqualTo(ExecutionStatus.SUCCEEDED);
            }
            List<AuditEvent> all = events(admin);
            assertThat(all).anyMatch(AuditEvent.Consumed.class::isInstance);
            assertThat(all).noneMatch(AuditEvent.LateAnswer.class::isInstance);
        }
        assertVerifies(data);
    }

    private static String eventsQuietly(SkillGateAdmin admin) {
        try {
            return events(admin).toString();
        } catch (IOException e) {
            return e.toString();
        }
    }
}
