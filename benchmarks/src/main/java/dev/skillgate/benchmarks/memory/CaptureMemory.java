package dev.skillgate.benchmarks.memory;

import java.nio.file.Path;

/** Memory of capturing a maximal bundle; needs the artifact capture API (skill-inspect, branch capture). */
final class CaptureMemory {
    private CaptureMemory() {}

    static void report(Path base) {
        System.out.println();
        System.out.println(
                "capture of a maximal bundle: not measured in this build (SkillArtifact is not on this branch yet)");
    }
}
