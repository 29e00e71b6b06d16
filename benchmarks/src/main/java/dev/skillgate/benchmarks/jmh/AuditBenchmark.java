package dev.skillgate.benchmarks.jmh;

import dev.skillgate.audit.AppendResult;
import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditLogOptions;
import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.AuditStatus;
import dev.skillgate.audit.ExecutionScope;
import dev.skillgate.audit.PromptSkillScope;
import dev.skillgate.audit.TrustScope;
import dev.skillgate.benchmarks.corpus.Bundles;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import dev.skillgate.model.Timeout;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The trust audit log (SPEC §17: verify 100,000 records in &lt; 1 s; appends with {@code force()}
 * report their rate). Two groups, each with its baseline from the same fork:
 *
 * <ul>
 *   <li><b>Verify</b> ({@link Verify}): {@link AuditLog#openReadOnly} of a 100,000-record log and
 *       waiting for verification, against reading the same file and hashing it with SHA-256. The
 *       log is written through the public API (on {@code /dev/shm} when it exists, so that 300,000
 *       fsyncs do not take minutes), then copied to the default temporary directory, where it is
 *       verified. {@code realistic}: 1,000 scopes approved, revoked, consumed and re-approved in
 *       turns; {@code distinct}: every record a different scope (the worst case for memory).
 *   <li><b>Append</b> ({@link Append}): a committed {@link AuditLog#approve} (frame
 *       {@code force(false)}, head temp file {@code force(true)}, atomic rename, directory
 *       {@code fsync}) against a raw {@code FileChannel.write} + {@code force(false)} of a record of
 *       the same size, on the same disk.
 * </ul>
 */
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class AuditBenchmark {
    static final int RECORDS = 100_000;

    /** State of the verify group: one log of {@value #RECORDS} records on disk. */
    @State(Scope.Benchmark)
    public static class Verify {
        @Param({"realistic", "distinct"})
        public String shape;

        Path base;
        Path log;

        @Setup
        public void setUp() throws IOException {
            base = Files.createTempDirectory("skillgate-jmh-audit-");
            Path shm = Path.of("/dev/shm");
            Path build = Files.isDirectory(shm) && Files.isWritable(shm)
                    ? Files.createTempDirectory(shm, "skillgate-jmh-audit-")
                    : Files.createTempDirectory(base, "build-");
            try {
                Path dir = build.resolve("audit");
                try (AuditLog writer = AuditLog.open(AuditLogOptions.builder(dir)
                        .openWait(Duration.ofSeconds(60))
                        .build())) {
                    for (int i = 0; i < RECORDS; i++) {
                        AppendResult r = append(writer, shape, i);
                        if (!r.isCommitted()) {
                            throw new IllegalStateException("append " + i + " failed: " + r);
                        }
                    }
                }
                log = base.resolve("audit");
                Files.createDirectory(
                        log, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                for (String name : new String[] {"audit.log", "audit.head"}) {
                    Files.copy(dir.resolve(name), log.resolve(name));
                    Files.setPosixFilePermissions(log.resolve(name), PosixFilePermissions.fromString("rw-------"));
                }
            } finally {
                Bundles.deleteTree(build);
            }
            AuditStatus status = openAndVerify(log);
            if (status.state() != AuditState.OK || status.committedSequence() != RECORDS) {
                throw new IllegalStateException("the benchmark log must verify: " + status);
            }
        }

        @TearDown
        public void tearDown() {
            Bundles.deleteTree(base);
        }

        /** The verified log's directory (after {@link #setUp()}). */
        public Path logDirectory() {
            return log;
        }
    }

    /** State of the append group: an open writer and a raw file on the same disk. */
    @State(Scope.Benchmark)
    public static class Append {
        Path base;
        AuditLog writer;
        FileChannel raw;
        byte[] record;
        int next;

        @Setup
        public void setUp() throws IOException {
            base = Files.createTempDirectory("skillgate-jmh-append-");
            writer = AuditLog.open(AuditLogOptions.builder(base.resolve("audit"))
                    .openWait(Duration.ofSeconds(60))
                    .build());
            raw = FileChannel.open(base.resolve("raw.bin"), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            // About the size of a committed approve frame (~320 bytes).
            record = new byte[320];
        }

        @TearDown
        public void tearDown() throws IOException {
            writer.close();
            raw.close();
            Bundles.deleteTree(base);
        }

        /** One committed approval of a new scope; fails unless it was committed. */
        public AppendResult approveNext() {
            AppendResult r = writer.approve(prompt(next++));
            if (!r.isCommitted()) {
                throw new IllegalStateException("append failed: " + r);
            }
            return r;
        }

        /** One raw record write and {@code force(false)}. */
        public int rawWriteAndForce() throws IOException {
            int n = raw.write(ByteBuffer.wrap(record));
            raw.force(false);
            return n;
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public AuditStatus verify100k(Verify state) {
        return openAndVerify(state.log);
    }

    /** Baseline: read the same log file and SHA-256 it. */
    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public byte[] baselineReadAndHash100k(Verify state) throws IOException {
        MessageDigest md = Sha256Digest.newMessageDigest();
        byte[] buffer = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(state.log.resolve("audit.log"))) {
            int n;
            while ((n = in.read(buffer)) > 0) {
                md.update(buffer, 0, n);
            }
        }
        return md.digest();
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public AppendResult appendCommitted(Append state) {
        return state.approveNext();
    }

    /** Baseline: one raw record write and {@code force(false)}, on the same disk. */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public int baselineWriteForce(Append state) throws IOException {
        return state.rawWriteAndForce();
    }

    /** Opens {@code dir} read-only and waits for verification; fails unless the log is {@code OK}. */
    public static AuditStatus openAndVerify(Path dir) {
        try (AuditLog log = AuditLog.open(AuditLogOptions.builder(dir)
                .readOnly(true)
                .openWait(Duration.ofSeconds(60))
                .build())) {
            AuditStatus status = log.awaitReady(Duration.ofSeconds(60));
            if (status.state() != AuditState.OK) {
                throw new IllegalStateException("verification failed: " + status);
            }
            return status;
        }
    }

    static AppendResult append(AuditLog writer, String shape, int i) {
        if (shape.equals("distinct")) {
            return i % 10 == 9 ? writer.revoke(prompt(i - 1)) : writer.approve(i % 2 == 0 ? prompt(i) : execution(i));
        }
        int scope = i % 1_000;
        TrustScope ts = scope % 2 == 0 ? prompt(scope) : execution(scope);
        return switch ((i / 1_000) % 4) {
            case 0, 2 -> writer.approve(ts);
            case 1 -> writer.revoke(ts);
            default ->
                writer.recordConsumption(new AuditEvent.Consumed(
                        RunId.of("run-" + i),
                        AgentId.of("agent-" + scope),
                        ts.revision(),
                        Sha256Digest.hash(utf8("binding " + i))));
        };
    }

    static PromptSkillScope prompt(int n) {
        return new PromptSkillScope(
                AgentId.of("agent-" + (n % 3)),
                SkillName.of("skill-" + n),
                n % 2 == 0 ? Optional.empty() : Optional.of(Sha256Digest.hash(utf8("contract " + n))),
                new Revision(Sha256Digest.hash(utf8("revision " + n))));
    }

    static ExecutionScope execution(int n) {
        java.util.Random r = new java.util.Random(n);
        return new ExecutionScope(
                new Revision(Sha256Digest.hash(utf8("revision " + n))),
                AgentId.of("agent-" + n),
                Sha256Digest.hash(utf8("workspace " + n)),
                new Timeout(1_000 + r.nextInt(100_000)),
                new OutputLimit(1 + r.nextInt(OutputLimit.MAX_BYTES)),
                new UUID(r.nextLong(), r.nextLong()),
                Instant.ofEpochMilli(1_700_000_000_000L + r.nextInt(1_000_000)));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
