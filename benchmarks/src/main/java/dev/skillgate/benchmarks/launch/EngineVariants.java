package dev.skillgate.benchmarks.launch;

import dev.skillgate.benchmarks.NodeHost;
import dev.skillgate.benchmarks.Stats;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ApprovalRequest;
import dev.skillgate.consent.WorkflowApprovalRequest;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.engine.ExecutionEvent;
import dev.skillgate.engine.ExecutionRequest;
import dev.skillgate.engine.SkillGate;
import dev.skillgate.engine.SkillGateAdmin;
import dev.skillgate.fixtures.NodeFixture;
import dev.skillgate.inspect.SkillArtifact;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Timeout;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.runner.ProgressEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The facade's launch paths for {@link LaunchOverhead}: {@code SkillGate.execute} of a one-script
 * skill on disk, with the engine's default supervisor selection (the Linux subreaper supervisor on
 * Linux), inside a trusted-revision receipt and under {@code ASK_EACH_TIME} with a channel that
 * approves at once. Each gate has its own data directory. Phases are taken from the engine's
 * progress events.
 */
final class EngineVariants implements AutoCloseable {
    static final String TRUSTED = "`SkillGate.execute`, trusted revision";
    static final String ASK = "`SkillGate.execute`, ask each time (approved at once)";
    /** The trusted path in a root of 1,000 skills, paired with the same path in a one-skill root. */
    static final String TRUSTED_1000 =
            "`SkillGate.execute`, trusted revision, 1,000-skill root (paired with the one-skill root)";
    /** Skills in the wide root (the echo skill and 999 others). */
    static final int WIDE_ROOT_SKILLS = 1000;

    private static final AgentId AGENT = AgentId.of("bench-agent");
    private static final String SKILL = "echo";

    private final SkillGateAdmin trustedAdmin;
    private final SkillGateAdmin askAdmin;
    private final SkillGate trustedGate;
    private final SkillGate askGate;
    private final SkillGateAdmin wideAdmin;
    private final SkillGate wideGate;
    private final byte[] invocation;
    private final Path workspace;
    private final Map<String, Long> marks = new ConcurrentHashMap<>();
    private final Map<String, List<Double>> phases = new LinkedHashMap<>();
    private volatile boolean recording;

    private EngineVariants(
            SkillGateAdmin trustedAdmin,
            SkillGateAdmin askAdmin,
            SkillGateAdmin wideAdmin,
            Path skills,
            Path wideSkills,
            NodeRuntime runtime,
            byte[] invocation,
            Path workspace) {
        this.trustedAdmin = trustedAdmin;
        this.askAdmin = askAdmin;
        this.wideAdmin = wideAdmin;
        this.invocation = invocation.clone();
        this.workspace = workspace;
        this.trustedGate = SkillGate.builder()
                .admin(trustedAdmin)
                .skillRoot(skills)
                .nodeRuntime(runtime)
                .approvalChannel(new ApproveEverything())
                .listener(this::onEvent)
                .build();
        // The ask-each-time variant asks once per round, well above the default demand bound of
        // 30 requests per agent per minute (decision 0763); the benchmark is the host here.
        this.askGate = SkillGate.builder()
                .admin(askAdmin)
                .skillRoot(skills)
                .nodeRuntime(runtime)
                .maxApprovalRequestsPerAgentPerMinute(1000)
                .approvalChannel(new ApproveEverything())
                .listener(this::onEvent)
                .build();
        this.wideGate = SkillGate.builder()
                .admin(wideAdmin)
                .skillRoot(wideSkills)
                .nodeRuntime(runtime)
                .approvalChannel(new ApproveEverything())
                .build();
    }

    /** Writes the echo skill (and returns its directory). */
    private static Path echoSkill(Path skills, NodeFixture fixture) throws IOException {
        Path dir = Files.createDirectories(skills.resolve(SKILL));
        Files.writeString(
                dir.resolve("SKILL.md"), "---\nname: " + SKILL + "\ndescription: Echoes its input.\n---\n# Echo\n");
        String open = "{\"type\":\"object\",\"properties\":{}}";
        Files.writeString(
                dir.resolve("execution.json"),
                "{\"schemaVersion\":1,\"entrypoint\":\"scripts/" + fixture.fileName() + "\",\"files\":[\"scripts/"
                        + fixture.fileName() + "\"],\"inputSchema\":" + open + ",\"outputSchema\":" + open + "}");
        Files.createDirectories(dir.resolve("scripts"));
        Files.write(dir.resolve("scripts").resolve(fixture.fileName()), fixture.bytes());
        return dir;
    }

    static EngineVariants create(Path base, String version, NodeFixture fixture, byte[] invocation, Path workspace)
            throws IOException {
        Path skills = Files.createDirectories(base.resolve("skills"));
        Path dir = echoSkill(skills, fixture);
        // The same echo skill among 999 others (each a SKILL.md and an execution.json, as discovery
        // meets them), names sorting before and after it.
        Path wideSkills = Files.createDirectories(base.resolve("skills-1000"));
        echoSkill(wideSkills, fixture);
        for (int i = 1; i < WIDE_ROOT_SKILLS; i++) {
            String name = String.format(Locale.ROOT, "%s-%04d", i % 2 == 0 ? "aa" : "zz", i);
            Path other = Files.createDirectories(wideSkills.resolve(name));
            Files.writeString(
                    other.resolve("SKILL.md"),
                    "---\nname: " + name + "\ndescription: Skill number " + i + " of the wide root.\n---\n# " + name
                            + "\n");
            Files.writeString(
                    other.resolve("execution.json"),
                    "{\"schemaVersion\":1,\"entrypoint\":\"scripts/x.mjs\",\"files\":[\"scripts/x.mjs\"],"
                            + "\"inputSchema\":{\"type\":\"object\",\"properties\":{}},"
                            + "\"outputSchema\":{\"type\":\"object\",\"properties\":{}}}");
        }
        Revision revision;
        try (SkillArtifact artifact = SkillArtifact.capture(dir).artifact().orElseThrow()) {
            revision = artifact.revision();
        }
        NodeRuntime runtime = NodeRuntime.pinned(NodeHost.NODE, version);
        SkillGateAdmin trusted = SkillGateAdmin.open(base.resolve("data-trusted"));
        if (!trusted.trustRevision(revision, AGENT, workspace, Timeout.DEFAULT, OutputLimit.DEFAULT)
                .isSuccess()) {
            throw new IllegalStateException("trusting the benchmark revision failed");
        }
        SkillGateAdmin ask = SkillGateAdmin.open(base.resolve("data-ask"));
        SkillGateAdmin wide = SkillGateAdmin.open(base.resolve("data-trusted-1000"));
        if (!wide.trustRevision(revision, AGENT, workspace, Timeout.DEFAULT, OutputLimit.DEFAULT)
                .isSuccess()) {
            throw new IllegalStateException("trusting the benchmark revision failed (1,000-skill root)");
        }
        return new EngineVariants(trusted, ask, wide, skills, wideSkills, runtime, invocation, workspace);
    }

    long trusted() {
        return run(trustedGate, "trusted");
    }

    long askEachTime() {
        return run(askGate, "ask");
    }

    /** The trusted path in the 1,000-skill root (no phases: the one-skill root's are the same steps). */
    long trustedWideRoot() {
        return bare(wideGate, "trusted, 1,000-skill root");
    }

    /** One trusted execute, safe to call from several threads at once (the concurrency sweep). */
    long trustedConcurrent() {
        return bare(trustedGate, "trusted (concurrent)");
    }

    private long bare(SkillGate gate, String path) {
        long t0 = System.nanoTime();
        ExecutionEnvelope envelope =
                gate.execute(ExecutionRequest.of(RunId.random(), AGENT, SKILL, invocation, workspace));
        long t1 = System.nanoTime();
        if (!envelope.succeeded()) {
            throw new IllegalStateException(path + ": the execution must succeed: " + envelope);
        }
        return t1 - t0;
    }

    private long run(SkillGate gate, String path) {
        marks.clear();
        recording = true;
        long t0 = System.nanoTime();
        ExecutionEnvelope envelope =
                gate.execute(ExecutionRequest.of(RunId.random(), AGENT, SKILL, invocation, workspace));
        long t1 = System.nanoTime();
        recording = false;
        if (!envelope.succeeded()) {
            throw new IllegalStateException(path + ": the execution must succeed: " + envelope);
        }
        phase(path + ": call → captured (capture, input check)", t0, marks.get("CAPTURED"));
        phase(path + ": captured → authorised (consent or receipt)", marks.get("CAPTURED"), marks.get("AUTHORISED"));
        phase(
                path + ": authorised → launching (re-capture, gates again)",
                marks.get("AUTHORISED"),
                marks.get("LAUNCHING"));
        phase(path + ": launching → staged (runtime.verify, staging)", marks.get("LAUNCHING"), marks.get("Staged"));
        phase(path + ": staged → started (re-hash, owner record, spawn)", marks.get("Staged"), marks.get("Started"));
        phase(path + ": started → settled (the script, proof of cleanup)", marks.get("Started"), marks.get("Settled"));
        phase(path + ": settled → returned", marks.get("Settled"), t1);
        return t1 - t0;
    }

    private void phase(String name, Long from, Long to) {
        if (from != null && to != null) {
            phases.computeIfAbsent(name, k -> new ArrayList<>()).add((to - from) / 1e6);
        }
    }

    private void onEvent(ExecutionEvent e) {
        if (!recording) {
            return;
        }
        long now = System.nanoTime();
        String key = e.kind() == ExecutionEvent.Kind.PROGRESS
                ? e.progress().map(p -> p.getClass().getSimpleName()).orElse("PROGRESS")
                : e.kind().name();
        if (e.progress().isPresent() && e.progress().get() instanceof ProgressEvent.OutputBytes) {
            return;
        }
        marks.putIfAbsent(key, now);
    }

    /** The median of each phase over every measured call (warm-up calls included: few, and alike). */
    void printPhases() {
        System.out.println();
        System.out.println("| engine phase (from its progress events) | median ms (p25–p75) |");
        System.out.println("|---|---:|");
        phases.forEach((name, ms) ->
                System.out.printf(Locale.ROOT, "| %s | %s |%n", name, Stats.medianWithQuartiles(ms, "%.1f")));
    }

    @Override
    public void close() {
        trustedGate.close();
        askGate.close();
        wideGate.close();
        trustedAdmin.close();
        askAdmin.close();
        wideAdmin.close();
    }

    /** Approves every request at once: the benchmark measures the consent path, not a human. */
    static final class ApproveEverything implements ApprovalChannel {
        @Override
        public CompletionStage<ApprovalDecision> request(ApprovalRequest request) {
            return CompletableFuture.completedFuture(request.approve());
        }

        @Override
        public CompletionStage<ApprovalDecision> requestWorkflow(WorkflowApprovalRequest request) {
            return CompletableFuture.completedFuture(ApprovalDecision.deny("no workflows in the benchmark"));
        }
    }
}
