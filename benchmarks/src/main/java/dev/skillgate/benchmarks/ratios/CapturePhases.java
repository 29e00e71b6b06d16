package dev.skillgate.benchmarks.ratios;

import dev.skillgate.benchmarks.Machine;
import dev.skillgate.benchmarks.Stats;
import dev.skillgate.benchmarks.corpus.Bundles;
import dev.skillgate.inspect.internal.ReaderCore;
import dev.skillgate.inspect.internal.ReaderCore.BatchRead;
import dev.skillgate.inspect.internal.ReaderCore.BatchRequest;
import dev.skillgate.inspect.internal.ReaderCore.BatchResult;
import dev.skillgate.inspect.internal.ReaderCore.SharedVerification;
import dev.skillgate.model.ExecutionManifest;
import dev.skillgate.model.Limits;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.protocol.ManifestParser;
import dev.skillgate.protocol.ManifestVerdict;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Where a capture of the maximal bundle spends its CPU: the capture's phases run one after another
 * on one thread, each timed by this thread's CPU clock ({@code ThreadMXBean}), which other processes'
 * load disturbs less than the wall clock. The phases are the same calls the capture makes ({@code
 * ReaderCore.open}, the batch of fixed files, the strict manifest parse, the batch of declared files,
 * the verification pass, {@code Revision.compute}, the clearing of {@code close()}), without the
 * hash worker; their sum is what two threads have to share. Bench-only; not a target.
 */
public final class CapturePhases {
    private static final String[] PHASES = {
        "open the root (`ReaderCore.open`)",
        "read `SKILL.md`, `execution.json`, the contract (one batch)",
        "strict manifest parse (`ManifestParser.parse`)",
        "read the 64 declared files (one batch: `fstatat`, `openat`, read, probe, `fstatat`)",
        "verification pass (per file: `fstatat`, `openat`, re-read + compare, probe, `fstatat`)",
        "revision hash (`Revision.compute`, 4 MiB)",
        "clear the buffers (what `close()` does)",
    };

    private CapturePhases() {}

    /** {@code benchmarks/bench capture-phases [rounds]}. */
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 500;
        System.out.println("machine: " + Machine.describe());
        Path base = Files.createTempDirectory("skillgate-capture-phases-");
        try {
            Map<PortablePath, byte[]> files = Bundles.maximal("maximal");
            Path dir = Bundles.write(base.resolve("maximal"), files);
            ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
            List<List<Double>> t = new ArrayList<>();
            for (int k = 0; k < PHASES.length; k++) {
                t.add(new ArrayList<>());
            }
            int warm = Math.max(100, rounds / 3);
            for (int r = 0; r < warm + rounds; r++) {
                long[] at = new long[PHASES.length + 1];
                at[0] = cpu.getCurrentThreadCpuTime();
                ReaderCore reader = ReaderCore.open(dir, List.of(), Limits.CAPTURE_BYTES);
                at[1] = cpu.getCurrentThreadCpuTime();
                PortablePath skill = PortablePath.of("SKILL.md");
                PortablePath manifestPath = PortablePath.of(ExecutionManifest.FILE_NAME);
                PortablePath contract = PortablePath.of("skill.contract.json");
                List<BatchResult> fixed = reader.readBatch(List.of(
                        new BatchRequest(skill, Limits.FILE_BYTES, true),
                        new BatchRequest(manifestPath, Limits.MANIFEST_BYTES, false),
                        new BatchRequest(contract, Limits.MANIFEST_BYTES, false)));
                at[2] = cpu.getCurrentThreadCpuTime();
                ManifestVerdict verdict = ManifestParser.parse(((BatchRead) fixed.get(1)).bytes());
                ExecutionManifest manifest = ((ManifestVerdict.Accepted) verdict).manifest();
                at[3] = cpu.getCurrentThreadCpuTime();
                TreeSet<PortablePath> sorted = new TreeSet<>(manifest.files());
                List<BatchRequest> requests = new ArrayList<>();
                for (PortablePath p : sorted) {
                    requests.add(new BatchRequest(p, Limits.FILE_BYTES, p.equals(manifest.entrypoint())));
                }
                List<BatchResult> declared = reader.readBatch(requests);
                at[4] = cpu.getCurrentThreadCpuTime();
                TreeMap<PortablePath, BatchRead> captured = new TreeMap<>();
                captured.put(skill, (BatchRead) fixed.get(0));
                captured.put(manifestPath, (BatchRead) fixed.get(1));
                for (int i = 0; i < requests.size(); i++) {
                    captured.put(requests.get(i).path(), (BatchRead) declared.get(i));
                }
                SharedVerification pass = reader.shareVerification(captured, List.of(contract));
                pass.help(() -> ByteBuffer.allocateDirect(64 * 1024));
                pass.finish();
                at[5] = cpu.getCurrentThreadCpuTime();
                TreeMap<PortablePath, byte[]> bytes = new TreeMap<>();
                captured.forEach((p, read) -> bytes.put(p, read.bytes()));
                Revision revision = Revision.compute(bytes);
                at[6] = cpu.getCurrentThreadCpuTime();
                for (byte[] b : bytes.values()) {
                    Arrays.fill(b, (byte) 0);
                }
                at[7] = cpu.getCurrentThreadCpuTime();
                if (revision.hashCode() == 42) {
                    System.out.print("");
                }
                if (r >= warm) {
                    for (int k = 0; k < PHASES.length; k++) {
                        t.get(k).add((double) (at[k + 1] - at[k]));
                    }
                }
            }
            System.out.println();
            System.out.println("| phase (one thread, CPU time) | ms, median (p25–p75) |");
            System.out.println("|---|---:|");
            double sum = 0;
            for (int k = 0; k < PHASES.length; k++) {
                sum += Stats.median(t.get(k));
                System.out.println("| " + PHASES[k] + " | "
                        + Stats.medianWithQuartiles(TargetRatios.millis(t.get(k)), "%.3f") + " |");
            }
            double hash = Stats.median(t.get(5));
            System.out.println(
                    String.format(Locale.ROOT, "| sum of the medians: the CPU one capture costs | %.3f |", sum / 1e6));
            System.out.println(String.format(
                    Locale.ROOT,
                    "| the best two threads could do (half the sum) ÷ the hash alone | %.2f (at most %.2f of the raw rate) |",
                    (sum / 2) / hash,
                    hash / (sum / 2)));
            System.out.println("load average after: " + Machine.loadAverage().orElse("unknown"));
        } finally {
            Bundles.deleteTree(base);
        }
    }
}
