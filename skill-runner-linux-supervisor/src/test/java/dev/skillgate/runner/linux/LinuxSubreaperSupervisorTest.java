package dev.skillgate.runner.linux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.fixtures.TestNodeBinary;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.ProcessExit;
import dev.skillgate.model.RunId;
import dev.skillgate.runner.LaunchSpec;
import dev.skillgate.runner.OwnershipRecorder;
import dev.skillgate.runner.ResourceCeilings;
import dev.skillgate.runner.SupervisionListener;
import dev.skillgate.runner.SupervisionResult;
import dev.skillgate.runner.SupervisorCapabilities;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** The public facade: builder, capabilities by policy, and one real launch through the SPI. */
@EnabledOnOs(OS.LINUX)
class LinuxSubreaperSupervisorTest {
    @TempDir
    Path data;

    @TempDir
    Path work;

    @Test
    void theDataDirectoryIsRequired() {
        assertThatThrownBy(() -> LinuxSubreaperSupervisor.builder().build()).isInstanceOf(IllegalStateException.class);
        assertThat(LinuxSubreaperSupervisor.builder()
                        .dataDirectory(data)
                        .build()
                        .landlockPolicy())
                .isEqualTo(LandlockPolicy.PREFER);
    }

    @Test
    void capabilitiesFollowThePolicy() {
        LinuxSubreaperSupervisor prefer =
                LinuxSubreaperSupervisor.builder().dataDirectory(data).build();
        LinuxSubreaperSupervisor off = LinuxSubreaperSupervisor.builder()
                .dataDirectory(data)
                .landlock(LandlockPolicy.OFF)
                .build();
        SupervisorCapabilities p = prefer.capabilities();
        assertThat(prefer.name()).isEqualTo("linux-subreaper");
        assertThat(p.available()).isTrue();
        assertThat(p.provesCleanup()).isTrue();
        assertThat(p.hardening()).isIn(HardeningLayer.L0, HardeningLayer.L1, HardeningLayer.L2);
        assertThat(off.capabilities().hardening()).isEqualTo(HardeningLayer.L0);
        LinuxSubreaperSupervisor require = LinuxSubreaperSupervisor.builder()
                .dataDirectory(data)
                .landlock(LandlockPolicy.REQUIRE)
                .build();
        if (p.hardening() != HardeningLayer.L0) {
            assertThat(require.capabilities().hardening()).isIn(HardeningLayer.L1, HardeningLayer.L2);
        } else {
            assertThat(require.capabilities().available()).isFalse();
            assertThat(require.capabilities().detail()).startsWith("HARDENING_UNAVAILABLE:");
        }
    }

    @Test
    void aTrivialScriptRunsThroughTheSpi() throws Exception {
        Path script = Files.writeString(work.resolve("entry.mjs"), "process.stdout.write(JSON.stringify({ok: 1}))");
        LaunchSpec spec = new LaunchSpec(
                RunId.random(),
                TestNodeBinary.require(),
                Optional.empty(),
                List.of(script.toString()),
                work,
                Map.of("PATH", "/usr/bin:/bin", "LANG", "C.UTF-8"),
                new byte[0],
                1024,
                1024,
                Duration.ofSeconds(10),
                Duration.ofSeconds(1),
                LaunchSpec.DEFAULT_KILL_DEADLINE,
                ResourceCeilings.NONE,
                OwnershipRecorder.none());
        AtomicInteger settled = new AtomicInteger();
        SupervisionResult r = LinuxSubreaperSupervisor.builder()
                .dataDirectory(data)
                .build()
                .launch(spec, new SupervisionListener() {
                    @Override
                    public void settled() {
                        settled.incrementAndGet();
                    }
                })
                .result()
                .toCompletableFuture()
                .get(60, TimeUnit.SECONDS);
        assertThat(r.outcome()).isEqualTo(SupervisionResult.Outcome.EXITED);
        assertThat(r.exit()).isEqualTo(ProcessExit.code(0));
        assertThat(new String(r.stdout(), StandardCharsets.UTF_8)).isEqualTo("{\"ok\":1}");
        assertThat(r.cleanup().proven()).isTrue();
        assertThat(r.cleanup().proof()).isEqualTo("ECHILD");
        assertThat(r.detail()).isEmpty();
        assertThat(settled).hasValue(1);
    }

    @Test
    void anUnusableDataDirectorySettlesEveryLaunchAsASetupFailure() throws Exception {
        Path file = Files.writeString(work.resolve("file"), "x");
        LinuxSubreaperSupervisor sv =
                LinuxSubreaperSupervisor.builder().dataDirectory(file).build();
        assertThat(sv.capabilities().available()).isFalse();
        LaunchSpec spec = new LaunchSpec(
                RunId.random(),
                TestNodeBinary.require(),
                Optional.empty(),
                List.of(),
                work,
                Map.of(),
                new byte[0],
                1024,
                1024,
                Duration.ofSeconds(10),
                Duration.ofSeconds(1),
                LaunchSpec.DEFAULT_KILL_DEADLINE,
                ResourceCeilings.NONE,
                OwnershipRecorder.none());
        SupervisionResult r = sv.launch(spec, SupervisionListener.NONE)
                .result()
                .toCompletableFuture()
                .get();
        assertThat(r.outcome()).isEqualTo(SupervisionResult.Outcome.SETUP_FAILED);
        assertThat(r.detail()).startsWith("SUPERVISOR_UNAVAILABLE:");
        assertThat(r.cleanup()).isEqualTo(SupervisionResult.CleanupEvidence.nothingStarted());
    }
}
