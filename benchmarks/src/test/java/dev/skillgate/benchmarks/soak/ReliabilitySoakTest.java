package dev.skillgate.benchmarks.soak;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditLogOptions;
import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.AuditStatus;
import dev.skillgate.benchmarks.Machine;
import dev.skillgate.benchmarks.NodeHost;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.WorkflowApprovalRequest;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.engine.ExecutionRequest;
import dev.skillgate.engine.SkillGate;
import dev.skillgate.engine.SkillGateAdmin;
import dev.skillgate.fixtures.NodeFixture;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.RunId;
import dev.skillgate.runner.NodeRuntime;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The reliability soak of SPEC §17 (run only with {@code -Psoak}; decision 0286): 1,000 consecutive
 * runs through the engine facade with the Linux subreaper supervisor, mixing every adversarial
 * Node fixture with hostile invocations that must be refused before anything starts. Each run is
 * approved by a channel that approves everything, so every launch goes through proposal, approval,
 * consumption and the audit log.
 *
 * <p>Per run it requires an envelope (never an exception), cleanup that is not {@code UNKNOWN}, and
 * the status each fixture must produce where that is fixed. After the runs and {@code close()}: zero
 * processes that carry the soak's data directory in their command line or environment, zero entries
 * in {@code <data dir>/staging}, and an audit log that verifies. Duration and counts are printed.
 */
@EnabledOnOs(OS.LINUX)
class ReliabilitySoakTest {
    private static final int RUNS = Integer.getInteger("skillgate.soak.runs", 1_000);
    private static final AgentId AGENT = AgentId.of("soak-agent");

    /** What a fixture must end as, when that is fixed (empty: any status but CLEANUP_UNKNOWN). */
    private record Case(String skill, NodeFixture fixture, String input, ExecutionStatus expected) {}

    @Test
    void thousandAdversarialRunsLeaveNothingBehind() throws Exception {
        String marker = "sgsoak-" + UUID.randomUUID().toString().substring(0, 12);
        Path base = Files.createTempDirectory("skillgate-soak-" + marker + "-");
        Path skills = Files.createDirectories(base.resolve("skills"));
        Path data = base.resolve("data");
        Path workspace = Files.createDirectories(base.resolve("workspace"));
        List<Case> cases = cases(skills, workspace);
        List<String> hostileInputs = hostileInputs();

        Map<String, Map<ExecutionStatus, Integer>> counts = new TreeMap<>();
        Map<String, Map<String, Integer>> firstCodes = new TreeMap<>();
        List<String> failures = new ArrayList<>();
        Random random = new Random(20261201L);
        long start = System.nanoTime();
        int refusedInputs = 0;
        try (SkillGateAdmin admin = SkillGateAdmin.open(data)) {
            SkillGate gate = SkillGate.builder()
                    .admin(admin)
                    .skillRoot(skills)
                    .nodeRuntime(NodeRuntime.pinned(NodeHost.NODE, NodeHost.version()))
                    .approvalChannel(new ApproveEverything())
                    // 1,000 runs of one agent in about five minutes ask far more often than the default
                    // 30 approval requests per agent per minute (decision 0763); the soak is about what
                    // the runs leave behind, not about the demand bound, so it takes the maximum.
                    .maxApprovalRequestsPerAgentPerMinute(1000)
                    .build();
            try {
                for (int i = 0; i < RUNS; i++) {
                    boolean hostile = i % 10 == 9;
                    Case c = hostile ? cases.get(0) : cases.get(random.nextInt(cases.size()));
                    String input = hostile ? hostileInputs.get((i / 10) % hostileInputs.size()) : c.input();
                    ExecutionEnvelope env;
                    try {
                        env = gate.execute(ExecutionRequest.of(
                                RunId.random(), AGENT, c.skill(), input.getBytes(StandardCharsets.UTF_8), workspace));
                    } catch (RuntimeException e) {
                        failures.add("run " + i + " (" + c.skill() + "): exception "
                                + e.getClass().getName());
                        continue;
                    }
                    String label = hostile ? "hostile invocation" : c.fixture().name();
                    counts.computeIfAbsent(label, k -> new EnumMap<>(ExecutionStatus.class))
                            .merge(env.status(), 1, Integer::sum);
                    firstCodes
                            .computeIfAbsent(label, k -> new TreeMap<>())
                            .merge(
                                    env.errors().isEmpty()
                                            ? "none"
                                            : env.errors().get(0).code().name(),
                                    1,
                                    Integer::sum);
                    if (env.status() == ExecutionStatus.CLEANUP_UNKNOWN
                            || (env.status() != ExecutionStatus.REFUSED
                                    && env.cleanup().status() != CleanupStatus.PROVEN)) {
                        failures.add("run " + i + " (" + label + "): cleanup not proven: " + env.status());
                    }
                    ExecutionStatus expected = hostile ? ExecutionStatus.REFUSED : c.expected();
                    if (expected != null && env.status() != expected) {
                        failures.add("run " + i + " (" + label + "): " + env.status() + ", expected " + expected);
                    }
                    refusedInputs += hostile && env.status() == ExecutionStatus.REFUSED ? 1 : 0;
                }
            } finally {
                gate.close();
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;

        List<Long> survivors = survivors(data.toString());
        survivors.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
        int staging = countEntries(data.resolve("staging"));
        AuditStatus audit;
        try (AuditLog log = AuditLog.open(AuditLogOptions.builder(data.resolve("audit"))
                .readOnly(true)
                .openWait(Duration.ofSeconds(60))
                .build())) {
            audit = log.awaitReady(Duration.ofSeconds(60));
        }

        System.out.println("machine: " + Machine.describe());
        System.out.printf(
                Locale.ROOT,
                "soak: %d runs in %.0f s (%.0f ms per run); %d hostile invocations refused;"
                        + " survivors %d; staging entries %d; audit %s with %d records%n",
                RUNS,
                seconds,
                seconds * 1000 / RUNS,
                refusedInputs,
                survivors.size(),
                staging,
                audit.state(),
                audit.committedSequence());
        System.out.println("| fixture | runs | outcomes | first error code |");
        System.out.println("|---|---:|---|---|");
        counts.forEach((fixture, byStatus) -> System.out.printf(
                Locale.ROOT,
                "| %s | %d | %s | %s |%n",
                fixture,
                byStatus.values().stream().mapToInt(Integer::intValue).sum(),
                byStatus.toString().replaceAll("[{}]", ""),
                firstCodes.get(fixture).toString().replaceAll("[{}]", "")));
        failures.stream().limit(20).forEach(f -> System.out.println("FAILURE " + f));

        NodeHost.deleteTree(base);
        assertThat(failures)
                .as("runs that threw, left cleanup unproven or ended wrongly")
                .isEmpty();
        assertThat(survivors).as("processes left behind").isEmpty();
        assertThat(staging).as("staging directories left behind").isZero();
        assertThat(audit.state()).as("audit log").isEqualTo(AuditState.OK);
        assertThat(audit.committedSequence())
                .as("audit records (one consumption per launch at least)")
                .isGreaterThanOrEqualTo(RUNS - RUNS / 10);
    }

    private static List<Case> cases(Path skills, Path workspace) throws IOException {
        List<Case> cases = new ArrayList<>();
        cases.add(skill(skills, NodeFixture.ECHO_MJS, "{\"n\":1}", ExecutionStatus.SUCCEEDED, 10_000, 65_536));
        cases.add(skill(skills, NodeFixture.ECHO_CJS, "{\"n\":2}", ExecutionStatus.SUCCEEDED, 10_000, 65_536));
        cases.add(skill(
                skills,
                NodeFixture.EXACT_SIZE_OUTPUT,
                "{\"size\":4096}",
                ExecutionStatus.SUCCEEDED,
                10_000,
                4_096,
                "{\"type\":\"string\",\"maxLength\":4094}"));
        cases.add(skill(
                skills,
                NodeFixture.DETACH_WRITE_LATER,
                "{\"marker\":\"" + workspace.resolve("detached") + "\",\"delayMs\":1500}",
                ExecutionStatus.FAILED,
                10_000,
                65_536));
        cases.add(skill(skills, NodeFixture.IGNORE_SIGTERM, "{}", ExecutionStatus.TIMED_OUT, 1_000, 65_536));
        cases.add(skill(skills, NodeFixture.CLOSE_STDOUT_KEEP_RUNNING, "{}", ExecutionStatus.TIMED_OUT, 1_000, 65_536));
        cases.add(skill(skills, NodeFixture.FORK_FANOUT, "{\"count\":8}", null, 10_000, 65_536));
        cases.add(skill(skills, NodeFixture.FLOOD_STDOUT, "{}", ExecutionStatus.OUTPUT_LIMIT, 10_000, 65_536));
        cases.add(skill(
                skills, NodeFixture.FLOOD_STDERR, "{\"bytes\":1048576}", ExecutionStatus.OUTPUT_LIMIT, 10_000, 65_536));
        cases.add(skill(skills, NodeFixture.INVALID_UTF8, "{}", ExecutionStatus.FAILED, 10_000, 65_536));
        cases.add(skill(skills, NodeFixture.EXIT0_NO_OUTPUT, "{}", ExecutionStatus.FAILED, 10_000, 65_536));
        cases.add(skill(skills, NodeFixture.TWO_JSON_VALUES, "{}", ExecutionStatus.FAILED, 10_000, 65_536));
        cases.add(skill(skills, NodeFixture.PARTIAL_JSON_HANG, "{}", ExecutionStatus.TIMED_OUT, 1_000, 65_536));
        cases.add(skill(skills, NodeFixture.NEVER_READS_STDIN, "{}", ExecutionStatus.SUCCEEDED, 10_000, 65_536));
        cases.add(skill(skills, NodeFixture.KILL_OWN_GROUP, "{}", ExecutionStatus.FAILED, 10_000, 65_536));
        cases.add(skill(skills, NodeFixture.NONZERO_VALID_JSON, "{}", ExecutionStatus.FAILED, 10_000, 65_536));
        cases.add(skill(
                skills,
                NodeFixture.SLEEP_PAST_DEADLINE,
                "{\"sleepMs\":600000}",
                ExecutionStatus.TIMED_OUT,
                1_000,
                65_536));
        cases.add(skill(
                skills,
                NodeFixture.OUTLIVING_CHILD,
                "{\"marker\":\"" + workspace.resolve("outlived") + "\",\"delayMs\":1500,\"startMs\":100}",
                null,
                10_000,
                65_536));
        cases.add(skill(
                skills,
                NodeFixture.CHDIR_WRITE_WORKSPACE,
                "{\"fileName\":\"soak-written.txt\"}",
                ExecutionStatus.SUCCEEDED,
                10_000,
                65_536));
        cases.add(skill(skills, NodeFixture.PRINT_ENV, "{}", ExecutionStatus.SUCCEEDED, 10_000, 65_536));
        return cases;
    }

    private static Case skill(
            Path skills, NodeFixture fixture, String input, ExecutionStatus expected, int timeoutMs, int maxOut)
            throws IOException {
        return skill(skills, fixture, input, expected, timeoutMs, maxOut, "{\"type\":\"object\",\"properties\":{}}");
    }

    private static Case skill(
            Path skills,
            NodeFixture fixture,
            String input,
            ExecutionStatus expected,
            int timeoutMs,
            int maxOut,
            String outputSchema)
            throws IOException {
        String name = fixture.name().toLowerCase(Locale.ROOT).replace('_', '-');
        Path dir = Files.createDirectories(skills.resolve(name));
        Files.writeString(
                dir.resolve("SKILL.md"),
                "---\nname: " + name + "\ndescription: Soak fixture " + name + ".\n---\n# " + name + "\n");
        String open = "{\"type\":\"object\",\"properties\":{}}";
        Files.writeString(
                dir.resolve("execution.json"),
                "{\"schemaVersion\":1,\"entrypoint\":\"scripts/" + fixture.fileName() + "\",\"files\":[\"scripts/"
                        + fixture.fileName() + "\"],\"inputSchema\":" + open + ",\"outputSchema\":" + outputSchema
                        + ",\"timeoutMs\":" + timeoutMs + ",\"maxOutputBytes\":" + maxOut + "}");
        Files.createDirectories(dir.resolve("scripts"));
        Files.write(dir.resolve("scripts").resolve(fixture.fileName()), fixture.bytes());
        return new Case(name, fixture, input, expected);
    }

    /** Invocations the protocol must refuse before anything is staged or started. */
    private static List<String> hostileInputs() {
        List<String> inputs = new ArrayList<>();
        inputs.add("{\"a\":1,\"a\":2}");
        inputs.add("[1,2,3]");
        inputs.add("{\"a\":NaN}");
        inputs.add("{\"a\":1} {\"b\":2}");
        inputs.add("\uFEFF{}");
        inputs.add("{\"a\":\"\\ud800\"}");
        inputs.add("[".repeat(40) + "]".repeat(40));
        inputs.add("{\"x\":\"" + "y".repeat(70_000) + "\"}");
        inputs.add("{\"a\":");
        inputs.add("");
        return inputs;
    }

    /** Pids (other than this JVM) whose command line or environment mentions {@code tag}. */
    static List<Long> survivors(String tag) throws IOException {
        List<Long> out = new ArrayList<>();
        long self = ProcessHandle.current().pid();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(
                Path.of("/proc"), p -> p.getFileName().toString().matches("[0-9]+"))) {
            for (Path dir : ds) {
                long pid = Long.parseLong(dir.getFileName().toString());
                if (pid != self && (read(dir.resolve("environ")) + "\0" + read(dir.resolve("cmdline"))).contains(tag)) {
                    out.add(pid);
                }
            }
        }
        return out;
    }

    private static String read(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return new String(in.readNBytes(1 << 20), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private static int countEntries(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (var s = Files.list(dir)) {
            return (int) s.count();
        }
    }

    /** Approves every request at once: the soak exercises the consent path, not a human. */
    private static final class ApproveEverything implements ApprovalChannel {
        @Override
        public CompletionStage<ApprovalDecision> request(ApprovalRequest request) {
            return CompletableFuture.completedFuture(request.approve());
        }

        @Override
        public CompletionStage<ApprovalDecision> requestWorkflow(WorkflowApprovalRequest request) {
            return CompletableFuture.completedFuture(ApprovalDecision.deny("no workflows in the soak"));
        }
    }
}
