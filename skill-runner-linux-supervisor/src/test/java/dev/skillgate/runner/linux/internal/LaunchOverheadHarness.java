package dev.skillgate.runner.linux.internal;

import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.runner.LaunchSpec;
import dev.skillgate.runner.OwnershipRecorder;
import dev.skillgate.runner.ResourceCeilings;
import dev.skillgate.runner.SupervisionListener;
import dev.skillgate.runner.SupervisionResult;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Launch overhead (SPEC §17, docs/performance.md): median launch-to-result of a trivial {@code .mjs}
 * through the supervisor against a bare {@code ProcessBuilder} spawn of the same {@code node} in the
 * same JVM. Interleaved, the order alternating each round, after a warm-up. Not a test; run with
 * {@code java -cp ... dev.skillgate.runner.linux.internal.LaunchOverheadHarness [rounds]}.
 */
public final class LaunchOverheadHarness {
    private LaunchOverheadHarness() {}

    static final Path NODE = Path.of("/usr/bin/node");
    static final Map<String, String> ENV = Map.of("PATH", "/usr/bin:/bin", "LANG", "C.UTF-8");
    static final List<Long> INSIDE = new ArrayList<>();
    static final List<Long> OUTSIDE = new ArrayList<>();
    static final byte[] INPUT = "{\"x\":1}".getBytes(StandardCharsets.UTF_8);

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        Path work = Files.createTempDirectory("sg-overhead");
        Path entry = Files.writeString(
                work.resolve("entry.mjs"),
                "const c=[];for await (const b of process.stdin) c.push(b);"
                        + "process.stdout.write(JSON.stringify({ok:true,n:Buffer.concat(c).length}));\n");
        SupervisorCore core = SupervisorCore.prepare(
                Files.createDirectory(work.resolve("data")), Wire.POLICY_PREFER, HelperLauncher.direct(), true);
        SupervisorCore cold = SupervisorCore.prepare(
                Files.createDirectory(work.resolve("data-cold")), Wire.POLICY_PREFER, HelperLauncher.direct(), false);
        if (!core.capabilities().available()) {
            throw new IllegalStateException(core.capabilities().detail());
        }
        Sha256Digest nodeDigest = digest(NODE);
        Path records = Files.createDirectory(work.resolve("records"));

        String[] names = {
            "bare",
            "supervised",
            "supervised+pin",
            "supervised+pin+fsync",
            "bare in a new session (setsid(1))",
            "supervised, no spare helper"
        };
        List<List<Long>> samples = new ArrayList<>();
        for (int i = 0; i < names.length; i++) {
            samples.add(new ArrayList<>());
        }
        for (int round = -5; round < rounds; round++) {
            int[] order = round % 2 == 0 ? new int[] {0, 1, 2, 3, 4, 5} : new int[] {5, 4, 3, 2, 1, 0};
            for (int v : order) {
                long ns;
                switch (v) {
                    case 0:
                        ns = bare(entry, work, false);
                        break;
                    case 4:
                        ns = bare(entry, work, true);
                        break;
                    case 5:
                        ns = supervised(cold, entry, work, Optional.empty(), OwnershipRecorder.none());
                        break;
                    case 1:
                        ns = supervised(core, entry, work, Optional.empty(), OwnershipRecorder.none());
                        break;
                    case 2:
                        ns = supervised(core, entry, work, Optional.of(nodeDigest), OwnershipRecorder.none());
                        break;
                    case 3:
                        Path rec = records.resolve("r" + round);
                        ns = supervised(core, entry, work, Optional.of(nodeDigest), owner -> {
                            try (FileChannel ch =
                                    FileChannel.open(rec, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                                ch.write(ByteBuffer.wrap((owner.pid() + " " + owner.startTimeToken())
                                        .getBytes(StandardCharsets.US_ASCII)));
                                ch.force(true);
                            }
                        });
                        break;
                    default:
                        throw new IllegalStateException("variant " + v);
                }
                if (round >= 0) {
                    samples.get(v).add(ns);
                }
            }
        }
        // The helper's own digest check at rest (what a launch that takes a spare runs); time it alone.
        List<Long> verify = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            long t0 = System.nanoTime();
            HelperImage.checkAtRest(core.installed().orElseThrow());
            verify.add(System.nanoTime() - t0);
        }

        System.out.printf(
                Locale.ROOT,
                "n=%d interleaved rounds after 5 warm-up rounds; %s; layer %s%n",
                rounds,
                core.probe().orElseThrow().version(),
                core.capabilities().hardening());
        System.out.println("| variant | median ms | p90 ms | min ms | median overhead vs bare | ratio |");
        System.out.println("|---|---|---|---|---|---|");
        double bareMedian = median(samples.get(0));
        for (int v = 0; v < names.length; v++) {
            double med = median(samples.get(v));
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %.1f | %.1f | %.1f | %s | %s |%n",
                    names[v],
                    med,
                    percentile(samples.get(v), 0.9),
                    min(samples.get(v)),
                    v == 0 ? "—" : String.format(Locale.ROOT, "%+.1f ms", med - bareMedian),
                    v == 0 ? "1.00×" : String.format(Locale.ROOT, "%.3f×", med / bareMedian));
        }
        System.out.printf(Locale.ROOT, "helper SHA-256 check per launch: median %.2f ms%n", median(verify));
        System.out.printf(
                Locale.ROOT,
                "supervised runs, all variants: helper fork-to-report median %.1f ms; Java launch-to-result minus that"
                        + " (helper start, request, hello, GO, result, helper exit) median %.1f ms%n",
                median(INSIDE),
                median(OUTSIDE));
        try (var files = Files.walk(work)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    static long bare(Path entry, Path work, boolean newSession) throws Exception {
        long t0 = System.nanoTime();
        // setsid(1) is not a process-group leader when the JVM starts it, so it calls setsid() and execs
        // node without forking: one more exec, and node in its own session (and scheduler autogroup).
        ProcessBuilder pb = newSession
                ? new ProcessBuilder("/usr/bin/setsid", NODE.toString(), entry.toString())
                : new ProcessBuilder(NODE.toString(), entry.toString());
        pb.environment().clear();
        pb.environment().putAll(ENV);
        pb.directory(work.toFile());
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        try (OutputStream in = p.getOutputStream()) {
            in.write(INPUT);
        }
        byte[] out;
        try (InputStream o = p.getInputStream()) {
            out = o.readAllBytes();
        }
        p.waitFor();
        long ns = System.nanoTime() - t0;
        check(new String(out, StandardCharsets.UTF_8));
        return ns;
    }

    static long supervised(
            SupervisorCore core, Path entry, Path work, Optional<Sha256Digest> digest, OwnershipRecorder recorder)
            throws Exception {
        LaunchSpec spec = new LaunchSpec(
                RunId.random(),
                NODE,
                digest,
                List.of(entry.toString()),
                work,
                ENV,
                INPUT,
                65536,
                16384,
                Duration.ofSeconds(30),
                Duration.ofSeconds(1),
                LaunchSpec.DEFAULT_KILL_DEADLINE,
                ResourceCeilings.NONE,
                recorder);
        long t0 = System.nanoTime();
        HelperRun run = (HelperRun) core.launch(spec, SupervisionListener.NONE);
        SupervisionResult r = run.result().toCompletableFuture().get(60, TimeUnit.SECONDS);
        long ns = System.nanoTime() - t0;
        HelperRun.Report report = run.report().toCompletableFuture().get();
        report.helperResult().ifPresent(h -> {
            INSIDE.add(h.runNanos());
            OUTSIDE.add(report.launchToResultNanos() - h.runNanos());
        });
        if (r.outcome() != SupervisionResult.Outcome.EXITED || !r.cleanup().proven()) {
            throw new IllegalStateException("unexpected: " + r + " " + r.detail());
        }
        check(new String(r.stdout(), StandardCharsets.UTF_8));
        return ns;
    }

    static void check(String out) {
        if (!out.equals("{\"ok\":true,\"n\":7}")) {
            throw new IllegalStateException("unexpected output " + out);
        }
    }

    static Sha256Digest digest(Path p) throws Exception {
        var md = Sha256Digest.newMessageDigest();
        try (InputStream in = Files.newInputStream(p)) {
            byte[] buf = new byte[1 << 20];
            int n;
            while ((n = in.read(buf)) > 0) {
                md.update(buf, 0, n);
            }
        }
        return Sha256Digest.of(md.digest());
    }

    static double median(List<Long> v) {
        return percentile(v, 0.5);
    }

    static double percentile(List<Long> v, double q) {
        long[] a = v.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(a);
        int idx = (int) Math.min(a.length - 1, Math.max(0, Math.ceil(q * a.length) - 1));
        if (q == 0.5 && a.length % 2 == 0) {
            return (a[a.length / 2 - 1] + a[a.length / 2]) / 2.0 / 1e6;
        }
        return a[idx] / 1e6;
    }

    static double min(List<Long> v) {
        return v.stream().mapToLong(Long::longValue).min().orElse(0) / 1e6;
    }
}
