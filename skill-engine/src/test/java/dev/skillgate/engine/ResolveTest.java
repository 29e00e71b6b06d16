package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditRecord;
import dev.skillgate.consent.ScriptedApprovalChannel;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.runner.PortableSupervisor;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Operator resolution of unknown outcomes (SPEC §12) on a real {@code CLEANUP_UNKNOWN}: a child JVM
 * runs a skill under the opted-in portable supervisor (which can never prove cleanup) and exits,
 * leaving its staging directory; this JVM lists it, and resolves it only after the janitor proved
 * the owners dead and the resolution was committed to the audit log. A live owner is never resolved;
 * a resolution the audit log cannot record removes nothing. {@code /proc} survivor scan after.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@org.junit.jupiter.api.Timeout(180)
@EnabledOnOs(OS.LINUX)
class ResolveTest extends LiveEngineTest {
    private static final AgentId AGENT = AgentId.of("agent-1");

    @BeforeEach
    void fresh() throws IOException {
        Support.copySkill(Support.examples().resolve("hello-world"), skills);
    }

    /** Runs {@link CleanupUnknownProbe} in a child JVM and returns what it printed, by key. */
    private Map<String, String> runProbe(RunId run) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(
                java,
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                CleanupUnknownProbe.class.getName(),
                data.toString(),
                skills.toString(),
                workspace.toString(),
                Support.node().toString(),
                Support.nodeVersion(),
                run.value());
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        Process child = pb.start();
        Map<String, String> lines = new HashMap<>();
        try (BufferedReader reader =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                int space = line.indexOf(' ');
                lines.put(space < 0 ? line : line.substring(0, space), space < 0 ? "" : line.substring(space + 1));
            }
        }
        assertThat(child.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(child.exitValue()).isZero();
        assertThat(lines).containsKey("DONE");
        return lines;
    }

    private static List<AuditEvent> events(SkillGateAdmin admin, RunId run) throws IOException {
        List<AuditEvent> out = new ArrayList<>();
        for (AuditRecord r : admin.trust().records(0, 1000)) {
            AuditEvent e = r.event();
            if ((e instanceof AuditEvent.Consumed c && c.run().equals(run))
                    || (e instanceof AuditEvent.Settled s && s.run().equals(run))
                    || (e instanceof AuditEvent.Resolved v && v.run().equals(run))) {
                out.add(e);
            }
        }
        return out;
    }

    @Test
    void aCleanupUnknownLeftByAnEndedProcessIsResolvedOnlyAfterProofOfDeathAndAnAuditRecord() throws Exception {
        RunId run = RunId.random();
        Map<String, String> probe = runProbe(run);
        assertThat(probe.get("STATUS")).isEqualTo("CLEANUP_UNKNOWN");
        assertThat(probe.get("CODES")).isEqualTo("[CLEANUP_UNKNOWN, STAGING_RETAINED]");
        long childPid = Long.parseLong(probe.get("PID"));
        Revision revision = Revision.parse(probe.get("REVISION"));
        Path staging = Path.of(probe.get("STAGING"));
        assertThat(staging).isDirectory();
        assertThat(ProcessHandle.of(childPid).map(ProcessHandle::isAlive).orElse(false))
                .isFalse();

        try (SkillGateAdmin admin = SkillGateAdmin.open(data);
                SkillGate gate = SkillGate.builder()
                        .admin(admin)
                        .skillRoot(skills)
                        .nodeRuntime(Support.runtime())
                        .build()) {
            // Building a gate removes nothing: the unknown outcome is listed.
            assertThat(staging).isDirectory();
            assertThat(gate.unresolved()).singleElement().satisfies(u -> {
                assertThat(u.run()).isEqualTo(run);
                assertThat(u.state()).isEqualTo(UnresolvedExecution.State.RETAINED_ON_DISK);
                assertThat(u.revision()).contains(revision);
                assertThat(u.retainedStaging()).contains(staging);
            });
            // The child recorded its consumption and its real settlement.
            assertThat(events(admin, run)).hasSize(2);
            assertThat(events(admin, run).get(1))
                    .isEqualTo(new AuditEvent.Settled(
                            run,
                            AGENT,
                            revision,
                            AuditEvent.Settled.Authority.CONSENT,
                            ExecutionStatus.CLEANUP_UNKNOWN,
                            CleanupStatus.UNKNOWN,
                            HardeningLayer.NONE,
                            List.of(ErrorCode.CLEANUP_UNKNOWN, ErrorCode.STAGING_RETAINED),
                            false,
                            Optional.empty(),
                            // The settlement names what the kernel confined (here: the cleanup-unknown
                            // probe supervisor confines nothing).
                            Optional.of(dev.skillgate.model.Confinement.NONE)));

            // An admin whose audit handle cannot write (another admin holds the log) removes nothing.
            try (SkillGateAdmin readOnly = SkillGateAdmin.open(data)) {
                SkillGateAdmin.Resolution refused = readOnly.resolve(run);
                assertThat(refused.resolved()).isFalse();
                assertThat(refused.removed()).isFalse();
                assertThat(refused.kept()).singleElement().asString().startsWith("AUDIT");
            }
            assertThat(staging).isDirectory();
            assertThat(events(admin, run)).hasSize(2);

            SkillGateAdmin.Resolution r = admin.resolve(run);
            assertThat(r.resolved()).as(r.toString()).isTrue();
            assertThat(r.removed()).isTrue();
            assertThat(staging).doesNotExist();
            List<AuditEvent> after = events(admin, run);
            assertThat(after).hasSize(3);
            assertThat(after.get(2)).isInstanceOfSatisfying(AuditEvent.Resolved.class, v -> {
                assertThat(v.run()).isEqualTo(run);
                assertThat(v.revision()).contains(revision);
                assertThat(staging.getFileName().toString()).isEqualTo(v.attempt() + "-" + run.value());
                assertThat(v.stager().pid()).isEqualTo(childPid);
                // The portable supervisor runs inside the JVM: when it recorded itself, it is the same process.
                v.supervisor().ifPresent(s -> assertThat(s.pid()).isEqualTo(childPid));
            });
            assertThat(gate.unresolved()).isEmpty();

            SkillGateAdmin.Resolution again = admin.resolve(run);
            assertThat(again.resolved()).isTrue();
            assertThat(again.removed()).isFalse();
            assertThat(events(admin, run)).hasSize(3);
        }
    }

    @Test
    void anExecutionOfThisLiveProcessIsNeverResolved() throws Exception {
        try (SkillGateAdmin admin = SkillGateAdmin.open(data);
                SkillGate gate = SkillGate.builder()
                        .admin(admin)
                        .skillRoot(skills)
                        .nodeRuntime(Support.runtime())
                        .approvalChannel(
                                ScriptedApprovalChannel.denyingWhenEmpty().approveNext())
                        .supervisor(PortableSupervisor.create())
                        .allowUnprovenCleanup()
                        .build()) {
            RunId run = RunId.random();
            ExecutionEnvelope env =
                    gate.execute(ExecutionRequest.of(run, AGENT, "hello-world", "{\"name\":\"Ada\"}", workspace));
            assertThat(env.status()).isEqualTo(ExecutionStatus.CLEANUP_UNKNOWN);
            Path staging = env.cleanup().retainedStaging().orElseThrow();

            SkillGateAdmin.Resolution r = admin.resolve(run);
            assertThat(r.resolved()).isFalse();
            assertThat(r.removed()).isFalse();
            assertThat(r.kept()).singleElement().asString().startsWith("OWNER_ALIVE");
            assertThat(staging).isDirectory();
            assertThat(events(admin, run))
                    .as("no resolution is recorded for a live owner")
                    .noneMatch(e -> e instanceof AuditEvent.Resolved);
            assertThat(gate.unresolved())
                    .singleElement()
                    .satisfies(u -> assertThat(u.state()).isEqualTo(UnresolvedExecution.State.CLEANUP_UNKNOWN));
            assertThat(Optional.of(staging)).isEqualTo(gate.unresolved().get(0).retainedStaging());
        }
    }
}
