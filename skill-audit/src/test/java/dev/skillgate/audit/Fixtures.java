package dev.skillgate.audit;

import dev.skillgate.model.AgentId;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.SkillName;
import dev.skillgate.model.Timeout;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/** Scopes, file surgery and child JVMs shared by the audit tests. */
public final class Fixtures {
    private Fixtures() {}

    /** A prompt-skill scope determined by {@code n}. */
    public static PromptSkillScope prompt(int n) {
        return new PromptSkillScope(
                AgentId.of("agent-" + (n % 3)),
                SkillName.of("skill-" + n),
                n % 2 == 0
                        ? Optional.empty()
                        : Optional.of(Sha256Digest.hash(("contract " + n).getBytes(StandardCharsets.UTF_8))),
                Revision.parse(Sha256Digest.hash(("revision " + n).getBytes(StandardCharsets.UTF_8))
                        .toString()));
    }

    /** An execution scope determined by {@code n}. */
    public static ExecutionScope execution(int n) {
        Random r = new Random(n);
        return new ExecutionScope(
                Revision.parse(Sha256Digest.hash(("revision " + n).getBytes(StandardCharsets.UTF_8))
                        .toString()),
                AgentId.of("agent-" + n),
                Sha256Digest.hash(("workspace " + n).getBytes(StandardCharsets.UTF_8)),
                new Timeout(1_000 + r.nextInt(100_000)),
                new OutputLimit(1 + r.nextInt(OutputLimit.MAX_BYTES)),
                new UUID(r.nextLong(), r.nextLong()),
                Instant.ofEpochMilli(1_700_000_000_000L + r.nextInt(1_000_000)));
    }

    private static Sha256Digest digest(String text) {
        return Sha256Digest.hash(text.getBytes(StandardCharsets.UTF_8));
    }

    /** A settlement record determined by {@code n} (odd: early delivery, cleanup unknown, codes). */
    public static AuditEvent.Settled settled(int n) {
        boolean odd = n % 2 == 1;
        return new AuditEvent.Settled(
                RunId.of("run-" + n),
                AgentId.of("agent-" + n),
                prompt(n).revision(),
                AuditEvent.Settled.Authority.values()[n % 3],
                odd ? ExecutionStatus.CLEANUP_UNKNOWN : ExecutionStatus.SUCCEEDED,
                odd ? CleanupStatus.UNKNOWN : CleanupStatus.PROVEN,
                HardeningLayer.values()[n % 3],
                odd
                        ? List.of(ErrorCode.EXEC_CANCELLED, ErrorCode.CLEANUP_UNKNOWN, ErrorCode.STAGING_RETAINED)
                        : List.of(),
                odd);
    }

    /** A resolution record determined by {@code n} (odd: with revision and supervisor). */
    public static AuditEvent.Resolved resolved(int n) {
        boolean odd = n % 2 == 1;
        return new AuditEvent.Resolved(
                RunId.of("run-" + n),
                odd ? Optional.of(prompt(n).revision()) : Optional.empty(),
                String.format("%032x", n + 1),
                new AuditEvent.DeadProcess(1000 + n, "jdk:" + (1_700_000_000_000L + n)),
                odd ? Optional.of(new AuditEvent.DeadProcess(2000 + n, "4711" + n)) : Optional.empty());
    }

    /** A plan approval determined by {@code n}. */
    public static AuditEvent.PlanApproved planApproved(int n) {
        return new AuditEvent.PlanApproved(
                RunId.of("run-" + n),
                AgentId.of("agent-" + n),
                digest("workspace " + n),
                digest("plan " + n),
                1 + n % 64);
    }

    /** A plan step consumption determined by {@code n}. */
    public static AuditEvent.PlanStepConsumed planStep(int n) {
        return new AuditEvent.PlanStepConsumed(
                RunId.of("run-" + n),
                AgentId.of("agent-" + n),
                prompt(n).revision(),
                digest("binding " + n),
                digest("plan " + n),
                n % 64);
    }

    /** One record of each evidence type added for settlements, resolutions and plans. */
    public static List<AuditEvent> evidence(int n) {
        return List.of(settled(n), resolved(n), planApproved(n), planStep(n));
    }

    /** Opens a writer with a short wait and asserts nothing; the caller checks the status. */
    public static AuditLog open(Path dir) {
        return AuditLog.open(
                AuditLogOptions.builder(dir).openWait(Duration.ofSeconds(30)).build());
    }

    public static byte[] read(Path p) throws IOException {
        return Files.readAllBytes(p);
    }

    public static void write(Path p, byte[] bytes) throws IOException {
        Files.write(p, bytes);
    }

    public static void flipBit(Path p, long offset, int bit) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.seek(offset);
            int b = f.read();
            f.seek(offset);
            f.write(b ^ (1 << bit));
        }
    }

    public static void truncate(Path p, long length) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.setLength(length);
        }
    }

    public static void append(Path p, byte[] bytes) throws IOException {
        Files.write(p, bytes, java.nio.file.StandardOpenOption.APPEND);
    }

    /** Frame boundaries of a valid log: offsets of each frame start, plus the end. */
    public static List<Long> frameOffsets(byte[] log) {
        List<Long> out = new ArrayList<>();
        long pos = 32;
        while (pos + 13 <= log.length) {
            out.add(pos);
            int len = java.nio.ByteBuffer.wrap(log, (int) pos, 4).getInt();
            pos += 49 + len;
        }
        out.add(pos);
        return out;
    }

    /** The process-wide user is root (permission-denied behaviour cannot be observed). */
    public static boolean runningAsRoot() {
        try {
            Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            return Integer.valueOf(0).equals(uid);
        } catch (IOException | UnsupportedOperationException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    /** Starts {@code main} in a child JVM with this test's class path. */
    public static Process startJvm(Class<?> main, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Xshare:auto");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main.getName());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        return pb.start();
    }

    /** Waits for a child JVM to end (at most 60 s) and returns its exit code. */
    public static int await(Process p) throws InterruptedException {
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("child JVM did not finish");
        }
        return p.exitValue();
    }
}
