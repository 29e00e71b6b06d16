package dev.skillgate.benchmarks.jmh;

import dev.skillgate.benchmarks.corpus.Bundles;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The revision of the maximal bundle (64 files, 4 MiB) computed from bytes already in memory
 * ({@link Revision#compute}: sorting, framing, SHA-256) against the baseline of a raw
 * {@link MessageDigest} SHA-256 over the same bytes. Isolates the framing's cost;
 * {@link CaptureBenchmark} adds the reads.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class RevisionBenchmark {
    private Map<PortablePath, byte[]> files;
    private List<byte[]> contents;

    @Setup
    public void setUp() {
        files = Bundles.maximal("maximal");
        contents = List.copyOf(files.values());
    }

    @Benchmark
    public Revision revisionInMemory() {
        return Revision.compute(files);
    }

    /** Baseline: SHA-256 of the same bytes, one update per file. */
    @Benchmark
    public byte[] baselineMessageDigest() {
        MessageDigest md = Sha256Digest.newMessageDigest();
        for (byte[] c : contents) {
            md.update(c);
        }
        return md.digest();
    }
}
