package dev.skillgate.benchmarks.ratios;

import com.networknt.schema.Schema;
import dev.skillgate.benchmarks.Machine;
import dev.skillgate.benchmarks.PairedRounds;
import dev.skillgate.benchmarks.Stats;
import dev.skillgate.benchmarks.corpus.Bundles;
import dev.skillgate.benchmarks.corpus.ProtocolWorkloads;
import dev.skillgate.benchmarks.jmh.AuditBenchmark;
import dev.skillgate.benchmarks.jmh.ProtocolBenchmark;
import dev.skillgate.inspect.SkillValidator;
import dev.skillgate.inspect.ValidationProfile;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.protocol.CompiledSchema;
import dev.skillgate.protocol.SchemaGate;
import dev.skillgate.protocol.SchemaRole;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * The SPEC §17 targets that are ratios to a baseline (or rates), measured as paired rounds
 * ({@link PairedRounds}): each operation and its baseline alternate every ~10 ms, and the ratio is
 * taken per round, so both always see the same load. The JMH benchmarks measure the same operations
 * with error bars; this harness is what the summary's "met / not met" reads, because sequential JMH
 * runs on a shared machine can put the target and its baseline under different loads.
 */
public final class TargetRatios {
    private static final JsonMapper PLAIN = JsonMapper.builder().build();

    private TargetRatios() {}

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 10;
        System.out.println("machine: " + Machine.describe());
        System.out.printf(
                Locale.ROOT, "%.0f s per comparison (a quarter of it warm-up), rounds of ~10 ms%n%n", seconds);
        System.out.println(
                "| measurement | figure, median (p25–p75) | baseline (same rounds), median | ratio per round,"
                        + " median (p25–p75) | SPEC §17 target | met |");
        System.out.println("|---|---:|---:|---:|---|---|");
        Path base = Files.createTempDirectory("skillgate-ratios-");
        try {
            inspection(base, seconds);
            protocol(seconds);
            revision(seconds);
            CaptureRatio.print(base, seconds);
            audit(base, seconds);
        } finally {
            Bundles.deleteTree(base);
        }
        System.out.println();
        System.out.println("Ratios: figure ÷ baseline per round (for rates, baseline ÷ figure: how much of the"
                + " baseline's rate is kept).");
    }

    private static void inspection(Path base, double seconds) throws Exception {
        int n = 1_000;
        List<Path> dirs = Bundles.writeSmall(base.resolve("inspection"), n);
        Map<String, PairedRounds.Op> ops = new LinkedHashMap<>();
        ops.put("validate", () -> {
            int valid = 0;
            for (Path d : dirs) {
                valid += SkillValidator.validate(d, ValidationProfile.STRICT).portable() ? 1 : 0;
            }
            if (valid != n) {
                throw new IllegalStateException("every bundle must be valid");
            }
            return valid;
        });
        ops.put("read", () -> {
            long bytes = 0;
            for (Path d : dirs) {
                bytes += Files.readAllBytes(d.resolve("SKILL.md")).length;
            }
            return bytes;
        });
        Map<String, List<Double>> s = PairedRounds.measure(ops, seconds);
        List<Double> rate = s.get("validate").stream().map(ns -> n / (ns / 1e9)).toList();
        List<Double> readRate = s.get("read").stream().map(ns -> n / (ns / 1e9)).toList();
        double median = Stats.median(rate);
        row(
                "inspection: `SkillValidator.validate` (strict) of 1,000 small bundles on disk, bundles/s",
                Stats.medianWithQuartiles(rate, "%,.0f"),
                String.format(Locale.ROOT, "%,.0f (`Files.readAllBytes` of each `SKILL.md`)", Stats.median(readRate)),
                Stats.medianWithQuartiles(PairedRounds.ratios(s.get("validate"), s.get("read")), "%.1f") + "× the read",
                "≥ 5,000 bundles/s, warm",
                median >= 5_000);
    }

    private static void protocol(double seconds) throws Exception {
        for (ProtocolWorkloads.Workload w : ProtocolWorkloads.all()) {
            CompiledSchema compiled = SchemaGate.compile(SchemaRole.INPUT, w.schemaJson())
                    .compiled()
                    .orElseThrow();
            Schema same = ProtocolBenchmark.validatorSchema(compiled);
            byte[] input = w.input();
            Map<String, PairedRounds.Op> ops = new LinkedHashMap<>();
            ops.put("gate", () -> compiled.checkInvocation(input).isValid());
            ops.put("networknt", () -> same.validate(PLAIN.readTree(input)).isEmpty());
            Map<String, List<Double>> s = PairedRounds.measure(ops, seconds);
            List<Double> ratio = PairedRounds.ratios(s.get("gate"), s.get("networknt"));
            row(
                    "protocol: `checkInvocation` (gate + networknt), " + w.label() + ", µs",
                    Stats.medianWithQuartiles(micros(s.get("gate")), "%.2f"),
                    String.format(
                            Locale.ROOT,
                            "%.2f (`readTree` + `validate`, same compiled schema)",
                            Stats.median(micros(s.get("networknt")))),
                    Stats.medianWithQuartiles(ratio, "%.3f"),
                    "≤ 1.10",
                    Stats.median(ratio) <= 1.10);
        }
    }

    private static void revision(double seconds) throws Exception {
        Map<PortablePath, byte[]> files = Bundles.maximal("maximal");
        List<byte[]> contents = List.copyOf(files.values());
        Map<String, PairedRounds.Op> ops = new LinkedHashMap<>();
        ops.put("revision", () -> Revision.compute(files));
        ops.put("digest", () -> digest(contents));
        Map<String, List<Double>> s = PairedRounds.measure(ops, seconds);
        List<Double> kept = PairedRounds.ratios(s.get("digest"), s.get("revision"));
        row(
                "revision in memory (`Revision.compute`, 64 files, 4 MiB), ms",
                Stats.medianWithQuartiles(millis(s.get("revision")), "%.2f"),
                String.format(Locale.ROOT, "%.2f (raw `MessageDigest`)", Stats.median(millis(s.get("digest")))),
                Stats.medianWithQuartiles(kept, "%.2f") + " of the raw rate",
                "(framing only; the target is capture + revision)",
                null);
    }

    private static void audit(Path base, double seconds) throws Exception {
        AuditBenchmark.Verify verify = new AuditBenchmark.Verify();
        verify.shape = "realistic";
        verify.setUp();
        try {
            Path log = verify.logDirectory();
            Map<String, PairedRounds.Op> ops = new LinkedHashMap<>();
            ops.put("verify", () -> AuditBenchmark.openAndVerify(log));
            ops.put("hash", () -> readAndHash(log.resolve("audit.log")));
            Map<String, List<Double>> s = PairedRounds.measure(ops, Math.max(seconds, 12));
            List<Double> ms = millis(s.get("verify"));
            row(
                    "audit: verify 100,000 records (`AuditLog.open`, read-only, to `OK`), warm JVM, ms",
                    Stats.medianWithQuartiles(ms, "%.0f"),
                    String.format(
                            Locale.ROOT, "%.0f (read + SHA-256 of the same file)", Stats.median(millis(s.get("hash")))),
                    Stats.medianWithQuartiles(PairedRounds.ratios(s.get("verify"), s.get("hash")), "%.1f") + "×",
                    "< 1 s",
                    Stats.median(ms) < 1_000);
        } finally {
            verify.tearDown();
        }
        AuditBenchmark.Append append = new AuditBenchmark.Append();
        append.setUp();
        try {
            Map<String, PairedRounds.Op> ops = new LinkedHashMap<>();
            ops.put("append", () -> append.approveNext());
            ops.put("force", () -> append.rawWriteAndForce());
            Map<String, List<Double>> s = PairedRounds.measure(ops, seconds);
            List<Double> rate = s.get("append").stream().map(ns -> 1e9 / ns).toList();
            List<Double> raw = s.get("force").stream().map(ns -> 1e9 / ns).toList();
            row(
                    "audit: committed appends (`approve`: log `force(false)`, head temp `force(true)`, rename,"
                            + " directory `fsync`), per second",
                    Stats.medianWithQuartiles(rate, "%,.0f"),
                    String.format(
                            Locale.ROOT, "%,.0f (raw 320-byte `write` + `force(false)`, same disk)", Stats.median(raw)),
                    Stats.medianWithQuartiles(PairedRounds.ratios(s.get("force"), s.get("append")), "%.2f")
                            + " of the raw rate",
                    "report the rate",
                    null);
        } finally {
            append.tearDown();
        }
    }

    static void row(String what, String figure, String baseline, String ratio, String target, Boolean met) {
        System.out.printf(
                Locale.ROOT,
                "| %s | %s | %s | %s | %s | %s |%n",
                what,
                figure,
                baseline,
                ratio,
                target,
                met == null ? "—" : met ? "**met**" : "**not met**");
    }

    static List<Double> micros(List<Double> nanos) {
        return nanos.stream().map(ns -> ns / 1e3).toList();
    }

    static List<Double> millis(List<Double> nanos) {
        return nanos.stream().map(ns -> ns / 1e6).toList();
    }

    static byte[] digest(List<byte[]> contents) {
        MessageDigest md = Sha256Digest.newMessageDigest();
        for (byte[] c : contents) {
            md.update(c);
        }
        return md.digest();
    }

    private static byte[] readAndHash(Path file) throws Exception {
        MessageDigest md = Sha256Digest.newMessageDigest();
        byte[] buffer = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file)) {
            int n;
            while ((n = in.read(buffer)) > 0) {
                md.update(buffer, 0, n);
            }
        }
        return md.digest();
    }
}
