package dev.skillgate.benchmarks.launch;

import dev.skillgate.benchmarks.Machine;
import dev.skillgate.benchmarks.NodeHost;
import dev.skillgate.benchmarks.Stats;
import dev.skillgate.model.PortablePath;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The module guard's own cost per launch (decision 0510), as the CPU time Node reports for itself
 * ({@code process.cpuUsage()}, user + system, all threads) at the end of the entrypoint: the
 * runner's exact argv with the guard against the same argv without it, for a one-file skill and a
 * 64-file skill, interleaved and paired per round. CPU time, not wall time, because a 1–2 ms
 * difference drowns in a shared 2-core machine's scheduling noise (the {@code launch} harness
 * reports the wall figures); CPU time still grows somewhat with contention (caches).
 *
 * <p>Not measured: the JVM side (building the URL, a few tens of microseconds), which the {@code
 * launch} harness's runner variant includes.
 */
public final class GuardCost {
    private GuardCost() {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
        System.out.println("machine: " + Machine.describe());
        Path base = Files.createTempDirectory("skillgate-guard-cost-");
        try {
            run(base, rounds);
        } finally {
            NodeHost.deleteTree(base);
        }
    }

    private static final String REPORT =
            "const u = process.cpuUsage(); process.stdout.write(JSON.stringify({ cpu: (u.user + u.system) / 1000 }));\n";

    private static void run(Path base, int rounds) throws Exception {
        String version = NodeHost.version();
        Map<PortablePath, byte[]> one = new LinkedHashMap<>();
        PortablePath entry = PortablePath.of("entry.mjs");
        one.put(
                entry,
                ("import { readFileSync } from 'node:fs';\nreadFileSync(0);\n" + REPORT)
                        .getBytes(StandardCharsets.UTF_8));
        Map<PortablePath, byte[]> wide = LaunchOverhead.wideBundle(LaunchOverhead.WIDE_FILES);
        String wideEntry = new String(wide.get(LaunchOverhead.WIDE_ENTRY), StandardCharsets.UTF_8)
                .replace("process.stdout.write(JSON.stringify({ echo: input }));\n", REPORT);
        wide.put(LaunchOverhead.WIDE_ENTRY, wideEntry.getBytes(StandardCharsets.UTF_8));

        Map<String, List<String>> variants = new LinkedHashMap<>();
        for (Map.Entry<String, Map<PortablePath, byte[]>> skill :
                Map.of("one-file skill", one, "64-file skill", wide).entrySet()) {
            Path dir = Files.createDirectories(base.resolve(skill.getKey().replace(' ', '-')));
            for (Map.Entry<PortablePath, byte[]> f : skill.getValue().entrySet()) {
                Path p = f.getKey().resolveUnder(dir);
                Files.createDirectories(p.getParent());
                Files.write(p, f.getValue());
            }
            Path entryFile = entry.resolveUnder(dir);
            List<String> guarded = LaunchOverhead.guarded(version, dir, entryFile, entry, skill.getValue());
            List<String> plain = new ArrayList<>(guarded);
            int at = plain.indexOf("--import");
            plain.remove(at + 1);
            plain.remove(at);
            plain.remove("--expose-internals");
            variants.put(skill.getKey() + ", runner's argv without the guard", plain);
            variants.put(skill.getKey() + ", runner's argv", guarded);
        }
        Map<String, List<Double>> cpu = new LinkedHashMap<>();
        variants.keySet().forEach(k -> cpu.put(k, new ArrayList<>()));
        Map<String, List<Double>> added = new LinkedHashMap<>();
        List<String> names = new ArrayList<>(variants.keySet());
        for (int round = -3; round < rounds; round++) {
            Map<String, Double> thisRound = new LinkedHashMap<>();
            for (int k = 0; k < names.size(); k++) {
                String name = names.get((k + Math.floorMod(round, names.size())) % names.size());
                thisRound.put(name, cpuOf(variants.get(name), base));
            }
            if (round >= 0) {
                thisRound.forEach((k, v) -> cpu.get(k).add(v));
                for (int i = 1; i < names.size(); i += 2) {
                    added.computeIfAbsent(names.get(i), x -> new ArrayList<>())
                            .add(thisRound.get(names.get(i)) - thisRound.get(names.get(i - 1)));
                }
            }
        }
        System.out.printf(Locale.ROOT, "%nnode %s; %d rounds after 3 warm-up rounds, interleaved%n%n", version, rounds);
        System.out.println(
                "| variant | Node's CPU time, ms: median (p25–p75) | min | the guard's cost, paired per round:"
                        + " median (p25–p75) |");
        System.out.println("|---|---:|---:|---:|");
        for (String name : names) {
            List<Double> v = cpu.get(name);
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %s | %.2f | %s |%n",
                    name,
                    Stats.medianWithQuartiles(v, "%.2f"),
                    v.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
                    added.containsKey(name) ? Stats.medianWithQuartiles(added.get(name), "%+.2f") + " ms" : "—");
        }
    }

    private static double cpuOf(List<String> argv, Path cwd) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(argv);
        pb.environment().clear();
        pb.directory(cwd.toFile());
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        p.getOutputStream().write("{}".getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0 || !out.startsWith("{\"cpu\":")) {
            throw new IllegalStateException("node failed: " + out);
        }
        return Double.parseDouble(out.substring(7, out.length() - 1));
    }
}
