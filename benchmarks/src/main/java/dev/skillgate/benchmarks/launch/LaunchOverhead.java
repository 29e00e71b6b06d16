package dev.skillgate.benchmarks.launch;

import dev.skillgate.benchmarks.Machine;
import dev.skillgate.benchmarks.NodeHost;
import dev.skillgate.benchmarks.Stats;
import dev.skillgate.fixtures.DelegatedCgroup;
import dev.skillgate.fixtures.NodeFixture;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionManifest;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.OriginType;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.SideEffectClass;
import dev.skillgate.model.SkillContract;
import dev.skillgate.model.Timeout;
import dev.skillgate.protocol.CompiledSchema;
import dev.skillgate.protocol.SchemaGate;
import dev.skillgate.protocol.SchemaRole;
import dev.skillgate.protocol.ValidatedResult;
import dev.skillgate.protocol.Validation;
import dev.skillgate.runner.NodeRunRequest;
import dev.skillgate.runner.NodeRunner;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.runner.OutputCheck;
import dev.skillgate.runner.ProgressEvent;
import dev.skillgate.runner.linux.ConfinementPolicy;
import dev.skillgate.runner.linux.LinuxSubreaperSupervisor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Launch overhead (SPEC §17: in one JVM, a supervised launch of a trivial {@code .mjs} against a
 * bare {@code ProcessBuilder} spawn of the same {@code node entry.mjs}; median added cost ≤ 5 ms and
 * ≤ 1.10×). A plain {@code main}, not JMH: each sample is a process launch.
 *
 * <p>Variants, interleaved A/B in every round (the order rotates each round so that each variant
 * sees the same machine load), each timed from just before the call to the complete result (stdout
 * read to the end and the exit status, or the envelope):
 *
 * <ul>
 *   <li><b>bare</b> — {@code ProcessBuilder(node, entry.mjs)}, cleared environment, stdin written and
 *       closed, stdout read to EOF, {@code waitFor()}: the baseline;
 *   <li><b>bare, runner's flags</b> — the same with the fixed flags the runner adds for this Node
 *       version ({@code --no-addons --no-global-search-paths --disable-proto=delete
 *       --unhandled-rejections=strict --}), to separate Node's own cost of those flags;
 *   <li><b>bare in a new session</b> — {@code setsid node entry.mjs}: one more exec, and node in its
 *       own session as the supervised script is; with {@code sched_autogroup_enabled} a new session
 *       is a new scheduler group, which under CPU contention waits longer than the JVM's own;
 *   <li><b>runner</b> — {@code NodeRunner.run} of the same script as a one-file bundle through the
 *       Linux subreaper supervisor (spare helper on, Landlock preferred), result checked against its
 *       output schema: runtime verification, staging, re-hashes, fsync'd ownership record, launch,
 *       proof of cleanup, envelope;
 *   <li><b>{@code runtime.verify()}</b> alone — the per-launch runtime check (lstat, permissions,
 *       {@code node --version}), timed in the same round, because it is the runner's largest step.
 * </ul>
 *
 * <ul>
 *   <li><b>{@code SkillGate.execute}</b> of the same script as a skill on disk, through the facade
 *       with the Linux supervisor (its default), in two policies: inside a trusted-revision receipt
 *       (no approval, no audit append), and {@code ASK_EACH_TIME} with an approval channel that
 *       answers at once (proposal, approval, consumption, an fsync'd audit append): capture, input
 *       check, gates, re-capture, then the runner. This is the issue's "supervised execute".
 * </ul>
 *
 * <p>The runner's time is also split at its progress events (staged, started, settled), and a JFR
 * recording of 20 further launches counts the fsyncs and process starts of one launch.
 */
public final class LaunchOverhead {
    private static final Path NODE = NodeHost.NODE;
    private static final Path SETSID = Path.of("/usr/bin/setsid");
    private static final List<String> RUNNER_FLAGS = List.of(
            "--no-addons", "--no-global-search-paths", "--disable-proto=delete", "--unhandled-rejections=strict", "--");

    /** Files of the wide skill (the entry and the modules it imports). */
    static final int WIDE_FILES = 64;

    static final PortablePath WIDE_ENTRY = PortablePath.of("entry.mjs");
    static final String BARE_WIDE = "bare, 64-file skill";
    static final String RUNNER_WIDE = "runner (Linux supervisor), 64-file skill (paired with its own bare spawn)";
    /** Hardening layer L1 only: the Linux supervisor with kernel confinement (L2) off. */
    static final String RUNNER_L1 = "runner (Linux supervisor), L2 off: L1 only";
    /** Every part of L2 (PID namespace, write allow-list, TCP rules) from a workspace-write contract. */
    static final String RUNNER_L2 =
            "runner (Linux supervisor), L2 with a workspace-write contract (paired with the L1-only runner)";

    /**
     * L2 with a host-delegated cgroup v2 directory (decision 0543): the run's own child cgroup,
     * {@code clone3(CLONE_INTO_CGROUP)}, {@code cgroup.kill} and {@code populated 0}, {@code rmdir}.
     */
    static final String RUNNER_L2_CGROUP =
            "runner (Linux supervisor), L2 with a workspace-write contract and a delegated cgroup (paired with L2 without one)";

    /** The shell-based peers' launch: {@code sh -c "node entry.mjs"}. */
    static final String SH_PEER = "peer: `sh -c \"node entry.mjs\"`";

    static final String BARE_GUARD = "bare, runner's flags + module guard (paired with bare, runner's flags)";
    static final String BARE_WIDE_FLAGS = "bare, 64-file skill, runner's flags (paired with bare, 64-file skill)";
    static final String BARE_WIDE_GUARD =
            "bare, 64-file skill, runner's flags + module guard (paired with bare, 64-file skill, runner's flags)";

    /** Variants judged against another baseline than {@code bare}: the pair differs only in what is measured. */
    static final Map<String, String> PAIRED_WITH = Map.of(
            RUNNER_WIDE,
            BARE_WIDE,
            BARE_GUARD,
            "bare, runner's flags",
            BARE_WIDE_FLAGS,
            BARE_WIDE,
            BARE_WIDE_GUARD,
            BARE_WIDE_FLAGS,
            RUNNER_L2,
            RUNNER_L1,
            RUNNER_L2_CGROUP,
            RUNNER_L2,
            EngineVariants.TRUSTED_1000,
            EngineVariants.TRUSTED);

    /** Further paired comparisons printed after the main table: variant, then its baseline. */
    static final List<List<String>> ALSO_PAIRED = List.of(
            List.of(EngineVariants.TRUSTED, SH_PEER),
            List.of("runner (Linux supervisor)", SH_PEER),
            List.of(SH_PEER, "bare"),
            List.of(EngineVariants.TRUSTED_1000, EngineVariants.TRUSTED));

    static String shQuote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    /**
     * The runner's argv for a bundle written at {@code dir}: node, the fixed flags, the module guard's
     * flags and {@code --}, then the entry (the runner's internal {@code ModuleGuard}, reachable on the
     * benchmarks' class path, decision 0280).
     */
    static List<String> guarded(
            String version, Path dir, Path entry, PortablePath entryPath, Map<PortablePath, byte[]> files)
            throws IOException {
        String[] parts = version.substring(1).split("\\.");
        int major = Integer.parseInt(parts[0]);
        int minor = Integer.parseInt(parts[1]);
        String url = dev.skillgate.runner.internal.ModuleGuard.url(
                dir.toRealPath().toString(), entry.toString(), entryPath, files);
        List<String> argv = new ArrayList<>(List.of(NODE.toString()));
        argv.addAll(dev.skillgate.runner.internal.NodeFlags.forVersion(major, minor, java.util.Optional.of(url)));
        argv.add(entry.toString());
        return argv;
    }

    private LaunchOverhead() {}

    /** Calls per block of the concurrency sweep (third argument). */
    private static int sweepOps = 32;

    /**
     * A bundle of {@code files} ES modules: {@code entry.mjs} imports {@code lib/m01.mjs} …, each
     * exporting one number, and prints {@code {"echo": <input>}} like {@code echo.mjs}.
     */
    static Map<PortablePath, byte[]> wideBundle(int files) {
        Map<PortablePath, byte[]> bundle = new LinkedHashMap<>();
        StringBuilder entry = new StringBuilder("import { readFileSync } from 'node:fs';\n");
        StringBuilder sum = new StringBuilder("0");
        for (int i = 1; i < files; i++) {
            String name = String.format(Locale.ROOT, "m%02d", i);
            bundle.put(
                    PortablePath.of("lib/" + name + ".mjs"),
                    ("export const value = " + i + ";\n").getBytes(StandardCharsets.UTF_8));
            entry.append("import { value as ")
                    .append(name)
                    .append(" } from './lib/")
                    .append(name)
                    .append(".mjs';\n");
            sum.append(" + ").append(name);
        }
        entry.append("const input = JSON.parse(readFileSync(0, 'utf8'));\n")
                .append("if (")
                .append(sum)
                .append(" !== ")
                .append((files - 1) * files / 2)
                .append(") throw new Error('a module is missing');\n")
                .append("process.stdout.write(JSON.stringify({ echo: input }));\n");
        bundle.put(WIDE_ENTRY, entry.toString().getBytes(StandardCharsets.UTF_8));
        return bundle;
    }

    /** One timed variant; returns nanoseconds. */
    private static long timedRun(NodeRunner runner, NodeRunRequest request) {
        long t0 = System.nanoTime();
        ExecutionEnvelope envelope =
                runner.start(request, e -> {}).envelope().toCompletableFuture().join();
        long t1 = System.nanoTime();
        if (envelope.status() != ExecutionStatus.SUCCEEDED) {
            throw new IllegalStateException("the runner must succeed: " + envelope);
        }
        return t1 - t0;
    }

    interface Variant {
        long once() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
        int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        sweepOps = args.length > 2 ? Integer.parseInt(args[2]) : 32;
        System.out.println("machine: " + Machine.describe());
        Path base = Files.createTempDirectory("skillgate-launch-");
        try {
            run(base, rounds, warmup);
        } finally {
            NodeHost.deleteTree(base);
        }
    }

    private static void run(Path base, int rounds, int warmup) throws Exception {
        String version = NodeHost.version();
        baselineEnvironment = dev.skillgate.runner.internal.ChildEnvironment.forRun(
                Files.createDirectories(base.resolve("baseline-home")),
                Files.createDirectories(base.resolve("baseline-tmp")));
        System.out.println("baseline environment (the runner's): " + baselineEnvironment.keySet()
                + "; inherited NODE_EXTRA_CA_CERTS "
                + (System.getenv("NODE_EXTRA_CA_CERTS") == null ? "absent" : "present, not passed"));
        Path scriptDir = Files.createDirectories(base.resolve("bare"));
        Path script = NodeFixture.ECHO_MJS.writeTo(scriptDir);
        Path workspace = Files.createDirectories(base.resolve("workspace"));
        Path data = Files.createDirectories(base.resolve("data"));
        byte[] invocation = "{\"query\":\"launch\"}".getBytes(StandardCharsets.UTF_8);

        NodeRuntime runtime = NodeRuntime.pinned(NODE, version);
        LinuxSubreaperSupervisor supervisor =
                LinuxSubreaperSupervisor.builder().dataDirectory(data).build();
        NodeRunner runner = NodeRunner.builder()
                .dataDirectory(data)
                .runtime(runtime)
                .supervisor(supervisor)
                .build();
        Map<PortablePath, byte[]> files = NodeFixture.ECHO_MJS.asBundle();
        String outputSchema = "{\"type\":\"object\",\"properties\":{\"echo\":{\"type\":\"object\",\"properties\":{}}},"
                + "\"required\":[\"echo\"]}";
        ExecutionManifest manifest = new ExecutionManifest(
                1,
                NodeFixture.ECHO_MJS.portablePath(),
                List.of(NodeFixture.ECHO_MJS.portablePath()),
                "{\"type\":\"object\",\"properties\":{}}",
                outputSchema,
                Timeout.DEFAULT,
                OutputLimit.DEFAULT);
        CompiledSchema output =
                SchemaGate.compile(SchemaRole.OUTPUT, outputSchema).compiled().orElseThrow();
        OutputCheck check = stdout -> {
            Validation<ValidatedResult> v = output.checkResult(stdout, OutputLimit.DEFAULT);
            return v.valueIfValid()
                    .<OutputCheck.Result>map(r -> new OutputCheck.Valid(r.text()))
                    .orElseGet(() -> new OutputCheck.Invalid(v.issues()));
        };
        Revision revision = Revision.compute(files);

        List<Long> phaseStaged = new ArrayList<>();
        List<Long> phaseStarted = new ArrayList<>();
        List<Long> phaseSettled = new ArrayList<>();
        List<Long> phaseReturned = new ArrayList<>();
        boolean[] measuring = {false};

        Map<String, Variant> variants = new LinkedHashMap<>();
        variants.put("bare", () -> bare(List.of(NODE.toString(), script.toString()), workspace, invocation));
        List<String> flagged = new ArrayList<>();
        flagged.add(NODE.toString());
        flagged.addAll(RUNNER_FLAGS);
        flagged.add(script.toString());
        variants.put("bare, runner's flags", () -> bare(flagged, workspace, invocation));
        // The peers' way (LangChain4j's shell runner): a shell that starts node. Node by absolute path,
        // since the runner's PATH (/usr/bin:/bin) need not hold it; the shell still parses and forks.
        variants.put(
                SH_PEER,
                () -> bare(
                        List.of("/bin/sh", "-c", shQuote(NODE.toString()) + " " + shQuote(script.toString())),
                        workspace,
                        invocation));
        // The module guard alone (decision 0510): the same spawn with the runner's flags and the guard's
        // --import for this one-file bundle, paired with the spawn with the runner's flags.
        List<String> oneGuarded = guarded(version, scriptDir, script, NodeFixture.ECHO_MJS.portablePath(), files);
        variants.put(BARE_GUARD, () -> bare(oneGuarded, workspace, invocation));
        if (Files.isExecutable(SETSID)) {
            variants.put(
                    "bare in a new session (`setsid`)",
                    () -> bare(List.of(SETSID.toString(), NODE.toString(), script.toString()), workspace, invocation));
        }
        variants.put("runner (Linux supervisor)", () -> {
            long[] marks = new long[3];
            NodeRunRequest request =
                    new NodeRunRequest(RunId.random(), manifest, files, revision, invocation, workspace, check);
            long t0 = System.nanoTime();
            ExecutionEnvelope envelope = runner.start(request, e -> {
                        if (e instanceof ProgressEvent.Staged) {
                            marks[0] = System.nanoTime();
                        } else if (e instanceof ProgressEvent.Started) {
                            marks[1] = System.nanoTime();
                        } else if (e instanceof ProgressEvent.Settled) {
                            marks[2] = System.nanoTime();
                        }
                    })
                    .envelope()
                    .toCompletableFuture()
                    .join();
            long t1 = System.nanoTime();
            if (envelope.status() != ExecutionStatus.SUCCEEDED) {
                throw new IllegalStateException("the runner must succeed: " + envelope);
            }
            if (measuring[0]) {
                phaseStaged.add(marks[0] - t0);
                phaseStarted.add(marks[1] - marks[0]);
                phaseSettled.add(marks[2] - marks[1]);
                phaseReturned.add(t1 - marks[2]);
            }
            return t1 - t0;
        });
        // L2's extra launch cost (decision 0540): the same runner path with L2 off, and with every part on.
        NodeRunner runnerL1 = NodeRunner.builder()
                .dataDirectory(data)
                .runtime(runtime)
                .supervisor(LinuxSubreaperSupervisor.builder()
                        .dataDirectory(data)
                        .confinement(ConfinementPolicy.OFF)
                        .build())
                .build();
        SkillContract workspaceWrite = new SkillContract(
                new SkillContract.Identity("bench/echo", SemVer.parse("1.0.0")),
                new SkillContract.Origin(OriginType.LOCAL_UNSIGNED, Optional.empty()),
                List.of(),
                Set.of(),
                Set.of(),
                List.of(),
                PermissionMode.WORKSPACE_WRITE,
                List.of(),
                SideEffectClass.WORKSPACE_WRITE);
        variants.put(
                RUNNER_L1,
                () -> timedRun(
                        runnerL1,
                        new NodeRunRequest(RunId.random(), manifest, files, revision, invocation, workspace, check)));
        java.util.function.Supplier<NodeRunRequest> workspaceWriteRun = () -> new NodeRunRequest(
                RunId.random(),
                manifest,
                files,
                revision,
                invocation,
                workspace,
                Optional.empty(),
                check,
                Optional.of(workspaceWrite));
        variants.put(RUNNER_L2, () -> timedRun(runner, workspaceWriteRun.get()));
        // The same L2 run inside a cgroup the benchmark delegates below the cgroup2 mount, when it can
        // make one (root, or a delegated subtree named by skillgate.bench.cgroup); otherwise left out.
        Optional<Path> cgroup = benchCgroup();
        if (cgroup.isPresent()) {
            NodeRunner runnerCgroup = NodeRunner.builder()
                    .dataDirectory(data)
                    .runtime(runtime)
                    .supervisor(LinuxSubreaperSupervisor.builder()
                            .dataDirectory(data)
                            .delegatedCgroup(cgroup.get())
                            .build())
                    .build();
            variants.put(RUNNER_L2_CGROUP, () -> timedRun(runnerCgroup, workspaceWriteRun.get()));
        } else {
            System.out.println("(no cgroup v2 directory could be delegated here: the cgroup variant is left out)");
        }
        variants.put(
                "runtime.verify() alone (path checks; version and digest reused by file identity, decision 0332)",
                () -> {
                    long t0 = System.nanoTime();
                    if (!(runtime.verify() instanceof NodeRuntime.Verified)) {
                        throw new IllegalStateException("runtime must verify");
                    }
                    return System.nanoTime() - t0;
                });

        // The 64-file skill: an entry that statically imports 63 modules of its own bundle. Its bare
        // spawn is the baseline of its runner variant (paired per round, like the one-file pair).
        Map<PortablePath, byte[]> wide = wideBundle(WIDE_FILES);
        Path wideDir = Files.createDirectories(base.resolve("bare-wide"));
        for (Map.Entry<PortablePath, byte[]> e : wide.entrySet()) {
            Path f = e.getKey().resolveUnder(wideDir);
            Files.createDirectories(f.getParent());
            Files.write(f, e.getValue());
        }
        Path wideEntry = WIDE_ENTRY.resolveUnder(wideDir);
        ExecutionManifest wideManifest = new ExecutionManifest(
                1,
                WIDE_ENTRY,
                List.copyOf(wide.keySet()),
                "{\"type\":\"object\",\"properties\":{}}",
                outputSchema,
                Timeout.DEFAULT,
                OutputLimit.DEFAULT);
        Revision wideRevision = Revision.compute(wide);
        variants.put(BARE_WIDE, () -> bare(List.of(NODE.toString(), wideEntry.toString()), workspace, invocation));
        List<String> wideFlagged = new ArrayList<>(List.of(NODE.toString()));
        wideFlagged.addAll(RUNNER_FLAGS);
        wideFlagged.add(wideEntry.toString());
        variants.put(BARE_WIDE_FLAGS, () -> bare(wideFlagged, workspace, invocation));
        List<String> wideGuarded = guarded(version, wideDir, wideEntry, WIDE_ENTRY, wide);
        variants.put(BARE_WIDE_GUARD, () -> bare(wideGuarded, workspace, invocation));
        variants.put(RUNNER_WIDE, () -> {
            NodeRunRequest request =
                    new NodeRunRequest(RunId.random(), wideManifest, wide, wideRevision, invocation, workspace, check);
            long t0 = System.nanoTime();
            ExecutionEnvelope envelope = runner.run(request);
            long t1 = System.nanoTime();
            if (envelope.status() != ExecutionStatus.SUCCEEDED) {
                throw new IllegalStateException("the runner must succeed on the 64-file skill: " + envelope);
            }
            return t1 - t0;
        });

        EngineVariants engine = EngineVariants.create(base, version, NodeFixture.ECHO_MJS, invocation, workspace);
        variants.put(EngineVariants.TRUSTED, engine::trusted);
        variants.put(EngineVariants.ASK, engine::askEachTime);
        variants.put(EngineVariants.TRUSTED_1000, engine::trustedWideRoot);
        // Skill roots live long; the catalog trusts a tree by identity once it is older than its
        // racily-clean margin (2 s, decision 0805). The trees above were written just now.
        Thread.sleep(2_500);

        Map<String, List<Long>> samples = new LinkedHashMap<>();
        variants.keySet().forEach(k -> samples.put(k, new ArrayList<>()));
        List<Map.Entry<String, Variant>> order = new ArrayList<>(variants.entrySet());
        Map<String, List<Double>> ratios = new LinkedHashMap<>();
        Map<String, List<Double>> added = new LinkedHashMap<>();
        Map<List<String>, List<Double>> alsoRatios = new LinkedHashMap<>();
        Map<List<String>, List<Double>> alsoAdded = new LinkedHashMap<>();
        for (int round = -warmup; round < rounds; round++) {
            measuring[0] = round >= 0;
            Map<String, Long> thisRound = new LinkedHashMap<>();
            for (int k = 0; k < order.size(); k++) {
                Map.Entry<String, Variant> v = order.get((k + Math.floorMod(round, order.size())) % order.size());
                thisRound.put(v.getKey(), v.getValue().once());
            }
            if (round >= 0) {
                thisRound.forEach((k, ns) -> samples.get(k).add(ns));
                thisRound.forEach((k, ns) -> {
                    long bare = thisRound.get(PAIRED_WITH.getOrDefault(k, "bare"));
                    ratios.computeIfAbsent(k, x -> new ArrayList<>()).add((double) ns / bare);
                    added.computeIfAbsent(k, x -> new ArrayList<>()).add((ns - bare) / 1e6);
                });
                for (List<String> pair : ALSO_PAIRED) {
                    long a = thisRound.get(pair.get(0));
                    long b = thisRound.get(pair.get(1));
                    alsoRatios.computeIfAbsent(pair, x -> new ArrayList<>()).add((double) a / b);
                    alsoAdded.computeIfAbsent(pair, x -> new ArrayList<>()).add((a - b) / 1e6);
                }
            }
        }

        System.out.printf(
                Locale.ROOT,
                "%nnode %s; %d rounds after %d warm-up rounds; variants interleaved, order rotating%n%n",
                version,
                rounds,
                warmup);
        System.out.println(
                "(the 64-file runner variant is paired with the 64-file bare spawn, every other with `bare`)");
        System.out.println("| variant | median ms (p25–p75) | min ms | added vs bare, paired per round: median"
                + " (p25–p75) | ratio to bare, paired per round: median (p25–p75) | target ≤ 5 ms and ≤ 1.10× |");
        System.out.println("|---|---:|---:|---:|---:|---|");
        for (Map.Entry<String, List<Long>> e : samples.entrySet()) {
            List<Double> ms = e.getValue().stream().map(ns -> ns / 1e6).toList();
            String name = e.getKey();
            boolean isBare = name.equals("bare");
            boolean judged = name.equals("runner (Linux supervisor)") || name.startsWith("`SkillGate.execute`");
            boolean met = Stats.median(added.get(name)) <= 5.0 && Stats.median(ratios.get(name)) <= 1.10;
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %s | %.1f | %s | %s | %s |%n",
                    name,
                    Stats.medianWithQuartiles(ms, "%.1f"),
                    ms.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
                    isBare ? "—" : Stats.medianWithQuartiles(added.get(name), "%+.1f") + " ms",
                    isBare ? "1.00×" : Stats.medianWithQuartiles(ratios.get(name), "%.2f") + "×",
                    judged ? (met ? "**met**" : "**not met**") : "");
        }
        System.out.printf(
                Locale.ROOT,
                "Runner phases (median ms): call → staged %.1f (input hash, runtime.verify, staging, first owner record, not synced);"
                        + " staged → started %.1f (supervisor hand-over, fsync'd owner record, re-hash, spawn);"
                        + " started → settled %.1f (the script's run, output, proof of cleanup);"
                        + " settled → envelope returned %.1f.%n",
                Stats.median(phaseStaged) / 1e6,
                Stats.median(phaseStarted) / 1e6,
                Stats.median(phaseSettled) / 1e6,
                Stats.median(phaseReturned) / 1e6);
        System.out.println();
        System.out.println("| paired per round | added ms: median (p25–p75) | ratio: median (p25–p75) |");
        System.out.println("|---|---:|---:|");
        for (List<String> pair : ALSO_PAIRED) {
            System.out.printf(
                    Locale.ROOT,
                    "| %s vs %s | %s | %s× |%n",
                    pair.get(0),
                    pair.get(1),
                    Stats.medianWithQuartiles(alsoAdded.get(pair), "%+.1f"),
                    Stats.medianWithQuartiles(alsoRatios.get(pair), "%.2f"));
        }
        engine.printPhases();
        measuring[0] = false;
        Map<String, List<Double>> chart = new LinkedHashMap<>();
        for (String k : List.of(
                "bare",
                SH_PEER,
                "runner (Linux supervisor)",
                EngineVariants.TRUSTED,
                EngineVariants.TRUSTED_1000,
                EngineVariants.ASK)) {
            chart.put(k, samples.get(k).stream().map(ns -> ns / 1e6).toList());
        }
        String when = java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MINUTES) + ", load "
                + Machine.loadAverage().orElse("?") + ", " + rounds + " rounds, node " + version
                + ", the runner's environment";
        Svg.write(
                Svg.docs().resolve("performance-launch.svg"),
                Svg.boxPlots("Launch: one call of a one-file echo skill, ms", when, chart));
        Variant bareOne = variants.get("bare");
        ConcurrencySweep.run(bareOne::once, engine::trustedConcurrent, sweepOps, when);
        Variant runnerVariant = variants.get("runner (Linux supervisor)");
        LaunchProfile.print("runner launches", 20, runnerVariant::once, base);
        LaunchProfile.print("`SkillGate.execute` calls, ask each time", 20, engine::askEachTime, base);
        engine.close();
    }

    /**
     * The environment every baseline starts with: the runner's own ({@code ChildEnvironment.forRun}:
     * {@code PATH}, {@code HOME}, {@code TMPDIR}, {@code LANG} and nothing else), so no baseline
     * inherits what the runner strips ({@code NODE_EXTRA_CA_CERTS} makes a node start 2.6× slower).
     */
    private static volatile Map<String, String> baselineEnvironment = Map.of();

    static Map<String, String> baselineEnvironment() {
        return baselineEnvironment;
    }

    static long bare(List<String> command, Path workspace, byte[] invocation) throws IOException, InterruptedException {
        return bare(command, baselineEnvironment, workspace, invocation);
    }

    /** One bare spawn of {@code command} with exactly {@code env}, fed {@code invocation}; wall nanoseconds. */
    static long bare(List<String> command, Map<String, String> env, Path workspace, byte[] invocation)
            throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().clear();
        pb.environment().putAll(env);
        pb.directory(workspace.toFile());
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        p.getOutputStream().write(invocation);
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        int exit = p.waitFor();
        long t1 = System.nanoTime();
        if (exit != 0 || out.length == 0) {
            throw new IllegalStateException("bare node failed: exit " + exit);
        }
        return t1 - t0;
    }

    /**
     * A fresh cgroup v2 directory for the cgroup variant: below {@code skillgate.bench.cgroup} when set,
     * else below the cgroup2 mount ({@code /sys/fs/cgroup/unified} on a hybrid host, {@code /sys/fs/cgroup}
     * on a unified one); removed at exit with the run cgroups left in it ({@link DelegatedCgroup}).
     */
    static Optional<Path> benchCgroup() {
        String configured = System.getProperty("skillgate.bench.cgroup", "");
        DelegatedCgroup cgroup = configured.isEmpty()
                ? DelegatedCgroup.create("skillgate-bench-")
                : DelegatedCgroup.createBelow(Path.of(configured), "skillgate-bench-");
        cgroup.directory()
                .ifPresent(dir -> Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    try {
                        cgroup.close();
                    } catch (IOException e) {
                        System.err.println("left " + dir + ": " + e.getMessage());
                    }
                })));
        return cgroup.directory();
    }
}
