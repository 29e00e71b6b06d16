package dev.skillgate.benchmarks.jmh;

import dev.skillgate.benchmarks.corpus.Bundles;
import dev.skillgate.inspect.DiscoveryOptions;
import dev.skillgate.inspect.SkillDiscovery;
import dev.skillgate.inspect.SkillValidator;
import dev.skillgate.inspect.ValidationProfile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Inspection of small bundles on disk (SPEC §17: ≥ 5,000 small bundles per second on 2 cores,
 * warm). One invocation walks {@value #BUNDLES} skill directories, so the score is in bundles per
 * second. Baseline: {@code Files.readAllBytes} of every {@code SKILL.md} — the file-system floor
 * with no link checks, no parsing and no validation.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class InspectionBenchmark {
    static final int BUNDLES = 1_000;

    private Path root;
    private List<Path> dirs;
    private DiscoveryOptions discovery;

    @Setup
    public void setUp() throws IOException {
        root = Files.createTempDirectory("skillgate-jmh-inspection-");
        dirs = Bundles.writeSmall(root, BUNDLES);
        discovery = DiscoveryOptions.builder().root(root).build();
        if (SkillDiscovery.discover(discovery).skills().size() != BUNDLES) {
            throw new IllegalStateException("discovery must find every bundle");
        }
    }

    @TearDown
    public void tearDown() {
        Bundles.deleteTree(root);
    }

    @Benchmark
    @OperationsPerInvocation(BUNDLES)
    public void validateStrict(Blackhole bh) {
        for (Path d : dirs) {
            bh.consume(SkillValidator.validate(d, ValidationProfile.STRICT).portable());
        }
    }

    @Benchmark
    @OperationsPerInvocation(BUNDLES)
    public void validateReference(Blackhole bh) {
        for (Path d : dirs) {
            bh.consume(SkillValidator.validate(d, ValidationProfile.REFERENCE_COMPATIBLE)
                    .portable());
        }
    }

    /** Discovery of the whole root: listing, sorting, no-follow opens, validation, precedence. */
    @Benchmark
    @OperationsPerInvocation(BUNDLES)
    public void discoverRoot(Blackhole bh) {
        bh.consume(SkillDiscovery.discover(discovery).skills().size());
    }

    /** Baseline: read every {@code SKILL.md}, nothing else. */
    @Benchmark
    @OperationsPerInvocation(BUNDLES)
    public void baselineReadAllBytes(Blackhole bh) throws IOException {
        for (Path d : dirs) {
            bh.consume(Files.readAllBytes(d.resolve("SKILL.md")));
        }
    }
}
