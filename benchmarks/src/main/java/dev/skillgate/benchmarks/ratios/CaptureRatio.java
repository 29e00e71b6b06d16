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

    static void print(Path base, double seconds) throws Exception {
        Map<PortablePath, byte[]> files = Bundles.maximal("maximal");
        Path dir = Bundles.write(base.resolve("maximal"), files);
        List<byte[]> contents = List.copyOf(files.values());
        List<Path> paths =
                files.keySet().stream().map(p -> dir.resolve(p.toString())).toList();
        Map<String, PairedRounds.Op> ops = new LinkedHashMap<>();
        ops.put("capture", () -> {
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
        Map<String, List<Double>> s = PairedRounds.measure(ops, seconds);
        List<Double> kept = PairedRounds.ratios(s.get("digest"), s.get("capture"));
        double mib = contents.stream().mapToLong(b -> b.length).sum() / 1048576.0;
        TargetRatios.row(
                "capture + revision of a maximal bundle (66 files, 4 MiB, page cache), ms",
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
