package dev.skillgate.benchmarks;

import java.util.Arrays;
import java.util.Locale;

/**
 * The one entry point of the benchmarks module ({@code benchmarks/bench <command> …}, see
 * {@code docs/performance.md}): JMH for the in-process hot paths, and plain harnesses for what JMH
 * cannot measure honestly (process launches, peers in other runtimes, memory, the soak's report).
 *
 * <p>Every harness prints the machine description and a baseline measured in the same run.
 */
public final class Bench {
    private Bench() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            usage();
            System.exit(2);
            return;
        }
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        switch (args[0].toLowerCase(Locale.ROOT)) {
            case "jmh" -> org.openjdk.jmh.Main.main(rest);
            case "ratios" -> dev.skillgate.benchmarks.ratios.TargetRatios.main(rest);
            case "capture" -> dev.skillgate.benchmarks.ratios.CaptureRatio.main(rest);
            case "capture-phases" -> dev.skillgate.benchmarks.ratios.CapturePhases.main(rest);
            case "peers" -> dev.skillgate.benchmarks.peers.PeerComparison.main(rest);
            case "launch" -> dev.skillgate.benchmarks.launch.LaunchOverhead.main(rest);
            case "cli" -> dev.skillgate.benchmarks.cli.CliStartup.main(rest);
            case "guard" -> dev.skillgate.benchmarks.launch.GuardCost.main(rest);
            case "engine-cpu" -> dev.skillgate.benchmarks.launch.EngineCpu.main(rest);
            case "run-path" -> dev.skillgate.benchmarks.launch.RunPathHarness.main(rest);
            case "memory" -> dev.skillgate.benchmarks.memory.MemoryHarness.main(rest);
            case "stores" -> dev.skillgate.benchmarks.stores.StoreBenchmarks.main(rest);
            case "audit-tree" -> dev.skillgate.benchmarks.tree.AuditTreeCost.main(rest);
            case "jmh-table" -> JmhTable.main(rest);
            case "machine" -> System.out.println(Machine.describe());
            default -> {
                usage();
                System.exit(2);
            }
        }
    }

    private static void usage() {
        System.err.println("""
                usage: benchmarks/bench <command> [args]
                  jmh [JMH options]        in-process benchmarks (e.g. jmh -rf json -rff target/jmh.json)
                  ratios [seconds]         SPEC §17 ratio targets as paired rounds (target and baseline interleaved)
                  capture [seconds]        capture + revision against raw SHA-256 alone, with the cores probe
                  capture-phases [rounds]  the capture's phases one after another, CPU time each (bench only)
                  peers [--python-ref DIR] [--no-install]
                                           skills-ref 0.1.5 and ajv 8 on the same inputs (npm, node)
                  launch [rounds]          supervised execute vs bare ProcessBuilder spawn, interleaved
                  cli [rounds]             whole skillgate processes (validate, run --approve) vs node -e 0 and
                                           node hello.mjs (and skills-ref when on PATH), interleaved
                  guard [rounds]           the module guard's CPU time per launch, 1 and 64 files, paired
                  engine-cpu [n] [warmup]  JVM CPU per trusted SkillGate.execute and a 1 ms JFR profile of it
                  run-path [n]             CPU per call of the launch-path pieces of decisions 0870-0872, old beside new
                  memory                   peak heap of a 1 GiB stdout flood; capture of a maximal bundle
                  stores [rounds]          workflow step append (embedded, PostgreSQL) and the PostgreSQL audit
                                           sink's export rate, each beside its baseline, interleaved
                  audit-tree [appends]     the audit log's Merkle tree: committed append beside the tree's share;
                                           checkpoint and proofs of 100,000 records
                  jmh-table FILE           a JMH JSON result file as a Markdown table
                  machine                  the machine description printed with every figure
                """);
    }
}
