package dev.skillgate.benchmarks.ratios;

import dev.skillgate.benchmarks.PairedRounds;
import dev.skillgate.benchmarks.Stats;
import dev.skillgate.benchmarks.corpus.Bundles;
import dev.skillgate.benchmarks.jmh.CaptureBenchmark;
import dev.skillgate.inspect.SkillArtifact;
import dev.skillgate.model.PortablePath;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Capture + revision of the maximal bundle against raw SHA-256 of the same bytes, in paired rounds. */
final class CaptureRatio {
    private CaptureRatio() {}

    /**
     * How many cores two threads that both hash really get: 2 × (time alone) ÷ (time of both at
     * once); 2.00 means two free cores. The capture overlaps hashing with reading, so it needs the
     * second one.
     */
    static double cores(List<byte[]> contents) throws InterruptedException {
        for (int i = 0; i < 20; i++) {
            TargetRatios.digest(contents);
        }
        long t0 = System.nanoTime();
        for (int i = 0; i < 10; i++) {
            TargetRatios.digest(contents);
        }
        long alone = System.nanoTime() - t0;
        Thread other = new Thread(() -> {
            for (int i = 0; i < 10; i++) {
                TargetRatios.digest(contents);
            }
        });
        long t1 = System.nanoTime();
        other.start();
        for (int i = 0; i < 10; i++) {
            TargetRatios.digest(contents);
        }
        other.join();
        long both = System.nanoTime() - t1;
        return 2.0 * alone / both;
    }

    static void print(Path base, double seconds) throws Exception {
        Map<PortablePath, byte[]> files = Bundles.maximal("maximal");
        Path dir = Bundles.write(base.resolve("maximal"), files);
        List<byte[]> contents = List.copyOf(files.values());
        List<Path> paths =
                files.keySet().stream().map(p -> dir.resolve(p.toString())).toList();
        long[] captures = {0};
        Map<String, PairedRounds.Op> ops = new LinkedHashMap<>();
        ops.put("capture", () -> {
            captures[0]++;
            try (SkillArtifact a = CaptureBenchmark.capture(dir)) {
                return a.revision();
            }
        });
        ops.put("digest", () -> TargetRatios.digest(contents));
        ops.put("read+digest", () -> {
            java.security.MessageDigest md = dev.skillgate.model.Sha256Digest.newMessageDigest();
            for (Path p : paths) {
                md.update(Files.readAllBytes(p));
            }
            return md.digest();
        });
        double coresBefore = cores(contents);
        long workerBefore = dev.skillgate.inspect.internal.RevisionPipeline.workerHashes();
        long capturesBefore = captures[0];
        Map<String, List<Double>> s = PairedRounds.measure(ops, seconds);
        long workerHashed = dev.skillgate.inspect.internal.RevisionPipeline.workerHashes() - workerBefore;
        long captured = captures[0] - capturesBefore;
        double coresAfter = cores(contents);
        List<Double> kept = PairedRounds.ratios(s.get("digest"), s.get("capture"));
        double mib = contents.stream().mapToLong(b -> b.length).sum() / 1048576.0;
        TargetRatios.row(
                String.format(
                        Locale.ROOT,
                        "capture + revision (+ dispose) of a maximal bundle (66 files, 4 MiB, page cache), ms;"
                                + " revision hashed by the worker in %d of %d captures; cores two hashing threads got:"
                                + " %.2f before, %.2f after",
                        workerHashed,
                        captured,
                        coresBefore,
                        coresAfter),
                Stats.medianWithQuartiles(TargetRatios.millis(s.get("capture")), "%.2f"),
                String.format(
                        Locale.ROOT,
                        "%.2f (raw `MessageDigest` of the bytes in memory, %.0f MiB/s); read + digest %.2f",
                        Stats.median(TargetRatios.millis(s.get("digest"))),
                        mib / (Stats.median(s.get("digest")) / 1e9),
                        Stats.median(TargetRatios.millis(s.get("read+digest")))),
                Stats.medianWithQuartiles(kept, "%.2f") + " of the raw rate",
                "≥ 0.80 of raw `MessageDigest` throughput",
                Stats.median(kept) >= 0.80);
    }
}
