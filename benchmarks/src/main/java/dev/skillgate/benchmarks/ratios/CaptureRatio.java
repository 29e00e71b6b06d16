package dev.skillgate.benchmarks.ratios;

import java.nio.file.Path;

/** Capture + revision against raw SHA-256; needs the artifact capture API (skill-inspect, branch capture). */
final class CaptureRatio {
    private CaptureRatio() {}

    static void print(Path base, double seconds) {
        TargetRatios.row(
                "capture + revision of a maximal bundle (64 files, 4 MiB)",
                "not measured in this build (`SkillArtifact` is not on this branch yet)",
                "",
                "",
                "≥ 0.80 of raw `MessageDigest` throughput",
                null);
    }
}
