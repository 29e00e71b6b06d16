package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.ScriptedApprovalChannel;
import dev.skillgate.fixtures.DelegatedCgroup;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.Confinement;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.RunId;
import dev.skillgate.runner.ProgressEvent;
import dev.skillgate.runner.ResourceCeilings;
import dev.skillgate.runner.linux.ConfinementPolicy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The host's resource ceilings through {@link SkillGate} (decision 0544): {@code resourceCeilings} and
 * {@code delegatedCgroup} reach the built-in Linux supervisor per run; the run is placed in its own
 * cgroup below the delegated one; the approval request and the envelope name each cgroup limit as
 * enforced or not; under {@code REQUIRE} a limit that will not apply refuses the execute before the
 * script runs, and the audit log records that refusal. Real {@code node}, a real cgroup2 directory
 * created below the cgroup2 mount (skipped with the reason where that cannot be created).
 */
@org.junit.jupiter.api.Timeout(120)
@EnabledOnOs(OS.LINUX)
class GateResourceCeilingsTest extends LiveEngineTest {
    private static final AgentId AGENT = AgentId.of("agent-1");
    private static final ResourceCeilings LIMITS = ResourceCeilings.NONE.withCgroupLimits(
            OptionalLong.of(256L * 1024 * 1024), OptionalLong.of(64), OptionalLong.of(50));
    /** Writes a marker into its working directory, then waits for {@code go} there. */
    private static final String SCRIPT = String.join(
            "\n",
            "import { writeFileSync, existsSync } from 'node:fs';",
            "writeFileSync('ran', 'yes');",
            "const until = Date.now() + 20000;",
            "const tick = () => existsSync('go') || Date.now() > until",
            "    ? process.stdout.write('{}') : setTimeout(tick, 20);",
            "tick();",
            "");

    private DelegatedCgroup cgroup;
    private Path delegated;
    private String unavailable = "";
    private final List<SkillGate> gates = new ArrayList<>();
    private SkillGateAdmin admin;

    @BeforeAll
    void delegate() {
        cgroup = DelegatedCgroup.create("skillgate-gate-test-");
        delegated = cgroup.directory().orElse(null);
        unavailable = cgroup.unavailable();
    }

    @AfterEach
    void closeGates() {
        gates.forEach(SkillGate::close);
        gates.clear();
        if (admin != null) {
            admin.close();
            admin = null;
        }
    }

    @AfterAll
    void removeDelegated() throws IOException {
        cgroup.close();
    }

    private List<Path> runCgroups() throws IOException {
        return cgroup.runCgroups();
    }

    private SkillGate gate(ScriptedApprovalChannel channel, ConfinementPolicy policy, CountDownLatch started)
            throws IOException {
        Bundles.skill(
                skills,
                "limited",
                "limited.mjs",
                SCRIPT.getBytes(StandardCharsets.UTF_8),
                Bundles.OPEN_OBJECT,
                Bundles.OPEN_OBJECT,
                30_000,
                1024);
        admin = SkillGateAdmin.open(data);
        SkillGate gate = SkillGate.builder()
                .admin(admin)
                .skillRoot(skills)
                .nodeRuntime(Support.runtime())
                .approvalChannel(channel)
                .confinement(policy)
                .delegatedCgroup(delegated)
                .resourceCeilings(LIMITS)
                .listener(e -> {
                    if (e.progress().orElse(null) instanceof ProgressEvent.Started) {
                        started.countDown();
                    }
                })
                .build();
        gates.add(gate);
        return gate;
    }

    private String controllers() throws IOException {
        return Files.readString(delegated.resolve("cgroup.controllers")).trim();
    }

    @Test
    void theRunIsPlacedInItsOwnCgroupAndEachLimitIsReportedOnItsOwn() throws Exception {
        assumeTrue(delegated != null, unavailable);
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        CountDownLatch started = new CountDownLatch(1);
        SkillGate gate = gate(channel, ConfinementPolicy.PREFER, started);
        PendingExecution pending =
                gate.executeAsync(ExecutionRequest.of(RunId.random(), AGENT, "limited", "{}", workspace));
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!Files.exists(workspace.resolve("ran")) && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        // While the script runs: one run cgroup below the delegated one, holding processes.
        List<Path> live = runCgroups();
        assertThat(live).hasSize(1);
        String procs = Files.readString(live.get(0).resolve("cgroup.procs")).trim();
        assertThat(procs).isNotEmpty();
        assertThat(procs.split("\n"))
                .doesNotContain(Long.toString(ProcessHandle.current().pid()));
        Files.writeString(workspace.resolve("go"), "");
        ExecutionEnvelope env = pending.await();

        assertThat(env.status()).as(env.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(runCgroups()).as("the run cgroup is removed after the run").isEmpty();
        String have = " " + controllers() + " ";
        Confinement c = env.confinement();
        // Without a trust contract no file-write allow-list applies, so no limit can be enforced
        // (the script could rewrite it), whatever the controllers (decision 0543).
        assertThat(List.of(c.memory(), c.processCount(), c.cpu())).containsOnly(Confinement.Part.NOT_ENFORCED);
        ApprovalRequest asked = channel.requests().get(0);
        String notEnforced = String.join("\n", asked.enforcement().notEnforced());
        assertThat(String.join("\n", asked.enforcement().applied())).doesNotContain("cgroup is limited");
        if (!have.contains(" memory ")) {
            assertThat(notEnforced)
                    .contains("memory limit of 268435456 bytes (no delegated cgroup with that controller here)");
        }
        if (!have.contains(" pids ")) {
            assertThat(notEnforced)
                    .contains("process count limit of 64 processes (no delegated cgroup with that controller here)");
        }
        if (!have.contains(" cpu ")) {
            assertThat(notEnforced)
                    .contains("CPU limit of 50% of one CPU (no delegated cgroup with that controller here)");
        }
        assertThat(notEnforced).doesNotContain("CPU, memory and process-count limits");
    }

    @Test
    void underRequireAMemoryCeilingThatWillNotApplyRefusesBeforeTheScriptRunsAndIsAudited() throws Exception {
        assumeTrue(delegated != null, unavailable);
        ScriptedApprovalChannel channel =
                ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
        SkillGate gate = gate(channel, ConfinementPolicy.REQUIRE, new CountDownLatch(1));
        RunId run = RunId.random();
        ExecutionEnvelope env = gate.execute(ExecutionRequest.of(run, AGENT, "limited", "{}", workspace));

        assertThat(env.errorCodes()).as(env.toString()).contains(ErrorCode.CONFINEMENT_UNAVAILABLE);
        assertThat(env.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(Files.exists(workspace.resolve("ran")))
                .as("the script never ran")
                .isFalse();
        assertThat(runCgroups()).as("the run cgroup is removed again").isEmpty();
        {
            List<AuditEvent.Settled> settled = admin.trust().records(0, 1000).stream()
                    .map(AuditRecord::event)
                    .filter(e -> e instanceof AuditEvent.Settled s && s.run().equals(run))
                    .map(e -> (AuditEvent.Settled) e)
                    .toList();
            assertThat(settled).singleElement().satisfies(s -> {
                assertThat(s.status()).isEqualTo(env.status());
                assertThat(s.errors()).contains(ErrorCode.CONFINEMENT_UNAVAILABLE);
                assertThat(s.cleanup()).isEqualTo(CleanupStatus.NOT_STARTED);
            });
        }
    }
}
