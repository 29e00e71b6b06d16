package dev.skillgate.audit.internal;

import dev.skillgate.audit.AppendResult;
import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditLogOptions;
import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.Fixtures;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Audit log benchmark harness (not a test): verification of 100,000 records, and committed appends
 * per second beside raw {@code FileChannel.force} on the same disk in the same run. Figures go to
 * {@code docs/performance.md}.
 *
 * <p>Run: {@code mvn -B -o -q -pl skill-audit -am test-compile} then {@code java -cp
 * <test class path> dev.skillgate.audit.internal.AuditBenchmark [DIR]} (see docs/performance.md).
 */
public final class AuditBenchmark {
    private AuditBenchmark() {}

    public static void main(String[] args) throws Exception {
        Path base = args.length > 0 ? Path.of(args[0]) : Path.of("target", "audit-benchmark");
        deleteTree(base);
        Files.createDirectories(base);
        System.out.printf(
                Locale.ROOT,
                "java %s, %d CPUs, dir %s%n",
                System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(),
                base.toAbsolutePath());

        // 1. Verify 100,000 records: every record a distinct scope (worst case for memory), and a
        // realistic shape (1,000 scopes approved, revoked, consumed and re-approved over and over).
        LogBuilder b = null;
        for (String shape : List.of("distinct", "realistic")) {
            Path big = base.resolve(shape);
            LogBuilder lb = new LogBuilder(1);
            for (int i = 0; i < 100_000; i++) {
                lb.add(event(shape, i));
            }
            byte[] log = lb.log();
            lb.writeTo(big, log, lb.head());
            b = lb;
            System.out.printf(Locale.ROOT, "%n[%s] log: 100000 records, %.1f MB%n", shape, log.length / 1e6);
            verifyFigures(big, lb);
        }
        System.out.println();
        Hello.baseline(base.resolve("distinct").resolve("audit.log"));

        // 2. Committed appends per second vs raw force on the same disk.
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 300;
        byte[] record = Arrays.copyOf(b.frames.get(0), b.frames.get(0).length);
        Path rawFile = base.resolve("raw.bin");
        double rawForce = rawForce(rawFile, record, n, false);
        double rawForceMeta = rawForce(rawFile, record, n, true);
        Path appendDir = base.resolve("appends");
        double appends;
        try (AuditLog a = AuditLog.open(appendDir)) {
            for (int i = 0; i < 20; i++) {
                a.approve(Fixtures.prompt(1_000_000 + i));
            }
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                AppendResult r = a.approve(Fixtures.prompt(i));
                if (!r.isCommitted()) {
                    throw new AssertionError(r.toString());
                }
            }
            appends = n / ((System.nanoTime() - t0) / 1e9);
        }
        double rawForceAgain = rawForce(rawFile, record, n, false);
        System.out.printf(
                Locale.ROOT,
                "raw write+force(false) per record: %.0f/s (before), %.0f/s (after)%n",
                rawForce,
                rawForceAgain);
        System.out.printf(Locale.ROOT, "raw write+force(true) per record: %.0f/s%n", rawForceMeta);
        System.out.printf(
                Locale.ROOT,
                "committed appends (log fsync + head tmp fsync + rename + dir fsync): %.0f/s over %d%n",
                appends,
                n);
        deleteTree(base);
    }

    /** Opens a log in a fresh JVM and prints the milliseconds from main() to a verified handle. */
    public static final class ColdOpen {
        private ColdOpen() {}

        public static void main(String[] args) {
            long t0 = System.nanoTime();
            try (AuditLog log = AuditLog.open(AuditLogOptions.builder(Path.of(args[0]))
                    .openWait(Duration.ofSeconds(60))
                    .build())) {
                double ms = (System.nanoTime() - t0) / 1e6;
                System.out.printf(
                        Locale.ROOT,
                        "%.0f ms wall, %.0f ms process CPU since JVM start, state %s, %d records%n",
                        ms,
                        processCpuNanos() / 1e6,
                        log.status().state(),
                        log.status().committedSequence());
            }
        }
    }

    private static AuditEvent event(String shape, int i) {
        if (shape.equals("distinct")) {
            return i % 10 == 9
                    ? new AuditEvent.Revoked(Fixtures.prompt(i - 1))
                    : new AuditEvent.Approved(i % 2 == 0 ? Fixtures.prompt(i) : Fixtures.execution(i));
        }
        int scope = i % 1_000;
        dev.skillgate.audit.TrustScope ts = scope % 2 == 0 ? Fixtures.prompt(scope) : Fixtures.execution(scope);
        return switch ((i / 1_000) % 4) {
            case 0, 2 -> new AuditEvent.Approved(ts);
            case 1 -> new AuditEvent.Revoked(ts);
            default ->
                new AuditEvent.Consumed(
                        dev.skillgate.model.RunId.of("run-" + i),
                        dev.skillgate.model.AgentId.of("agent-" + scope),
                        ts.revision(),
                        dev.skillgate.model.Sha256Digest.hash(new byte[] {(byte) i}));
        };
    }

    private static void verifyFigures(Path big, LogBuilder b) throws Exception {
        // Cold: a fresh JVM opening the log, as a host does at start-up.
        List<Double> cold = new ArrayList<>();
        for (int round = 0; round < 3; round++) {
            Process p = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "-cp",
                            System.getProperty("java.class.path"),
                            ColdOpen.class.getName(),
                            big.toString())
                    .redirectErrorStream(true)
                    .start();
            String line = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
            p.waitFor();
            cold.add(Double.parseDouble(line.split(" ")[0]));
            System.out.println("cold open in a fresh JVM: " + line);
        }
        List<Double> scan = new ArrayList<>();
        List<Double> scanCpu = new ArrayList<>();
        List<Double> open = new ArrayList<>();
        for (int round = 0; round < 7; round++) {
            long c0 = processCpuNanos();
            long t0 = System.nanoTime();
            try (FileChannel ch = FileChannel.open(big.resolve("audit.log"), StandardOpenOption.READ)) {
                LogScanner.Result r = LogScanner.scan(Source.of(ch), Head.parse(b.head()), null);
                if (r.problem != null || r.verifiedSequence != 100_000) {
                    throw new AssertionError("scan failed: " + r.problem);
                }
            }
            scan.add((System.nanoTime() - t0) / 1e6);
            scanCpu.add((processCpuNanos() - c0) / 1e6);
            long t1 = System.nanoTime();
            try (AuditLog opened = AuditLog.open(AuditLogOptions.builder(big)
                    .openWait(Duration.ofSeconds(60))
                    .build())) {
                if (opened.status().state() != AuditState.OK) {
                    throw new AssertionError(opened.status().toString());
                }
            }
            open.add((System.nanoTime() - t1) / 1e6);
        }
        System.out.printf(
                Locale.ROOT,
                "verify 100k (scanner, in-process): wall %s ms; median of runs 2-7 %.0f ms%n",
                fmt(scan),
                median(scan));
        System.out.printf(
                Locale.ROOT,
                "verify 100k (scanner, in-process): process CPU, all threads %s ms; median of runs 2-7 %.0f ms%n",
                fmt(scanCpu),
                median(scanCpu));
        System.out.printf(
                Locale.ROOT,
                "AuditLog.open of 100k in-process (lock, head, verify): wall %s ms; median of runs 2-7 %.0f ms%n",
                fmt(open),
                median(open));
    }

    /** A fresh JVM that only reads and hashes the log file: the floor a cold open cannot beat. */
    public static final class Hello {
        private Hello() {}

        static void baseline(Path file) throws Exception {
            for (int round = 0; round < 3; round++) {
                Process p = new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "java")
                                        .toString(),
                                "-cp",
                                System.getProperty("java.class.path"),
                                Hello.class.getName(),
                                file.toString())
                        .redirectErrorStream(true)
                        .start();
                String line =
                        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
                p.waitFor();
                System.out.println("baseline, fresh JVM reading + SHA-256 of the same file: " + line);
            }
        }

        public static void main(String[] args) throws Exception {
            long t0 = System.nanoTime();
            java.security.MessageDigest md = dev.skillgate.model.Sha256Digest.newMessageDigest();
            byte[] buf = new byte[1 << 20];
            try (java.io.InputStream in = Files.newInputStream(Path.of(args[0]))) {
                int r;
                while ((r = in.read(buf)) > 0) {
                    md.update(buf, 0, r);
                }
            }
            md.digest();
            System.out.printf(
                    Locale.ROOT,
                    "%.0f ms wall, %.0f ms process CPU since JVM start%n",
                    (System.nanoTime() - t0) / 1e6,
                    processCpuNanos() / 1e6);
        }
    }

    private static long processCpuNanos() {
        return ProcessHandle.current().info().totalCpuDuration().orElseThrow().toNanos();
    }

    private static double rawForce(Path file, byte[] record, int n, boolean metadata) throws IOException {
        Files.deleteIfExists(file);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long pos = 0;
            for (int i = 0; i < 20; i++) {
                pos += ch.write(ByteBuffer.wrap(record), pos);
                ch.force(metadata);
            }
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                pos += ch.write(ByteBuffer.wrap(record), pos);
                ch.force(metadata);
            }
            return n / ((System.nanoTime() - t0) / 1e9);
        }
    }

    private static String fmt(List<Double> values) {
        StringBuilder s = new StringBuilder();
        for (double v : values) {
            s.append(s.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.0f", v));
        }
        return s.toString();
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values.subList(1, values.size()));
        sorted.sort(null);
        return sorted.get(sorted.size() / 2);
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path q : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(q);
            }
        }
    }
}
