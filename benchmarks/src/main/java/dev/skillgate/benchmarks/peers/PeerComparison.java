package dev.skillgate.benchmarks.peers;

import dev.skillgate.benchmarks.Machine;
import dev.skillgate.benchmarks.NodeHost;
import dev.skillgate.benchmarks.Proc;
import dev.skillgate.benchmarks.Stats;
import dev.skillgate.benchmarks.corpus.Bundles;
import dev.skillgate.benchmarks.corpus.ProtocolWorkloads;
import dev.skillgate.benchmarks.corpus.SkillCorpus;
import dev.skillgate.benchmarks.corpus.SkillCorpus.Category;
import dev.skillgate.inspect.SkillValidator;
import dev.skillgate.inspect.ValidationProfile;
import dev.skillgate.inspect.ValidationReport;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.shared.Text;
import dev.skillgate.protocol.CompiledSchema;
import dev.skillgate.protocol.SchemaCompilation;
import dev.skillgate.protocol.SchemaGate;
import dev.skillgate.protocol.SchemaRole;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Peer comparisons on the same inputs in the same run (issue 11, SPEC §17):
 *
 * <ol>
 *   <li><b>skills-ref 0.1.5</b> (npm, the JavaScript port of the reference validator) against
 *       Skillgate's {@link SkillValidator} under both profiles, over the seeded 1,000-bundle
 *       {@link SkillCorpus}: an agreement table per corpus category (with the reason for each
 *       known divergence) and the per-bundle cost, with node's process start-up and the package
 *       import timed separately. With {@code --python-ref DIR} (a checkout of
 *       {@code agentskills/agentskills}), the Python reference in {@code DIR/skills-ref/src} is
 *       compared the same way (it needs {@code strictyaml} importable by {@code python3}).
 *   <li><b>ajv 8</b> (npm, draft 2020-12) against Skillgate's protocol validation: agreement on the
 *       JSON-Schema-Test-Suite cases whose schemas fit the subset plus valid and invalid inputs of
 *       the benchmark workloads, and throughput on the three {@link ProtocolWorkloads}.
 * </ol>
 *
 * <p>The peers are installed by this harness with the system {@code npm} into
 * {@code benchmarks/peers} (ignored by git) at pinned versions. When npm cannot install them, the
 * harness says so and skips their tables; it never substitutes figures.
 */
public final class PeerComparison {
    static final String SKILLS_REF = "skills-ref@0.1.5";
    static final String AJV = "ajv@8.20.0";
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final JsonMapper EXACT = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .build();

    private final Path home;
    private final Path peers;
    private final Path node = NodeHost.NODE;
    private final Path npm = Path.of("/usr/bin/npm");
    private final int passes;
    private final double seconds;
    private static volatile long sink;

    private PeerComparison(Path home, Path peers, int passes, double seconds) {
        this.home = home;
        this.peers = peers;
        this.passes = passes;
        this.seconds = seconds;
    }

    public static void main(String[] args) throws Exception {
        Path home = Path.of(System.getProperty("skillgate.bench.home", "benchmarks"))
                .toAbsolutePath()
                .normalize();
        Path peers = home.resolve("peers");
        Optional<Path> pythonRef = Optional.empty();
        boolean install = true;
        int passes = 7;
        double seconds = 6;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--python-ref" ->
                    pythonRef = Optional.of(Path.of(args[++i]).toAbsolutePath());
                case "--no-install" -> install = false;
                case "--peers" -> peers = Path.of(args[++i]).toAbsolutePath();
                case "--passes" -> passes = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        new PeerComparison(home, peers, passes, seconds).run(install, pythonRef);
    }

    private void run(boolean install, Optional<Path> pythonRef) throws Exception {
        System.out.println("machine: " + Machine.describe());
        Path work = Files.createTempDirectory("skillgate-peers-");
        try {
            Optional<Path> modules = install ? install() : installed();
            List<SkillCorpus.Bundle> corpus = SkillCorpus.standard();
            List<Path> dirs = SkillCorpus.write(work.resolve("corpus"), corpus);
            Path list = work.resolve("dirs.json");
            ArrayNode array = JSON.createArrayNode();
            dirs.forEach(d -> array.add(d.toString()));
            Files.writeString(list, JSON.writeValueAsString(array));

            Ours ours = ours(dirs);
            if (modules.isPresent()) {
                skillsRef(modules.get(), corpus, ours, list, work, dirs);
            }
            if (pythonRef.isPresent()) {
                pythonReference(pythonRef.get(), corpus, ours, list, work);
            }
            if (modules.isPresent()) {
                ajv(modules.get(), work);
            }
        } finally {
            Bundles.deleteTree(work);
        }
    }

    // --- installation -------------------------------------------------------------------------

    private Optional<Path> installed() {
        Path modules = peers.resolve("node_modules");
        if (version(modules, "skills-ref").equals(Optional.of(SKILLS_REF.substring(SKILLS_REF.indexOf('@') + 1)))
                && version(modules, "ajv").equals(Optional.of(AJV.substring(AJV.indexOf('@') + 1)))) {
            return Optional.of(modules);
        }
        System.out.println("PEERS NOT INSTALLED in " + peers + " (" + SKILLS_REF + ", " + AJV
                + "): skills-ref and ajv tables skipped.");
        return Optional.empty();
    }

    private Optional<Path> install() throws IOException {
        Path modules = peers.resolve("node_modules");
        if (version(modules, "skills-ref").equals(Optional.of(SKILLS_REF.substring(SKILLS_REF.indexOf('@') + 1)))
                && version(modules, "ajv").equals(Optional.of(AJV.substring(AJV.indexOf('@') + 1)))) {
            System.out.println("peers: " + SKILLS_REF + " and " + AJV + " already installed in " + peers);
            return Optional.of(modules);
        }
        Files.createDirectories(peers);
        System.out.println("peers: npm install --prefix " + peers + " " + SKILLS_REF + " " + AJV);
        Proc.Result r = Proc.run(
                List.of(
                        npm.toString(),
                        "install",
                        "--prefix",
                        peers.toString(),
                        "--no-audit",
                        "--no-fund",
                        "--no-save",
                        SKILLS_REF,
                        AJV),
                peers,
                300);
        if (!r.ok()) {
            System.out.println("NPM UNREACHABLE OR FAILED (" + Text.excerpt(r.failure())
                    + "): skills-ref and ajv tables skipped; nothing is substituted.");
            return Optional.empty();
        }
        return installed();
    }

    private static Optional<String> version(Path modules, String name) {
        Path pkg = modules.resolve(name).resolve("package.json");
        if (!Files.isRegularFile(pkg)) {
            return Optional.empty();
        }
        try {
            return Optional.of(JSON.readTree(pkg.toFile()).get("version").asString());
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    // --- Skillgate's side of the skill comparison ----------------------------------------------

    /** Skillgate's verdicts (both profiles), the description it reads, and warm pass times. */
    record Ours(
            List<ValidationReport> strict,
            List<ValidationReport> reference,
            List<Double> strictPassMs,
            List<Double> referencePassMs) {}

    private Ours ours(List<Path> dirs) {
        List<ValidationReport> strict = new ArrayList<>();
        List<ValidationReport> reference = new ArrayList<>();
        for (Path d : dirs) {
            strict.add(SkillValidator.validate(d, ValidationProfile.STRICT));
            reference.add(SkillValidator.validate(d, ValidationProfile.REFERENCE_COMPATIBLE));
        }
        Ours ours = new Ours(strict, reference, new ArrayList<>(), new ArrayList<>());
        timeOurs(dirs, ours, 5);
        return ours;
    }

    /** Adds {@link #passes} timed passes per profile to {@code ours}, after {@code warmup} untimed ones. */
    private void timeOurs(List<Path> dirs, Ours ours, int warmup) {
        for (int pass = -warmup; pass < passes; pass++) {
            for (ValidationProfile profile : ValidationProfile.values()) {
                long t0 = System.nanoTime();
                int valid = 0;
                for (Path d : dirs) {
                    valid += SkillValidator.validate(d, profile).portable() ? 1 : 0;
                }
                double ms = (System.nanoTime() - t0) / 1e6;
                sink += valid;
                if (pass >= 0) {
                    (profile == ValidationProfile.STRICT ? ours.strictPassMs() : ours.referencePassMs()).add(ms);
                }
            }
        }
    }

    // --- skills-ref (npm) ----------------------------------------------------------------------

    private void skillsRef(
            Path modules, List<SkillCorpus.Bundle> corpus, Ours ours, Path list, Path work, List<Path> dirs)
            throws IOException {
        Path driver = resource(work, "skills-ref-driver.mjs");
        Path empty = work.resolve("empty.json");
        Files.writeString(empty, "[]");
        List<Double> bareNode = new ArrayList<>();
        List<Double> emptyRun = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            bareNode.add(ms(Proc.run(List.of(node.toString(), "-e", "0"), work, 60)));
            emptyRun.add(ms(Proc.run(
                    List.of(node.toString(), driver.toString(), modules.toString(), empty.toString(), "0"), work, 60)));
        }
        Proc.Result r = Proc.run(
                List.of(
                        node.toString(),
                        driver.toString(),
                        modules.toString(),
                        list.toString(),
                        String.valueOf(passes)),
                work,
                1_800);
        timeOurs(dirs, ours, 0); // again after the peer's run: both sides' samples span the same minutes
        if (!r.ok()) {
            System.out.println("skills-ref driver failed (" + Text.excerpt(r.failure()) + "): table skipped.");
            return;
        }
        JsonNode out = JSON.readTree(r.stdout());
        List<PeerVerdict> peer = peerVerdicts(out);
        System.out.printf(
                Locale.ROOT,
                "%n### skills-ref %s (npm, node %s) vs Skillgate, %d bundles%n%n",
                out.get("version").asString(),
                out.get("node").asString(),
                corpus.size());
        agreementTable("skills-ref (JS)", corpus, ours, peer);
        List<Double> peerPass = doubles(out.get("passMs"));
        throughputTable(
                "skills-ref (JS) `validate()`",
                ours,
                peerPass,
                corpus.size(),
                String.format(
                        Locale.ROOT,
                        "node start-up and the skills-ref import, timed separately: `node -e 0` median %.1f ms;"
                                + " the driver with an empty list (start-up + import) median %.1f ms"
                                + " (import alone, inside the process: %.1f ms)",
                        Stats.median(bareNode),
                        Stats.median(emptyRun),
                        out.get("importMs").asDouble()));
    }

    // --- the Python reference (optional) --------------------------------------------------------

    private void pythonReference(Path checkout, List<SkillCorpus.Bundle> corpus, Ours ours, Path list, Path work)
            throws IOException {
        Path src = checkout.resolve("skills-ref").resolve("src");
        if (!Files.isDirectory(src.resolve("skills_ref"))) {
            System.out.println("PYTHON REFERENCE: " + src + " has no skills_ref package: table skipped.");
            return;
        }
        Path driver = resource(work, "skills_ref_driver.py");
        Path empty = work.resolve("empty.json");
        Files.writeString(empty, "[]");
        List<String> base = List.of("python3", driver.toString(), src.toString());
        Proc.Result probe = Proc.run(concat(base, empty.toString(), "0"), work, 120);
        if (!probe.ok()) {
            System.out.println("PYTHON REFERENCE cannot run (" + Text.excerpt(probe.failure())
                    + "; it needs python3 with strictyaml): table skipped.");
            return;
        }
        List<Double> emptyRun = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            emptyRun.add(ms(Proc.run(concat(base, empty.toString(), "0"), work, 120)));
        }
        Proc.Result r = Proc.run(concat(base, list.toString(), String.valueOf(passes)), work, 3_600);
        if (!r.ok()) {
            System.out.println("PYTHON REFERENCE failed (" + Text.excerpt(r.failure()) + "): table skipped.");
            return;
        }
        JsonNode out = JSON.readTree(r.stdout());
        System.out.printf(Locale.ROOT, "%n### skills-ref (Python checkout %s) vs Skillgate%n%n", checkout);
        agreementTable("skills-ref (Python)", corpus, ours, peerVerdicts(out));
        throughputTable(
                "skills-ref (Python) `validate()`",
                ours,
                doubles(out.get("passMs")),
                corpus.size(),
                String.format(
                        Locale.ROOT,
                        "python3 start-up and the import, timed separately: median %.1f ms",
                        Stats.median(emptyRun)));
    }

    private static List<String> concat(List<String> base, String... more) {
        List<String> all = new ArrayList<>(base);
        all.addAll(List.of(more));
        return all;
    }

    // --- tables ---------------------------------------------------------------------------------

    /** A peer's verdict on one bundle: valid when it reported no error; what it read as description. */
    record PeerVerdict(boolean valid, List<String> errors, Optional<String> description) {}

    private static List<PeerVerdict> peerVerdicts(JsonNode out) {
        List<PeerVerdict> verdicts = new ArrayList<>();
        for (JsonNode result : out.get("results")) {
            List<String> errors = new ArrayList<>();
            result.get("errors").forEach(e -> errors.add(e.asString()));
            JsonNode d = result.get("description");
            verdicts.add(new PeerVerdict(
                    errors.isEmpty(), errors, d == null || d.isNull() ? Optional.empty() : Optional.of(d.asString())));
        }
        return verdicts;
    }

    private static void agreementTable(
            String peerName, List<SkillCorpus.Bundle> corpus, Ours ours, List<PeerVerdict> peer) {
        if (peer.size() != corpus.size()) {
            throw new IllegalStateException(peerName + " returned " + peer.size() + " verdicts");
        }
        Map<Category, int[]> rows = new EnumMap<>(Category.class);
        Map<Category, String> firstSurprise = new EnumMap<>(Category.class);
        int[] total = new int[7];
        for (int i = 0; i < corpus.size(); i++) {
            Category c = corpus.get(i).category();
            int[] row = rows.computeIfAbsent(c, k -> new int[7]);
            boolean p = peer.get(i).valid();
            boolean ref = ours.reference().get(i).portable();
            boolean strict = ours.strict().get(i).portable();
            int[] add = {
                1,
                p ? 1 : 0,
                ref ? 1 : 0,
                strict ? 1 : 0,
                p != ref ? 1 : 0,
                p != strict ? 1 : 0,
                p && ref && differentReading(peer.get(i), ours.reference().get(i)) ? 1 : 0
            };
            for (int k = 0; k < add.length; k++) {
                row[k] += add[k];
                total[k] += add[k];
            }
            if (p != ref && c.knownDivergence().isEmpty() && !firstSurprise.containsKey(c)) {
                firstSurprise.put(
                        c,
                        "unexpected: bundle " + i + " — " + peerName + ": "
                                + (p
                                        ? "valid"
                                        : "'"
                                                + Text.excerpt(
                                                        peer.get(i).errors().get(0)) + "'")
                                + "; Skillgate: "
                                + (ref ? "valid" : codes(ours.reference().get(i))));
            }
        }
        System.out.println("| corpus category | bundles | " + peerName
                + " valid | Skillgate reference-compatible valid | Skillgate strict valid"
                + " | verdict differs from " + peerName + ": reference-compatible / strict"
                + " | both valid, description read differently | reason for the differences |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---|");
        for (Map.Entry<Category, int[]> e : rows.entrySet()) {
            int[] r = e.getValue();
            boolean differs = r[4] > 0 || r[5] > 0 || r[6] > 0;
            String reason = firstSurprise.containsKey(e.getKey())
                    ? firstSurprise.get(e.getKey())
                    : differs ? e.getKey().knownDivergence() : "";
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %d | %d | %d | %d | %d / %d | %d | %s |%n",
                    e.getKey().description(),
                    r[0],
                    r[1],
                    r[2],
                    r[3],
                    r[4],
                    r[5],
                    r[6],
                    reason);
        }
        System.out.printf(
                Locale.ROOT,
                "| **all** | %d | %d | %d | %d | **%d / %d** | %d | |%n",
                total[0],
                total[1],
                total[2],
                total[3],
                total[4],
                total[5],
                total[6]);
        System.out.printf(
                Locale.ROOT,
                "%nSame verdict as %s: reference-compatible profile %d of %d (%.1f%%), strict profile %d of %d"
                        + " (%.1f%%).%n",
                peerName,
                total[0] - total[4],
                total[0],
                100.0 * (total[0] - total[4]) / total[0],
                total[0] - total[5],
                total[0],
                100.0 * (total[0] - total[5]) / total[0]);
    }

    private static boolean differentReading(PeerVerdict peer, ValidationReport ours) {
        if (peer.description().isEmpty()) {
            return false;
        }
        return !peer.description()
                .get()
                .strip()
                .equals(ours.skillDescription().orElse("").strip());
    }

    private static String codes(ValidationReport report) {
        return report.portableErrors().stream()
                .map(Diagnostic::code)
                .map(Enum::name)
                .distinct()
                .limit(3)
                .reduce((a, b) -> a + ", " + b)
                .orElse("?");
    }

    private static void throughputTable(
            String peerLabel, Ours ours, List<Double> peerPassMs, int bundles, String startupNote) {
        double strictUs = Stats.median(ours.strictPassMs()) * 1000 / bundles;
        double referenceUs = Stats.median(ours.referencePassMs()) * 1000 / bundles;
        double peerUs = Stats.median(peerPassMs) * 1000 / bundles;
        System.out.printf(
                Locale.ROOT,
                "%n| per bundle, warm (median of passes over the same %d directories; Skillgate: %d passes before"
                        + " and after the peer's %d) | µs per bundle (p25–p75 of passes) | bundles/s | ratio to %s |%n",
                bundles,
                ours.strictPassMs().size(),
                peerPassMs.size(),
                peerLabel);
        System.out.println("|---|---:|---:|---:|");
        System.out.printf(
                Locale.ROOT,
                "| %s (baseline) | %s | %,.0f | 1.00 |%n",
                peerLabel,
                perBundle(peerPassMs, bundles),
                1e6 / peerUs);
        System.out.printf(
                Locale.ROOT,
                "| Skillgate `SkillValidator.validate`, reference-compatible | %s | %,.0f | %.2f |%n",
                perBundle(ours.referencePassMs(), bundles),
                1e6 / referenceUs,
                referenceUs / peerUs);
        System.out.printf(
                Locale.ROOT,
                "| Skillgate `SkillValidator.validate`, strict | %s | %,.0f | %.2f |%n",
                perBundle(ours.strictPassMs(), bundles),
                1e6 / strictUs,
                strictUs / peerUs);
        System.out.println();
        System.out.println("Ratio = time per bundle / the peer's time per bundle (below 1: Skillgate is faster)."
                + " Process start-up is not in these figures: " + startupNote + ".");
    }

    private static String perBundle(List<Double> passMs, int bundles) {
        List<Double> us = passMs.stream().map(ms -> ms * 1000 / bundles).toList();
        return Stats.medianWithQuartiles(us, "%.1f");
    }

    // --- ajv ------------------------------------------------------------------------------------

    /** One agreement case: a schema (as JSON text), data (as the exact JSON text), expected verdict. */
    record Case(String set, String label, String schema, String data, boolean expected, boolean ours) {}

    private void ajv(Path modules, Path work) throws IOException {
        List<Case> cases = new ArrayList<>();
        suiteCases(cases);
        workloadCases(cases);
        List<ProtocolWorkloads.Workload> workloads = ProtocolWorkloads.all();

        ObjectNode job = JSON.createObjectNode();
        job.put("seconds", seconds);
        ArrayNode w = job.putArray("workloads");
        for (ProtocolWorkloads.Workload wl : workloads) {
            w.addObject()
                    .put("id", wl.id())
                    .put("schema", wl.schemaJson())
                    .put("input", new String(wl.input(), StandardCharsets.UTF_8));
        }
        ArrayNode c = job.putArray("cases");
        for (Case k : cases) {
            c.addObject().set("schema", EXACT.readTree(k.schema())).put("data", k.data());
        }
        Path jobFile = work.resolve("ajv-job.json");
        Files.writeString(jobFile, EXACT.writeValueAsString(job));
        Path driver = resource(work, "ajv-driver.mjs");

        Map<String, List<Double>> oursNs = new java.util.HashMap<>();
        Map<String, List<Double>> networkntNs = new java.util.HashMap<>();
        measureOurs(workloads, oursNs, networkntNs);
        Proc.Result r = Proc.run(
                List.of(node.toString(), driver.toString(), modules.toString(), jobFile.toString()), work, 1_800);
        measureOurs(workloads, oursNs, networkntNs);
        if (!r.ok()) {
            System.out.println("ajv driver failed (" + Text.excerpt(r.failure()) + "): tables skipped.");
            return;
        }
        JsonNode out = JSON.readTree(r.stdout());
        System.out.printf(
                Locale.ROOT,
                "%n### ajv %s (npm, draft 2020-12, node %s) vs Skillgate's protocol validation%n%n",
                out.get("version").asString(),
                out.get("node").asString());

        // Agreement.
        JsonNode verdicts = out.get("verdicts");
        Map<String, int[]> sets = new java.util.LinkedHashMap<>();
        List<String> disagreements = new ArrayList<>();
        for (int i = 0; i < cases.size(); i++) {
            Case k = cases.get(i);
            JsonNode v = verdicts.get(i);
            boolean ajvError = v.has("error");
            boolean ajvValid = !ajvError && v.get("valid").asBoolean();
            int[] row = sets.computeIfAbsent(k.set(), s -> new int[5]);
            row[0]++;
            row[1] += k.ours() == k.expected() ? 1 : 0;
            row[2] += !ajvError && ajvValid == k.expected() ? 1 : 0;
            row[3] += !ajvError && ajvValid == k.ours() ? 1 : 0;
            row[4] += ajvError ? 1 : 0;
            if (ajvError || ajvValid != k.ours() || k.ours() != k.expected()) {
                disagreements.add(String.format(
                        Locale.ROOT,
                        "- %s — expected %s, Skillgate %s, ajv %s%s",
                        k.label(),
                        k.expected() ? "valid" : "invalid",
                        k.ours() ? "valid" : "invalid",
                        ajvError ? "error" : ajvValid ? "valid" : "invalid",
                        ajvError ? " (" + Text.excerpt(v.get("error").asString()) + ")" : numberNote(k.data())));
            }
        }
        System.out.println(
                "| cases | count | Skillgate = expected | ajv = expected | Skillgate = ajv | ajv could not compile |");
        System.out.println("|---|---:|---:|---:|---:|---:|");
        sets.forEach((set, r5) -> System.out.printf(
                Locale.ROOT, "| %s | %d | %d | %d | %d | %d |%n", set, r5[0], r5[1], r5[2], r5[3], r5[4]));
        System.out.println();
        if (disagreements.isEmpty()) {
            System.out.println("No disagreement.");
        } else {
            System.out.println("Disagreements:");
            disagreements.forEach(System.out::println);
        }

        // Throughput.
        System.out.printf(
                Locale.ROOT,
                "%n| workload | input bytes | Skillgate `checkInvocation` (gate + networknt) | networknt alone, same"
                        + " schema | ajv `JSON.parse` + validate | ajv validate only (pre-parsed) | Skillgate /"
                        + " ajv (parse + validate) |%n");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|");
        for (JsonNode t : out.get("throughput")) {
            String id = t.get("id").asString();
            ProtocolWorkloads.Workload wl = ProtocolWorkloads.byId(id);
            double ours = Stats.median(oursNs.get(id));
            double ajvParse = t.get("withParse").get("medianNs").asDouble();
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %,d | %s | %s | %s | %s | %.2f |%n",
                    wl.label(),
                    wl.input().length,
                    nanos(ours),
                    nanos(Stats.median(networkntNs.get(id))),
                    nanos(ajvParse),
                    nanos(t.get("validateOnly").get("medianNs").asDouble()),
                    ours / ajvParse);
        }
        System.out.printf(
                Locale.ROOT,
                "%nMedians of ~10 ms rounds (%.0f s per side and workload; Skillgate and networknt measured before"
                        + " and after the node run, samples pooled). Ratio above 1: Skillgate is slower.%n",
                seconds);
    }

    private static String numberNote(String data) {
        return data.matches(".*[0-9]{16,}.*") || data.matches(".*[eE][+-]?[0-9]{3,}.*")
                ? " (a number beyond double precision: `JSON.parse` rounds it)"
                : "";
    }

    private void suiteCases(List<Case> cases) throws IOException {
        Path suite = home.resolve("..")
                .resolve("..")
                .resolve("shared")
                .resolve("testdata")
                .resolve("json-schema-test-suite")
                .resolve("draft2020-12")
                .normalize();
        if (!Files.isDirectory(suite)) {
            System.out.println("JSON-Schema-Test-Suite not found at " + suite + ": suite agreement skipped.");
            return;
        }
        List<Path> files;
        try (Stream<Path> s = Files.list(suite)) {
            files = s.filter(p -> p.getFileName().toString().endsWith(".json"))
                    .filter(p -> !p.getFileName().toString().equals("keyword-usage.json"))
                    .sorted()
                    .toList();
        }
        for (Path file : files) {
            JsonNode groups = EXACT.readTree(file.toFile());
            for (JsonNode group : groups) {
                String schema = EXACT.writeValueAsString(group.get("schema"));
                SchemaCompilation compilation = SchemaGate.compile(SchemaRole.OUTPUT, schema);
                if (compilation.compiled().isEmpty()) {
                    continue; // outside the subset: rejected at load, nothing to compare
                }
                CompiledSchema compiled = compilation.compiled().get();
                for (JsonNode test : group.get("tests")) {
                    String data = EXACT.writeValueAsString(test.get("data"));
                    boolean ours = compiled.checkResult(
                                    data.getBytes(StandardCharsets.UTF_8), new OutputLimit(OutputLimit.MAX_BYTES))
                            .isValid();
                    cases.add(new Case(
                            "JSON-Schema-Test-Suite draft 2020-12, groups inside the subset",
                            file.getFileName() + " / "
                                    + group.get("description").asString() + " / "
                                    + test.get("description").asString(),
                            schema,
                            data,
                            test.get("valid").asBoolean(),
                            ours));
                }
            }
        }
    }

    private static void workloadCases(List<Case> cases) {
        String set = "benchmark workloads: valid inputs and edits that break them";
        for (ProtocolWorkloads.Workload w : ProtocolWorkloads.all()) {
            CompiledSchema compiled = SchemaGate.compile(SchemaRole.INPUT, w.schemaJson())
                    .compiled()
                    .orElseThrow();
            String valid = new String(w.input(), StandardCharsets.UTF_8);
            List<String[]> variants = new ArrayList<>();
            variants.add(new String[] {"as is", valid});
            switch (w.id()) {
                case "small" -> {
                    variants.add(new String[] {"limit 51", valid.replace("\"limit\":10", "\"limit\":51")});
                    variants.add(new String[] {"mode not in enum", valid.replace("\"fast\"", "\"slow\"")});
                    variants.add(new String[] {"extra property", valid.replace("{\"query\"", "{\"x\":1,\"query\"")});
                    variants.add(new String[] {"id a boolean", valid.replace("\"id\":42", "\"id\":true")});
                    variants.add(new String[] {"limit 10.0", valid.replace("\"limit\":10", "\"limit\":10.0")});
                    variants.add(new String[] {"limit \"10\"", valid.replace("\"limit\":10", "\"limit\":\"10\"")});
                }
                case "nested" -> {
                    variants.add(new String[] {"missing required y", valid.replace(",\"y\":-3", "")});
                    variants.add(new String[] {"enum value", valid.replace("[\"red\",\"blue\"", "[\"pink\",\"blue\"")});
                    variants.add(new String[] {"number above maximum", valid.replace("\"n1\":1.25", "\"n1\":1e7")});
                }
                default -> {
                    variants.add(new String[] {
                        "a string over maxLength", valid.replace("\"item-000000000000\"", "\"" + "x".repeat(65) + "\"")
                    });
                    variants.add(new String[] {"a number among strings", valid.replace("\"item-000000000001\"", "1")});
                }
            }
            for (String[] v : variants) {
                boolean ours = compiled.checkInvocation(v[1].getBytes(StandardCharsets.UTF_8))
                        .isValid();
                cases.add(new Case(
                        set,
                        w.id() + " / " + v[0],
                        w.schemaJson(),
                        v[1],
                        v[0].equals("as is") || v[0].equals("limit 10.0"),
                        ours));
            }
        }
    }

    private void measureOurs(
            List<ProtocolWorkloads.Workload> workloads,
            Map<String, List<Double>> oursNs,
            Map<String, List<Double>> networkntNs) {
        for (ProtocolWorkloads.Workload w : workloads) {
            CompiledSchema compiled = SchemaGate.compile(SchemaRole.INPUT, w.schemaJson())
                    .compiled()
                    .orElseThrow();
            com.networknt.schema.Schema same;
            try {
                same = dev.skillgate.benchmarks.jmh.ProtocolBenchmark.validatorSchema(compiled);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
            byte[] input = w.input();
            oursNs.computeIfAbsent(w.id(), k -> new ArrayList<>())
                    .addAll(rounds(() -> compiled.checkInvocation(input).isValid(), seconds / 2));
            networkntNs
                    .computeIfAbsent(w.id(), k -> new ArrayList<>())
                    .addAll(rounds(() -> same.validate(JSON.readTree(input)).isEmpty(), seconds / 2));
        }
    }

    /** Rounds of about 10 ms after a quarter of the time as warm-up; ns per operation per round. */
    static List<Double> rounds(BooleanSupplier op, double seconds) {
        int n = 1;
        while (true) {
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sink += op.getAsBoolean() ? 1 : 0;
            }
            if (System.nanoTime() - t0 > 10_000_000L) {
                break;
            }
            n *= 2;
        }
        long warmEnd = System.nanoTime() + (long) (seconds * 0.25e9);
        while (System.nanoTime() < warmEnd) {
            for (int i = 0; i < n; i++) {
                sink += op.getAsBoolean() ? 1 : 0;
            }
        }
        List<Double> samples = new ArrayList<>();
        long end = System.nanoTime() + (long) (seconds * 0.75e9);
        while (System.nanoTime() < end || samples.size() < 10) {
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                sink += op.getAsBoolean() ? 1 : 0;
            }
            samples.add((System.nanoTime() - t0) / (double) n);
        }
        return samples;
    }

    // --- helpers --------------------------------------------------------------------------------

    private static Path resource(Path work, String name) throws IOException {
        Path target = work.resolve(name);
        try (InputStream in = PeerComparison.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            Files.write(target, in.readAllBytes());
        }
        return target;
    }

    private static double ms(Proc.Result r) {
        if (!r.ok()) {
            throw new IllegalStateException("peer start-up run failed: " + Text.excerpt(r.failure()));
        }
        return r.wallNanos() / 1e6;
    }

    private static List<Double> doubles(JsonNode array) {
        List<Double> values = new ArrayList<>();
        array.forEach(v -> values.add(v.asDouble()));
        return values;
    }

    private static String nanos(double ns) {
        return ns >= 1_000
                ? String.format(Locale.ROOT, "%.1f µs", ns / 1_000)
                : String.format(Locale.ROOT, "%.0f ns", ns);
    }
}
