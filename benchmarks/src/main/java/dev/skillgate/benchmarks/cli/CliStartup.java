package dev.skillgate.benchmarks.cli;

import dev.skillgate.benchmarks.Machine;
import dev.skillgate.benchmarks.NodeHost;
import dev.skillgate.benchmarks.Stats;
import dev.skillgate.runner.internal.ChildEnvironment;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * {@code benchmarks/bench cli [rounds]}: whole {@code skillgate} processes, as a user starts them
 * (decisions 0802, 0803, 0804). Per round every variant runs once, the order rotating from round to
 * round (paired and interleaved): {@code skillgate validate} of the hello-world sample and {@code
 * skillgate run --approve} of it through {@code bin/skillgate} (class path, the class-data sharing
 * archive in a private cache directory made before the first round), the same without the archive
 * ({@code SKILLGATE_CDS=off}), the same jars on the module path with the defaults the launcher used
 * before decision 0802, and the baselines {@code node -e 0} and {@code node hello.mjs} started with
 * the runner's environment ({@link ChildEnvironment#forRun}: no {@code NODE_EXTRA_CA_CERTS}).
 * {@code skills-ref validate} is the npm package {@code skills-ref@0.1.5} (the JavaScript port of the
 * reference validator; PyPI, where the Python original lives, is not reachable from this machine),
 * installed by the harness into {@code benchmarks/peers} and started as {@code node dist/cli.js
 * validate DIR} in the runner's environment; left out, with the reason, when npm cannot install it.
 * The launcher before decisions 0823–0825 ({@code git show 29fef9a:bin/skillgate}) runs in the same
 * rounds from a distribution-shaped directory linking to the built jars.
 *
 * <p>Wall time from just before the spawn to the exit, stdin written and closed, stdout and stderr
 * read to the end. Every run must succeed; a failed run ends the harness.
 */
public final class CliStartup {
    private static final String REVISION_PREFIX = "revision: ";

    private CliStartup() {}

    /** A process the harness starts: argv, environment, working directory, standard input. */
    record Variant(String name, List<String> argv, Map<String, String> env, Path cwd, byte[] stdin) {}

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        Path checkout = Path.of(System.getProperty("skillgate.bench.home", "benchmarks"))
                .toAbsolutePath()
                .normalize()
                .getParent();
        Path launcher = checkout.resolve("bin/skillgate");
        Path target = checkout.resolve("skill-cli/target");
        if (!Files.isRegularFile(target.resolve("skillgate.jar"))) {
            System.err.println("the CLI is not built: mvn -B -o -q -pl skill-cli -am package -DskipTests");
            System.exit(2);
        }
        Path hello = checkout.resolve("examples/skills/hello-world");
        Path work = Files.createTempDirectory("skillgate-bench-cli");
        try {
            run(rounds, checkout, launcher, target, hello, work);
        } finally {
            NodeHost.deleteTree(work);
        }
    }

    private static void run(int rounds, Path checkout, Path launcher, Path target, Path hello, Path work)
            throws Exception {
        Path cache = Files.createDirectory(
                work.resolve("cache"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path state = Files.createDirectory(
                work.resolve("state"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path workspace = Files.createDirectory(work.resolve("workspace"));
        Path nodeHome = Files.createDirectory(work.resolve("node-home"));
        Path nodeTmp = Files.createDirectory(work.resolve("node-tmp"));
        String node = NodeHost.NODE.toString();
        String input = "{\"name\":\"Ada\"}";

        Map<String, String> cli = new LinkedHashMap<>(System.getenv());
        cli.remove("SKILLGATE_JAVA_OPTS");
        cli.remove("JAVA_HOME");
        cli.put("XDG_CACHE_HOME", cache.toString());
        cli.put("XDG_STATE_HOME", state.toString());
        Map<String, String> noCds = new LinkedHashMap<>(cli);
        noCds.put("SKILLGATE_CDS", "off");
        Map<String, String> runnerEnv = ChildEnvironment.forRun(nodeHome, nodeTmp);

        // The revision the sample has now, for --approve.
        Result validated = exec(new Variant(
                "revision", List.of(launcher.toString(), "inspect", hello.toString()), cli, workspace, new byte[0]));
        String revision = validated
                .stdout()
                .lines()
                .map(String::strip)
                .filter(l -> l.startsWith(REVISION_PREFIX))
                .map(l -> l.substring(REVISION_PREFIX.length()).strip())
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no revision line in: " + validated.stdout()));
        // The first start made the archive; count its making once, apart from the rounds.
        long archives;
        try (var walk = Files.walk(cache)) {
            archives = walk.filter(p -> p.toString().endsWith(".jsa")).count();
        }

        List<String> moduleJava = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:+UseSerialGC",
                "-Xshare:auto",
                "-XX:TieredStopAtLevel=1",
                "-Dslf4j.internal.verbosity=ERROR",
                "--module-path",
                target.resolve("skillgate.jar") + ":" + target.resolve("lib"),
                "--module",
                "dev.skillgate.cli/dev.skillgate.cli.Main"));
        Map<String, String> moduleEnv = new LinkedHashMap<>(cli);
        moduleEnv.put("LC_ALL", "C.UTF-8");
        List<String> validate = List.of("validate", hello.toString());
        List<String> runArgs = List.of(
                "run",
                hello.toString(),
                "--node",
                node,
                "--input",
                input,
                "--approve",
                revision,
                "--workspace",
                workspace.toString());

        List<Variant> variants = new ArrayList<>();
        variants.add(new Variant(
                "skillgate validate (bin/skillgate: class path + CDS archive)",
                concat(List.of(launcher.toString()), validate),
                cli,
                workspace,
                new byte[0]));
        variants.add(new Variant(
                "skillgate validate (bin/skillgate, SKILLGATE_CDS=off)",
                concat(List.of(launcher.toString()), validate),
                noCds,
                workspace,
                new byte[0]));
        variants.add(new Variant(
                "skillgate validate (module path, the launcher's options before 0802)",
                concat(moduleJava, validate),
                moduleEnv,
                workspace,
                new byte[0]));
        variants.add(new Variant(
                "skillgate run --approve (bin/skillgate: class path + CDS archive)",
                concat(List.of(launcher.toString()), runArgs),
                cli,
                workspace,
                new byte[0]));
        variants.add(new Variant(
                "skillgate run --approve (bin/skillgate, SKILLGATE_CDS=off)",
                concat(List.of(launcher.toString()), runArgs),
                noCds,
                workspace,
                new byte[0]));
        variants.add(new Variant(
                "skillgate run --approve (module path, the launcher's options before 0802)",
                concat(moduleJava, runArgs),
                moduleEnv,
                workspace,
                new byte[0]));
        variants.add(new Variant(
                "node -e 0 (the runner's environment)", List.of(node, "-e", "0"), runnerEnv, workspace, new byte[0]));
        variants.add(new Variant(
                "node hello.mjs (the runner's environment)",
                List.of(node, hello.resolve("scripts/hello.mjs").toString()),
                runnerEnv,
                workspace,
                input.getBytes(StandardCharsets.UTF_8)));
        // skills-ref: the npm package (the JavaScript port of the reference validator, as bench peers
        // uses it; PyPI is not reachable here), pinned, installed into benchmarks/peers (ignored by
        // git), started as `node dist/cli.js validate DIR` in the runner's environment like node.
        Optional<Path> skillsRef = skillsRefCli(checkout.resolve("benchmarks/peers"));
        String skillsRefNote;
        if (skillsRef.isPresent()) {
            variants.add(new Variant(
                    "skills-ref validate (npm " + SKILLS_REF + ", node dist/cli.js, the runner's environment)",
                    List.of(node, skillsRef.get().toString(), "validate", hello.toString()),
                    runnerEnv,
                    workspace,
                    new byte[0]));
            skillsRefNote = "skills-ref: npm " + SKILLS_REF + " (" + skillsRef.get() + ")";
        } else {
            skillsRefNote = "skills-ref: left out, npm could not install " + SKILLS_REF
                    + " into benchmarks/peers (the Python package is not reachable either: PyPI)";
        }
        // The launcher before decisions 0823-0825 (git show 29fef9a:bin/skillgate), in the same rounds:
        // a distribution-shaped directory whose lib/ and examples/ link to this checkout's.
        Optional<Path> before = beforeLauncher(checkout, target, work);
        if (before.isPresent()) {
            variants.add(new Variant(
                    "skillgate run --approve (launcher before 0823-0825: forks, inspect-trained archive)",
                    concat(List.of(before.get().toString()), runArgs),
                    cli,
                    workspace,
                    new byte[0]));
            variants.add(new Variant(
                    "skillgate validate (launcher before 0823-0825)",
                    concat(List.of(before.get().toString()), validate),
                    cli,
                    workspace,
                    new byte[0]));
        }

        System.out.println("machine: " + Machine.describe());
        System.out.println("benchmarks/bench cli " + rounds + "; archives made before the rounds: " + archives + "; "
                + skillsRefNote);
        for (Variant v : variants) {
            exec(v); // one warm-up each: page cache, the archive of each JVM option set
        }
        Map<String, List<Double>> ms = new LinkedHashMap<>();
        variants.forEach(v -> ms.put(v.name(), new ArrayList<>()));
        for (int round = 0; round < rounds; round++) {
            for (int k = 0; k < variants.size(); k++) {
                Variant v = variants.get((k + round) % variants.size());
                ms.get(v.name()).add(exec(v).wallNanos() / 1e6);
            }
        }
        System.out.println("load average after: " + Machine.loadAverage().orElse("unknown"));
        System.out.println();
        System.out.println(
                "| process | wall ms, median (p25–p75) | ÷ node -e 0, per round | ÷ node hello.mjs, per round |");
        System.out.println("|---|---:|---:|---:|");
        List<Double> bare = ms.get(variants.get(6).name());
        List<Double> script = ms.get(variants.get(7).name());
        for (Variant v : variants) {
            List<Double> s = ms.get(v.name());
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %s | %s | %s |%n",
                    v.name(),
                    Stats.medianWithQuartiles(s, "%.0f"),
                    Stats.medianWithQuartiles(ratios(s, bare), "%.2f"),
                    Stats.medianWithQuartiles(ratios(s, script), "%.2f"));
        }
        System.out.println();
        System.out.println("| pair (same rounds) | ratio per round, median (p25–p75) |");
        System.out.println("|---|---:|");
        pair(ms, variants, 0, 2);
        pair(ms, variants, 0, 1);
        pair(ms, variants, 3, 5);
        pair(ms, variants, 3, 4);
        for (int k = 8; k < variants.size(); k++) {
            String name = variants.get(k).name();
            if (name.startsWith("skills-ref")) {
                pair(ms, variants, 0, k);
            } else if (name.startsWith("skillgate run")) {
                pair(ms, variants, 3, k);
            } else if (name.startsWith("skillgate validate")) {
                pair(ms, variants, 0, k);
            }
        }
    }

    private static void pair(Map<String, List<Double>> ms, List<Variant> variants, int a, int b) {
        String na = variants.get(a).name();
        String nb = variants.get(b).name();
        System.out.printf(
                Locale.ROOT,
                "| %s ÷ %s | %s |%n",
                na,
                nb,
                Stats.medianWithQuartiles(ratios(ms.get(na), ms.get(nb)), "%.2f"));
    }

    private static List<Double> ratios(List<Double> a, List<Double> b) {
        List<Double> r = new ArrayList<>(a.size());
        for (int i = 0; i < a.size(); i++) {
            r.add(a.get(i) / b.get(i));
        }
        return r;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    static final String SKILLS_REF = "skills-ref@0.1.5";

    /** The pinned skills-ref CLI ({@code dist/cli.js}) in {@code peers}, installed with npm if missing. */
    private static Optional<Path> skillsRefCli(Path peers) throws IOException, InterruptedException {
        Path pkg = peers.resolve("node_modules/skills-ref");
        Path cli = pkg.resolve("dist/cli.js");
        String version = SKILLS_REF.substring(SKILLS_REF.indexOf('@') + 1);
        if (!installedVersion(pkg).equals(Optional.of(version))) {
            Files.createDirectories(peers);
            System.out.println("skills-ref: npm install --prefix " + peers + " " + SKILLS_REF);
            Process p = new ProcessBuilder(
                            "/usr/bin/npm",
                            "install",
                            "--prefix",
                            peers.toString(),
                            "--no-audit",
                            "--no-fund",
                            "--no-save",
                            SKILLS_REF)
                    .directory(peers.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
        return installedVersion(pkg).equals(Optional.of(version)) && Files.isRegularFile(cli)
                ? Optional.of(cli)
                : Optional.empty();
    }

    private static Optional<String> installedVersion(Path pkg) throws IOException {
        Path json = pkg.resolve("package.json");
        if (!Files.isRegularFile(json)) {
            return Optional.empty();
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"version\"\\s*:\\s*\"([^\"]+)\"")
                .matcher(Files.readString(json));
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    /**
     * The launcher as it was before decisions 0823-0825, from git, in {@code work/before/bin} with
     * {@code lib} holding links to the built jars and {@code examples} a link to the checkout's; empty
     * when git cannot show it.
     */
    private static Optional<Path> beforeLauncher(Path checkout, Path target, Path work)
            throws IOException, InterruptedException {
        Path home = Files.createDirectory(work.resolve("before"));
        Path bin = Files.createDirectory(home.resolve("bin"));
        Path lib = Files.createDirectory(home.resolve("lib"));
        Path launcher = bin.resolve("skillgate");
        Process p = new ProcessBuilder("git", "-C", checkout.toString(), "show", BEFORE_0823 + ":bin/skillgate")
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .redirectOutput(launcher.toFile())
                .start();
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0 || Files.size(launcher) == 0) {
            return Optional.empty();
        }
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.createSymbolicLink(lib.resolve("skillgate.jar"), target.resolve("skillgate.jar"));
        try (var jars = Files.list(target.resolve("lib"))) {
            for (Path jar : jars.filter(j -> j.toString().endsWith(".jar")).toList()) {
                Files.createSymbolicLink(lib.resolve(jar.getFileName()), jar);
            }
        }
        Files.createSymbolicLink(home.resolve("examples"), checkout.resolve("examples"));
        return Optional.of(launcher);
    }

    /** The last commit with the launcher of decisions 0802/0803 alone. */
    static final String BEFORE_0823 = "29fef9a";

    record Result(String stdout, long wallNanos) {}

    private static Result exec(Variant v) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(v.argv()).directory(v.cwd().toFile());
        pb.environment().clear();
        pb.environment().putAll(v.env());
        long t0 = System.nanoTime();
        Process p = pb.start();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Thread errDrain = drain(p.getErrorStream(), err);
        p.getOutputStream().write(v.stdin());
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new IllegalStateException(v.name() + ": timed out");
        }
        long wall = System.nanoTime() - t0;
        errDrain.join(10_000);
        if (p.exitValue() != 0) {
            throw new IllegalStateException(v.name() + ": exit " + p.exitValue() + "\n"
                    + new String(out, StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8));
        }
        return new Result(new String(out, StandardCharsets.UTF_8), wall);
    }

    private static Thread drain(InputStream in, ByteArrayOutputStream sink) {
        Thread t = new Thread(
                () -> {
                    try (in) {
                        in.transferTo(sink);
                    } catch (IOException e) {
                        // what was read is kept
                    }
                },
                "bench-cli-drain");
        t.setDaemon(true);
        t.start();
        return t;
    }
}
