package dev.skillgate.runner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.fixtures.NodeFixture;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Decision 0871: runs take a reusable daemon thread, one per run for its whole launch sequence. The
 * listener sees the run's own name, the starting caller's context class loader and none of any
 * caller's inheritable thread-locals; a thread going idle keeps neither the loader nor the name.
 */
class RunThreadsTest {
    private static final InheritableThreadLocal<String> TENANT = new InheritableThreadLocal<>();

    private Path root;

    @BeforeEach
    void setUp() throws Exception {
        root = Files.createTempDirectory("skillgate-run-threads-");
    }

    @AfterEach
    void tearDown() throws Exception {
        TestSupport.deleteTree(root);
    }

    private record Seen(Thread thread, String name, ClassLoader loader, String tenant, boolean daemon) {}

    @Test
    void eachRunHasItsOwnNameAndItsCallersLoaderAndNoCallersThreadLocals() throws Exception {
        Path workspace = Files.createDirectories(root.resolve("workspace"));
        // The portable supervisor without the host's opt-in: each run is refused before staging, on its
        // run thread, which still emits its Settled event to the listener.
        NodeRunner runner = NodeRunner.builder()
                .dataDirectory(Files.createDirectories(root.resolve("data")))
                .runtime(TestSupport.runtime())
                .supervisor(PortableSupervisor.create())
                .build();
        List<Seen> seen = new ArrayList<>();
        List<ClassLoader> loaders = new ArrayList<>();
        List<String> runIds = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ClassLoader loader = new URLClassLoader(new URL[0], getClass().getClassLoader());
            loaders.add(loader);
            String tenant = "tenant-" + i;
            CompletableFuture<Seen> event = new CompletableFuture<>();
            CompletableFuture<ExecutionEnvelope> envelope = new CompletableFuture<>();
            Thread caller = new Thread(() -> {
                TENANT.set(tenant);
                Thread.currentThread().setContextClassLoader(loader);
                NodeRunRequest request = TestSupport.request(
                        NodeFixture.ECHO_MJS.asBundle(),
                        NodeFixture.ECHO_MJS.portablePath(),
                        "{}",
                        workspace,
                        new TestSupport.StrictJsonCheck(),
                        30_000,
                        100);
                synchronized (runIds) {
                    runIds.add(request.runId().value());
                }
                ExecutionHandle h = runner.start(request, e -> {
                    if (e instanceof ProgressEvent.Settled) {
                        Thread me = Thread.currentThread();
                        event.complete(
                                new Seen(me, me.getName(), me.getContextClassLoader(), TENANT.get(), me.isDaemon()));
                    }
                });
                h.envelope().whenComplete((env, t) -> envelope.complete(env));
            });
            caller.start();
            caller.join();
            assertThat(envelope.get(60, TimeUnit.SECONDS).errorCodes())
                    .containsExactly(ErrorCode.PROCESS_OWNERSHIP_UNSUPPORTED);
            Seen s = event.get(60, TimeUnit.SECONDS);
            seen.add(s);
            // The thread goes idle: its loader is cleared (the last thing it does) and its name is idle.
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (s.thread().getContextClassLoader() != null && System.nanoTime() < until) {
                Thread.sleep(5);
            }
            assertThat(s.thread().getContextClassLoader()).isNull();
            assertThat(s.thread().getName()).isEqualTo("skillgate-run-idle");
        }
        for (int i = 0; i < 3; i++) {
            assertThat(seen.get(i).name()).isEqualTo("skillgate-run-" + runIds.get(i));
            assertThat(seen.get(i).loader()).isSameAs(loaders.get(i));
            assertThat(seen.get(i).tenant()).isNull();
            assertThat(seen.get(i).daemon()).isTrue();
        }
    }
}
