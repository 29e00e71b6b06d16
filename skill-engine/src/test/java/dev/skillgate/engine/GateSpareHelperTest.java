package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.WorkflowApprovalRequest;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.RunId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Decision 0848: the gate's built-in supervisor keeps one spare helper started ahead of the next
 * launch, and {@link SkillGate#close()} retires it, so no idle helper outlives the gate. The helpers
 * are found as this JVM's children whose executable lies in the test's own data directory.
 */
@org.junit.jupiter.api.Timeout(120)
@EnabledOnOs(OS.LINUX)
class GateSpareHelperTest extends HelloWorldRootTest {
    GateSpareHelperTest() {
        super("skillgate-engine-spare");
    }

    private static final class Approve implements ApprovalChannel {
        @Override
        public CompletionStage<ApprovalDecision> request(ApprovalRequest request) {
            return CompletableFuture.completedFuture(request.approve());
        }

        @Override
        public CompletionStage<ApprovalDecision> requestWorkflow(WorkflowApprovalRequest request) {
            return CompletableFuture.completedFuture(ApprovalDecision.deny("no workflows here"));
        }
    }

    /** This JVM's live children that execute a file below {@code data}. */
    private static List<ProcessHandle> helpersOf(Path data) {
        String prefix = data.toAbsolutePath().toString() + "/";
        return ProcessHandle.current()
                .children()
                .filter(ProcessHandle::isAlive)
                .filter(p -> p.info().command().map(c -> c.startsWith(prefix)).orElse(false))
                .toList();
    }

    private static List<ProcessHandle> awaitHelpers(Path data, boolean present) throws InterruptedException {
        long end = System.nanoTime() + 20_000_000_000L;
        List<ProcessHandle> now = helpersOf(data);
        while ((present == now.isEmpty()) && System.nanoTime() < end) {
            Thread.sleep(20);
            now = helpersOf(data);
        }
        return now;
    }

    private SkillGate gate(Path data) {
        return SkillGate.builder()
                .dataDirectory(data)
                .skillRoot(skills)
                .nodeRuntime(Support.runtime())
                .approvalChannel(new Approve())
                .build();
    }

    @Test
    void aSpareWaitsBetweenExecutesAndCloseRetiresIt() throws Exception {
        Path data = base.resolve("data-open");
        SkillGate gate = gate(data);
        try {
            assertThat(helpersOf(data))
                    .as("nothing is started before the first use")
                    .isEmpty();
            for (int i = 0; i < 3; i++) {
                assertHelloWorldSucceeds(gate, "spare", "s");
            }
            List<ProcessHandle> spare = awaitHelpers(data, true);
            assertThat(spare).as("one spare helper waits for the next launch").hasSize(1);
        } finally {
            gate.close();
        }
        assertThat(awaitHelpers(data, false))
                .as("no helper outlives the gate's close")
                .isEmpty();
    }

    @Test
    void aGateClosedRightAfterAnExecuteLeavesNoHelperEvenIfItsSpareWasStillStarting() throws Exception {
        for (int round = 0; round < 5; round++) {
            Path data = base.resolve("data-race-" + round);
            SkillGate gate = gate(data);
            try {
                assertHelloWorldSucceeds(gate, "spare", "r");
            } finally {
                gate.close();
            }
            // A spare that was still starting when close ran is retired by its starter; allow for
            // that start to finish before looking for the last time.
            Thread.sleep(500);
            assertThat(awaitHelpers(data, false))
                    .as("round %d: no helper outlives the gate's close", round)
                    .isEmpty();
        }
    }

    @Test
    void aClosedGatesSupervisorStartsNoSpareEvenIfItWasNeverUsed() throws Exception {
        Path data = base.resolve("data-unused");
        SkillGate gate = gate(data);
        gate.close();
        Thread.sleep(300);
        assertThat(helpersOf(data)).isEmpty();
    }

    private SkillGate aheadGate(Path data) {
        return SkillGate.builder()
                .dataDirectory(data)
                .skillRoot(skills)
                .nodeRuntime(Support.runtime())
                .approvalChannel(new Approve())
                .prepareSupervisorAhead()
                .build();
    }

    /** Decision 0850: prepared while the gate is built, before any use; the same selection after. */
    @Test
    void aSupervisorPreparedAheadHasItsSpareWaitingBeforeTheFirstUseAndRunsTheSame() throws Exception {
        Path data = base.resolve("data-ahead");
        SkillGate gate = aheadGate(data);
        try {
            assertThat(awaitHelpers(data, true)).isNotEmpty();
            Thread.sleep(500); // the --probe helper and the write-deny probe have ended by then
            assertThat(helpersOf(data))
                    .as("the preparation ahead started the first spare without any use of the gate")
                    .hasSize(1);
            SupervisorSelection selection = gate.supervisor();
            assertThat(selection.name()).isEqualTo("linux-subreaper");
            assertThat(selection.available()).isTrue();
            assertThat(selection.provesCleanup()).isTrue();
            for (int i = 0; i < 2; i++) {
                assertHelloWorldSucceeds(gate, "ahead", "a");
            }
        } finally {
            gate.close();
        }
        assertThat(awaitHelpers(data, false))
                .as("no helper outlives the gate's close")
                .isEmpty();
    }

    /** A gate closed while its preparation ahead may still run: close waits for it and retires its spare. */
    @Test
    void aGateClosedWhileItsSupervisorIsPreparedAheadLeavesNoHelper() throws Exception {
        for (int round = 0; round < 3; round++) {
            Path data = base.resolve("data-ahead-closed-" + round);
            aheadGate(data).close();
            Thread.sleep(500);
            assertThat(awaitHelpers(data, false))
                    .as("round %d: no helper outlives the gate's close", round)
                    .isEmpty();
        }
    }

    /** With an explicit supervisor, nothing of the built-in one is prepared (the option has no effect). */
    @Test
    void anExplicitSupervisorIsNotPreparedAhead() throws Exception {
        Path data = base.resolve("data-ahead-explicit");
        try (dev.skillgate.runner.linux.LinuxSubreaperSupervisor own =
                dev.skillgate.runner.linux.LinuxSubreaperSupervisor.builder()
                        .dataDirectory(data)
                        .build()) {
            SkillGate gate = SkillGate.builder()
                    .dataDirectory(data)
                    .skillRoot(skills)
                    .nodeRuntime(Support.runtime())
                    .supervisor(own)
                    .prepareSupervisorAhead()
                    .build();
            try {
                Thread.sleep(500);
                assertThat(helpersOf(data)).isEmpty();
                assertThat(Files.exists(data.resolve("supervisor")))
                        .as("the built-in helper was not installed")
                        .isFalse();
            } finally {
                gate.close();
            }
        }
    }

    /**
     * Decision 0865: a gate whose supervisor starts only the first spare has it waiting before the
     * first execute, takes it there and starts no other; a later execute still runs (with a helper of
     * its own) and close leaves nothing.
     */
    @Test
    void aGateWithTheFirstSpareOnlyStartsNoSecondSpareAndStillRunsAgain() throws Exception {
        Path data = base.resolve("data-first-spare-only");
        SkillGate gate = SkillGate.builder()
                .dataDirectory(data)
                .skillRoot(skills)
                .nodeRuntime(Support.runtime())
                .approvalChannel(new Approve())
                .prepareSupervisorAhead()
                .spareForFirstExecutionOnly()
                .build();
        try {
            assertThat(awaitHelpers(data, true)).isNotEmpty();
            Thread.sleep(500); // the --probe helper and the write-deny probe have ended by then
            assertThat(helpersOf(data)).as("the first spare waits").hasSize(1);
            long spare = helpersOf(data).get(0).pid();
            assertHelloWorldSucceeds(gate, "first", "f");
            Thread.sleep(500); // a replenish would have started its spare by then
            assertThat(helpersOf(data))
                    .as("no second spare after the first execute took the first")
                    .isEmpty();
            assertHelloWorldSucceeds(gate, "first", "g");
            Thread.sleep(500);
            assertThat(helpersOf(data))
                    .as("a later execute starts its own helper and leaves no spare")
                    .isEmpty();
            assertThat(ProcessHandle.of(spare).map(ProcessHandle::isAlive).orElse(false))
                    .as("the first spare was used and has ended")
                    .isFalse();
        } finally {
            gate.close();
        }
        assertThat(awaitHelpers(data, false))
                .as("no helper outlives the gate's close")
                .isEmpty();
    }

    /** One hello-world execute through {@code gate} that succeeds. */
    private void assertHelloWorldSucceeds(SkillGate gate, String agent, String name) {
        assertThat(gate.execute(ExecutionRequest.of(
                                RunId.random(),
                                AgentId.of(agent),
                                "hello-world",
                                "{\"name\":\"" + name + "\"}",
                                workspace))
                        .status())
                .isEqualTo(ExecutionStatus.SUCCEEDED);
    }
}
