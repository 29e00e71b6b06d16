package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.WorkflowApprovalRequest;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.RunId;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Decision 0816: executions run on reusable daemon threads, still one thread per execution for its
 * whole flow, with real node and the Linux supervisor. Two executions that both wait for a human are
 * both asked (no execution waits for another's thread); each runs on a thread named after its run,
 * with its caller's context class loader, and a thread going idle keeps neither.
 */
@org.junit.jupiter.api.Timeout(120)
@EnabledOnOs(OS.LINUX)
class ExecutionThreadsTest extends HelloWorldRootTest {
    ExecutionThreadsTest() {
        super("skillgate-engine-threads");
    }

    /** Approves only once {@code together} requests are waiting at the same time. */
    private static final class ApproveTogether implements ApprovalChannel {
        private final CountDownLatch waiting;

        ApproveTogether(int together) {
            waiting = new CountDownLatch(together);
        }

        @Override
        public CompletionStage<ApprovalDecision> request(ApprovalRequest request) {
            waiting.countDown();
            return CompletableFuture.supplyAsync(() -> {
                try {
                    return waiting.await(30, TimeUnit.SECONDS)
                            ? request.approve()
                            : ApprovalDecision.deny("the other request never arrived");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return ApprovalDecision.deny("interrupted");
                }
            });
        }

        @Override
        public CompletionStage<ApprovalDecision> requestWorkflow(WorkflowApprovalRequest request) {
            return CompletableFuture.completedFuture(ApprovalDecision.deny("no workflows here"));
        }
    }

    private SkillGate gate(SkillGateAdmin admin, ApprovalChannel channel, ExecutionListener listener) {
        return SkillGate.builder()
                .admin(admin)
                .skillRoot(skills)
                .nodeRuntime(Support.runtime())
                .approvalChannel(channel)
                .listener(listener)
                .build();
    }

    @Test
    void executionsWaitingForAHumanAtOnceEachHaveTheirOwnThreadNamedAfterTheRun() throws Exception {
        Map<RunId, Thread> seen = new ConcurrentHashMap<>();
        Map<RunId, String> names = new ConcurrentHashMap<>();
        try (SkillGateAdmin admin = SkillGateAdmin.open(Files.createTempDirectory(base, "data"));
                SkillGate gate = gate(admin, new ApproveTogether(3), event -> {
                    if (event.kind() == ExecutionEvent.Kind.CAPTURED) {
                        seen.put(event.run(), Thread.currentThread());
                        names.put(event.run(), Thread.currentThread().getName());
                    }
                })) {
            List<RunId> runs = List.of(RunId.random(), RunId.random(), RunId.random());
            List<PendingExecution> pending = runs.stream()
                    .map(run -> gate.executeAsync(ExecutionRequest.of(
                            run, AgentId.of("threads"), "hello-world", "{\"name\":\"t\"}", workspace)))
                    .toList();
            for (PendingExecution p : pending) {
                ExecutionEnvelope env = p.await();
                assertThat(env.status()).as(env.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
            }
            assertThat(seen.values()).doesNotHaveDuplicates().hasSize(3);
            for (RunId run : runs) {
                assertThat(names.get(run)).isEqualTo("skillgate-exec-" + run);
                assertThat(seen.get(run).isDaemon()).isTrue();
            }
        }
    }

    private static final InheritableThreadLocal<String> TENANT = new InheritableThreadLocal<>();

    @Test
    void noCallersInheritableThreadLocalReachesAnExecutionThreadNeitherItsOwnNorAnEarlierCallers() throws Exception {
        Map<RunId, String> tenants = new ConcurrentHashMap<>();
        try (SkillGateAdmin admin = SkillGateAdmin.open(Files.createTempDirectory(base, "data"));
                SkillGate gate = gate(admin, new ApproveTogether(1), event -> {
                    if (event.kind() == ExecutionEvent.Kind.CAPTURED) {
                        tenants.put(event.run(), String.valueOf(TENANT.get()));
                    }
                })) {
            List<RunId> runs = new java.util.ArrayList<>();
            for (String tenant : List.of("tenant-a", "tenant-b", "tenant-c")) {
                RunId run = RunId.random();
                runs.add(run);
                Thread caller = new Thread(() -> {
                    TENANT.set(tenant);
                    assertThat(gate.execute(ExecutionRequest.of(
                                            run, AgentId.of("threads"), "hello-world", "{\"name\":\"i\"}", workspace))
                                    .status())
                            .isEqualTo(ExecutionStatus.SUCCEEDED);
                });
                caller.start();
                caller.join();
            }
            for (RunId run : runs) {
                assertThat(tenants.get(run)).isEqualTo("null");
            }
        }
    }

    @Test
    void theCallersContextClassLoaderIsTheExecutionsAndAnIdleThreadKeepsNeitherItNorTheName() throws Exception {
        Map<RunId, ClassLoader> loaders = new ConcurrentHashMap<>();
        Map<RunId, Thread> threads = new ConcurrentHashMap<>();
        ClassLoader mine = new URLClassLoader(new URL[0], getClass().getClassLoader());
        ClassLoader before = Thread.currentThread().getContextClassLoader();
        try (SkillGateAdmin admin = SkillGateAdmin.open(Files.createTempDirectory(base, "data"));
                SkillGate gate = gate(admin, new ApproveTogether(1), event -> {
                    if (event.kind() == ExecutionEvent.Kind.CAPTURED) {
                        loaders.put(event.run(), Thread.currentThread().getContextClassLoader());
                        threads.put(event.run(), Thread.currentThread());
                    }
                })) {
            RunId first = RunId.random();
            Thread.currentThread().setContextClassLoader(mine);
            try {
                assertThat(gate.execute(ExecutionRequest.of(
                                        first, AgentId.of("threads"), "hello-world", "{\"name\":\"a\"}", workspace))
                                .status())
                        .isEqualTo(ExecutionStatus.SUCCEEDED);
            } finally {
                Thread.currentThread().setContextClassLoader(before);
            }
            assertThat(loaders.get(first)).isSameAs(mine);
            Thread t = threads.get(first);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!t.getName().equals("skillgate-exec-idle") && t.isAlive() && System.nanoTime() < until) {
                Thread.sleep(5);
            }
            assertThat(t.getName()).isEqualTo("skillgate-exec-idle");
            assertThat(t.getContextClassLoader()).isNull();

            RunId second = RunId.random();
            assertThat(gate.execute(ExecutionRequest.of(
                                    second, AgentId.of("threads"), "hello-world", "{\"name\":\"b\"}", workspace))
                            .status())
                    .isEqualTo(ExecutionStatus.SUCCEEDED);
            assertThat(loaders.get(second)).isSameAs(before);
        }
    }
}
