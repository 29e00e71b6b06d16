package dev.skillgate.benchmarks.jmh;

import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.consent.ConsentBinding;
import dev.skillgate.consent.ProposalSnapshot;
import dev.skillgate.consent.shared.ConsentLedger;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.RuntimeIdentity;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import dev.skillgate.model.Timeout;
import dev.skillgate.model.WorkspaceIdentity;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Consent operations in memory: one full lifecycle on a fresh ledger (open, propose, approve,
 * consume with the identical binding, end the run), and the binding comparison a consume performs.
 * No SPEC target; reported so that consent's cost next to a launch is visible. No baseline: nothing
 * else does this work.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class ConsentBenchmark {
    private SkillName skill;
    private AgentId agent;
    private WorkspaceIdentity workspace;
    private Revision revision;
    private Sha256Digest invocation;
    private RuntimeIdentity runtime;
    private ConsentBinding same;
    private ConsentBinding copy;

    @Setup
    public void setUp() {
        skill = SkillName.of("pdf-fill");
        agent = AgentId.of("agent-1");
        workspace = new WorkspaceIdentity(Path.of("/tmp/workspace"), "(dev=2049,ino=1234)");
        revision = new Revision(Sha256Digest.hash("revision".getBytes(StandardCharsets.UTF_8)));
        invocation = Sha256Digest.hash("{\"query\":\"x\"}".getBytes(StandardCharsets.UTF_8));
        runtime = new RuntimeIdentity(Path.of("/usr/bin/node"), "v20.20.2", Optional.empty());
        same = bind(RunId.of("run-fixed"));
        copy = bind(RunId.of("run-fixed"));
    }

    /** A binding for {@code run}; every other field fixed (and equal, not identical, across calls). */
    private ConsentBinding bind(RunId run) {
        return new ConsentBinding(
                agent, run, workspace, revision, invocation, runtime, Timeout.DEFAULT, OutputLimit.DEFAULT);
    }

    @Benchmark
    public Object lifecycleProposeApproveConsume() {
        RunId run = RunId.random();
        ConsentLedger ledger = ConsentLedger.open(run);
        ConsentBinding binding = bind(run);
        ProposalSnapshot proposal = ledger.propose(skill, binding).orElseThrow();
        ledger.decide(proposal.id(), ApprovalDecision.approve(proposal.id())).orElseThrow();
        Object grant = ledger.consume(proposal.id(), binding).orElseThrow();
        ledger.endRun();
        return grant;
    }

    @Benchmark
    public boolean bindingEquality() {
        return same.equals(copy);
    }
}
