package dev.skillgate.inspect;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToIntFunction;
import java.util.stream.Stream;

/**
 * A simple inspection benchmark (SPEC §17 target: ≥ 5,000 small bundles per second on 2 cores,
 * warm), until the benchmarks module exists. Not a test: run it by hand (command in {@code
 * docs/performance.md}). Writes 10,000 synthetic bundles to a temporary directory, warms up, then
 * times several passes of: the baseline (plain {@code Files.readAllBytes} of every {@code SKILL.md},
 * no checks), {@link SkillValidator#validate} under both profiles, and {@link SkillDiscovery} over
 * the whole root. Prints the median bundles per second of each.
 */
public final class InspectionBenchmarkMain {
    private InspectionBenchmarkMain() {}

    public static void main(String[] args) throws IOException {
        int bundles = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int passes = args.length > 2 ? Integer.parseInt(args[2]) : 7;
        Path root = Files.createTempDirectory("skillgate-bench-");
        try {
            List<Path> dirs = write(root, bundles);
            System.out.printf(
                    "bundles=%d warmup=%d passes=%d cpus=%d java=%s%n",
                    bundles,
                    warmup,
                    passes,
                    Runtime.getRuntime().availableProcessors(),
                    System.getProperty("java.version"));
            measure("baseline: Files.readAllBytes(SKILL.md)", dirs, warmup, passes, d -> {
                try {
                    return Files.readAllBytes(d.resolve("SKILL.md")).length > 0 ? 1 : 0;
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            measure(
                    "SkillValidator.validate STRICT",
                    dirs,
                    warmup,
                    passes,
                    d -> check(SkillValidator.validate(d, ValidationProfile.STRICT)));
            measure(
                    "SkillValidator.validate REFERENCE_COMPATIBLE",
                    dirs,
                    warmup,
                    passes,
                    d -> check(SkillValidator.validate(d, ValidationProfile.REFERENCE_COMPATIBLE)));
            DiscoveryOptions options = DiscoveryOptions.builder()
                    .root(root)
                    .maxEntriesPerRoot(DiscoveryOptions.MAX_ENTRIES)
                    .build();
            measure("SkillDiscovery.discover (whole root)", List.of(root), warmup, passes, r -> {
                int found = SkillDiscovery.discover(options).skills().size();
                if (found != bundles) {
                    throw new IllegalStateException("found " + found);
                }
                return found;
            });
        } finally {
            try (Stream<Path> walk = Files.walk(root)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static int check(ValidationReport report) {
        if (!report.portable()) {
            throw new IllegalStateException("unexpected: " + report.diagnostics());
        }
        return 1;
    }

    private static void measure(String label, List<Path> inputs, int warmup, int passes, ToIntFunction<Path> work) {
        long[] nanos = new long[passes];
        int units = 0;
        for (int pass = -warmup; pass < passes; pass++) {
            long start = System.nanoTime();
            int count = 0;
            for (Path p : inputs) {
                count += work.applyAsInt(p);
            }
            long elapsed = System.nanoTime() - start;
            if (pass >= 0) {
                nanos[pass] = elapsed;
                units = count;
            }
        }
        Arrays.sort(nanos);
        double median = nanos[passes / 2] / 1e9;
        double best = nanos[0] / 1e9;
        System.out.printf(
                "%-46s median %8.0f bundles/s (%.3f s/pass), best %8.0f bundles/s%n",
                label, units / median, median, units / best);
    }

    private static List<Path> write(Path root, int count) throws IOException {
        List<Path> dirs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String name = String.format("skill-%05d", i);
            Path dir = Files.createDirectories(root.resolve(name));
            String skillMd = "---\nname: " + name + "\ndescription: Synthetic skill number " + i
                    + ". Use when benchmarking Skillgate inspection of many small bundles.\nlicense: Apache-2.0\n"
                    + "compatibility: Requires Node.js 18+\nallowed-tools: Read Bash(git:*)\nmetadata:\n"
                    + "  author: bench\n  version: \"1." + (i % 10) + "\"\n---\n# " + name
                    + "\n\nStep one. Step two. See references/REFERENCE.md.\n";
            Files.writeString(dir.resolve("SKILL.md"), skillMd, StandardCharsets.UTF_8);
            Files.createDirectories(dir.resolve("references"));
            Files.writeString(dir.resolve("references/REFERENCE.md"), "Details for " + name + "\n");
            Files.createDirectories(dir.resolve("scripts"));
            Files.writeString(dir.resolve("scripts/run.mjs"), "console.log(JSON.stringify({ok:true}));\n");
            dirs.add(dir);
        }
        return dirs;
    }
}
