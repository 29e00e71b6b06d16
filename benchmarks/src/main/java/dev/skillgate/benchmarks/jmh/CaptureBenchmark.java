package dev.skillgate.benchmarks.jmh;

import dev.skillgate.benchmarks.corpus.Bundles;
import dev.skillgate.inspect.CaptureOutcome;
import dev.skillgate.inspect.SkillArtifact;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.List;
import java.util.Map;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Capture + revision of the maximal bundle (SPEC §17: ≥ 80% of raw {@code MessageDigest} SHA-256
 * throughput over the same bytes; 64 declared files, 4 MiB in total with {@code SKILL.md} and
 * {@code execution.json}) on disk, in the page cache:
 *
 * <ul>
 *   <li>{@code captureAndRevision} — {@link SkillArtifact#capture}: no-follow bounded reads, the
 *       manifest parse with both schemas compiled, the verification pass (identities and a byte
 *       re-read), the revision; then {@code dispose()};
 *   <li>{@code baselineMessageDigest} — the target's baseline: SHA-256 of the same bytes already in
 *       memory;
 *   <li>{@code baselineReadAndDigest} — for context: {@code Files.readAllBytes} of every file, then
 *       SHA-256.
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class CaptureBenchmark {
    private Path base;
    private Path dir;
    private List<Path> paths;
    private List<byte[]> contents;

    @Setup
    public void setUp() throws IOException {
        base = Files.createTempDirectory("skillgate-jmh-capture-");
        Map<PortablePath, byte[]> files = Bundles.maximal("maximal");
        dir = Bundles.write(base.resolve("maximal"), files);
        paths = files.keySet().stream().map(p -> dir.resolve(p.toString())).toList();
        contents = List.copyOf(files.values());
        Revision expected = Revision.compute(files);
        try (SkillArtifact artifact = capture(dir)) {
            if (!artifact.revision().equals(expected) || !artifact.executionAvailable()) {
                throw new IllegalStateException(
                        "the maximal bundle must capture completely: " + artifact.executionProblems());
            }
        }
    }

    @TearDown
    public void tearDown() {
        Bundles.deleteTree(base);
    }

    /** Captures {@code dir} and fails unless the capture succeeded. */
    public static SkillArtifact capture(Path dir) {
        CaptureOutcome outcome = SkillArtifact.capture(dir);
        return outcome.artifact().orElseThrow(() -> new IllegalStateException("capture failed: " + outcome.problem()));
    }

    @Benchmark
    public Revision captureAndRevision() {
        try (SkillArtifact artifact = capture(dir)) {
            return artifact.revision();
        }
    }

    @Benchmark
    public byte[] baselineMessageDigest() {
        MessageDigest md = Sha256Digest.newMessageDigest();
        for (byte[] c : contents) {
            md.update(c);
        }
        return md.digest();
    }

    @Benchmark
    public byte[] baselineReadAndDigest() throws IOException {
        MessageDigest md = Sha256Digest.newMessageDigest();
        for (Path p : paths) {
            md.update(Files.readAllBytes(p));
        }
        return md.digest();
    }
}
