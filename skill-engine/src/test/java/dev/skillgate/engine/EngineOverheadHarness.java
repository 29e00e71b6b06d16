package dev.skillgate.engine;

import dev.skillgate.consent.ScriptedApprovalChannel;
import dev.skillgate.engine.internal.ResultCheck;
import dev.skillgate.inspect.SkillArtifact;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Timeout;
import dev.skillgate.runner.NodeRunRequest;
import dev.skillgate.runner.NodeRunner;
import dev.skillgate.runner.linux.LinuxSubreaperSupervisor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A harness, not a test: what the engine adds on top of the runner for one execution of
 * {@code hello-world} under the Linux supervisor. Interleaves, per round, (a) {@code NodeRunner.run}
 * of the already-captured request (the baseline: runtime check, staging, supervised spawn, output
 * check), (b) {@code SkillGate.execute} under {@code ASK_EACH_TIME} with a scripted approval queued
 * (discovery, two captures, input check, runtime check, consent, an fsync'd {@code CONSUME} append,
 * gates twice, then the same runner path and the {@code SETTLE} append), and (c)
 * {@code SkillGate.execute} inside a trusted-revision receipt (no approval; only the {@code SETTLE}
 * append). Prints medians. Run with the test class path:
 * {@code java -cp … dev.skillgate.engine.EngineOverheadHarness [rounds]}.
 */
public final class EngineOverheadHarness {
    private EngineOverheadHarness() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        Path base = Files.createTempDirectory("skillgate-engine-overhead");
        Path skills = Files.createDirectories(base.resolve("skills"));
        Path hello =
                Support.copySkill(Path.of("examples", "skills", "hello-world").toAbsolutePath(), skills);
        Path workspace = Files.createDirectories(base.resolve("ws"));
        byte[] input = "{\"name\":\"Ada\"}".getBytes(StandardCharsets.UTF_8);

        Path runnerData = Files.createDirectories(base.resolve("runner-data"));
        NodeRunner runner = NodeRunner.builder()
                .dataDirectory(runnerData)
                .runtime(Support.runtime())
                .supervisor(LinuxSubreaperSupervisor.builder()
                        .dataDirectory(runnerData)
                        .spareHelper(false)
                        .build())
                .build();
        SkillArtifact artifact = SkillArtifact.capture(hello).artifact().orElseThrow();
        Revision revision = artifact.revision();

        SkillGateAdmin askAdmin = SkillGateAdmin.open(base.resolve("ask-data"));
        ScriptedApprovalChannel askChannel = ScriptedApprovalChannel.denyingWhenEmpty();
        SkillGate ask = SkillGate.builder()
                .admin(askAdmin)
                .skillRoot(skills)
                .nodeRuntime(Support.runtime())
                .approvalChannel(askChannel)
                .build();
        SkillGateAdmin trustAdmin = SkillGateAdmin.open(base.resolve("trust-data"));
        trustAdmin.trustRevision(
                revision, AgentId.of("bench"), workspace, new Timeout(60_000), new OutputLimit(65_536));
        SkillGate trusted = SkillGate.builder()
                .admin(trustAdmin)
                .skillRoot(skills)
                .nodeRuntime(Support.runtime())
                .approvalChannel(ScriptedApprovalChannel.denyingWhenEmpty())
                .build();

        List<Long> runnerTimes = new ArrayList<>();
        List<Long> askTimes = new ArrayList<>();
        List<Long> trustedTimes = new ArrayList<>();
        for (int i = -3; i < rounds; i++) {
            long t0 = System.nanoTime();
            ExecutionEnvelope r = runner.run(new NodeRunRequest(
                    RunId.random(),
                    artifact.manifest().orElseThrow(),
                    artifact.copyOfContents(),
                    revision,
                    input,
                    workspace,
                    new ResultCheck(artifact.outputSchema().orElseThrow(), new OutputLimit(1024))));
            long t1 = System.nanoTime();
            askChannel.approveNext();
            ExecutionEnvelope a = ask.execute(
                    ExecutionRequest.of(RunId.random(), AgentId.of("bench"), "hello-world", input, workspace));
            long t2 = System.nanoTime();
            ExecutionEnvelope t = trusted.execute(
                    ExecutionRequest.of(RunId.random(), AgentId.of("bench"), "hello-world", input, workspace));
            long t3 = System.nanoTime();
            if (!r.succeeded() || !a.succeeded() || !t.succeeded()) {
                throw new IllegalStateException("a run failed: " + r + " / " + a + " / " + t);
            }
            if (i >= 0) {
                runnerTimes.add(t1 - t0);
                askTimes.add(t2 - t1);
                trustedTimes.add(t3 - t2);
            }
        }
        System.out.printf("rounds %d%n", rounds);
        System.out.printf("NodeRunner.run (baseline)              median %.1f ms%n", median(runnerTimes));
        System.out.printf("SkillGate.execute, ASK_EACH_TIME       median %.1f ms%n", median(askTimes));
        System.out.printf("SkillGate.execute, trusted revision    median %.1f ms%n", median(trustedTimes));
        ask.close();
        trusted.close();
        askAdmin.close();
        trustAdmin.close();
        artifact.close();
        Support.deleteTree(base);
    }

    private static double median(List<Long> nanos) {
        List<Long> sorted = new ArrayList<>(nanos);
        Collections.sort(sorted);
        int n = sorted.size();
        long m = n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
        return m / 1e6;
    }
}
