package dev.skillgate.cli.internal;

import dev.skillgate.cli.ExitCode;
import dev.skillgate.consent.ApprovalDecision;
import dev.skillgate.engine.ProjectGate;
import dev.skillgate.engine.ProjectRequest;
import dev.skillgate.engine.SkillGateAdmin;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ErrorGroup;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.ProcessExit;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.project.ProjectApprovalRequest;
import dev.skillgate.project.ProjectEnvelope;
import dev.skillgate.project.ProjectInspection;
import dev.skillgate.project.ProjectInspector;
import dev.skillgate.project.ProjectSnapshot;
import dev.skillgate.project.ScriptVerdict;
import dev.skillgate.project.StepResult;
import dev.skillgate.runner.NodeRuntime;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * {@code skillgate project inspect DIR [--out DIR] [--json]} and {@code skillgate project run DIR
 * --script NAME [--then NAME] --node ABS_PATH [--approve sha256:DIGEST] [--node-version V]
 * [--node-sha256 sha256:HEX] [--data-dir DIR] [--out DIR] [--json]}: the Node project profile
 * ({@code docs/project-profile.md}, decision 0650).
 *
 * <p>{@code inspect} runs nothing. {@code run} shows the exact plan (every step's argv, the input
 * digests, the limits, what is and is not enforced) and runs it only on {@code yes} or when
 * {@code --approve} names its approval digest. Exit codes: 0 succeeded, 1 failed or invalid, 2 usage,
 * 3 refused, 4 cleanup unknown. Not a sandbox: the project's code runs with your files and network.
 */
final class ProjectCommand implements Command, Cli.NeedsInput {
    /** The agent id the CLI acts as. */
    static final AgentId AGENT = AgentId.of("skillgate-cli");

    private final Map<String, String> environment;

    /** The command over this process's environment. */
    ProjectCommand() {
        this(System.getenv());
    }

    /** The command over the given environment (tests). */
    ProjectCommand(Map<String, String> environment) {
        this.environment = Map.copyOf(environment);
    }

    @Override
    public String name() {
        return "project";
    }

    @Override
    public String summary() {
        return "inspect a Node project's scripts, or run its test/build scripts as exact approved argv";
    }

    @Override
    public String usage() {
        return """
                usage: skillgate project inspect DIR [--out DIR] [--json]
                       skillgate project run DIR --script NAME [--then NAME] --node ABS_PATH
                                             [--approve sha256:DIGEST] [--node-version V]
                                             [--node-sha256 sha256:HEX] [--data-dir DIR] [--out DIR]
                                             [--cgroup DIR] [--json]

                inspect: reads package.json, package-lock.json, the tsconfig files, the sources and the
                installed node_modules without running anything, and says which scripts are supported
                (node --test FILES, node FILE, tsc --project TSCONFIG) and why the others are not.
                run: shows the exact plan (the argv of every step, the input digests, the limits, what
                is and is not enforced), asks, then runs the steps with the pinned node under the
                process supervisor. Only one script, or a build then a test (--script build --then test).
                No shell, npm, npx, lifecycle hook, install or download. This is not a sandbox.

                  --script NAME       the script to run (test, test:*, build, build:*)
                  --then NAME         a test script to run after a build script
                  --node ABS_PATH     the Node binary, an absolute path (never looked up on PATH)
                  --node-version V    the exact version it must report (default: ask it once and pin it)
                  --node-sha256 sha256:HEX  the SHA-256 the binary must have (checked before it runs)
                  --approve sha256:DIGEST  approve without asking, only if the plan's approval digest is DIGEST
                  --data-dir DIR      private state (policy, audit log, staging); default: a new directory
                                      in $XDG_STATE_HOME/skillgate, removed afterwards unless retained
                  --out DIR           the job-local output directory a build writes to (default: dist)
                  --cgroup DIR        a cgroup v2 directory delegated to you: each step gets its own
                                      child cgroup there, and cgroup.kill + populated 0 are added to
                                      its cleanup proof (a directory that is not one refuses the run)
                  --json              print a JSON document; the approval request then goes to stderr
                exit codes: 0 succeeded, 1 failed or invalid, 2 usage, 3 refused, 4 cleanup unknown
                """;
    }

    @Override
    public ExitCode run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
        return run(args, System.in, RawArguments.none(), out, err);
    }

    @Override
    public ExitCode run(List<String> argv, InputStream in, RawArguments raw, PrintStream out, PrintStream err)
            throws UsageException {
        if (argv.isEmpty() || !(argv.get(0).equals("inspect") || argv.get(0).equals("run"))) {
            throw new UsageException("expected 'inspect' or 'run'");
        }
        List<String> rest = argv.subList(1, argv.size());
        return argv.get(0).equals("inspect") ? inspect(rest, out) : runPlan(rest, in, out, err);
    }

    private ExitCode inspect(List<String> argv, PrintStream out) throws UsageException {
        Args args = Args.parse(argv, Set.of("--json"), Set.of("--out"));
        Path dir = projectDir(args);
        ProjectInspection inspection = ProjectInspector.inspect(dir, output(args));
        if (args.has("--json")) {
            JsonOut.print(out, inspectionDocument(inspection));
        } else {
            out.println("project: " + Args.safe(inspection.root().toString()));
            for (ScriptVerdict v : inspection.scripts()) {
                if (v instanceof ScriptVerdict.Supported s) {
                    out.println("  " + Args.safe(s.name()) + ": supported ("
                            + s.step().form() + "): node "
                            + Args.safe(String.join(" ", s.step().arguments())));
                } else {
                    ScriptVerdict.Refused r = (ScriptVerdict.Refused) v;
                    out.println("  " + Args.safe(r.name()) + ": refused "
                            + r.reason().code() + ": " + Args.safe(r.reason().message()));
                }
                out.println("      \"" + Args.safe(v.source()) + "\"");
            }
            for (Diagnostic d : inspection.problems()) {
                out.println("problem: " + d.code() + " at " + Args.safe(d.location()) + ": " + Args.safe(d.message()));
            }
            inspection.snapshot().ifPresent(s -> {
                out.println("snapshot: " + s.sourcePaths().size() + " source files, "
                        + s.dependencyPaths().size() + " dependency files, " + s.totalBytes() + " bytes");
                out.println("inputs: " + s.digests().combined());
            });
            out.println("nothing was run");
        }
        return inspection.usable() ? ExitCode.OK : ExitCode.INVALID;
    }

    private ExitCode runPlan(List<String> argv, InputStream in, PrintStream out, PrintStream err)
            throws UsageException {
        Args args = Args.parse(
                argv,
                Set.of("--json"),
                Set.of(
                        "--script",
                        "--then",
                        "--node",
                        "--node-version",
                        "--node-sha256",
                        "--approve",
                        "--data-dir",
                        "--out",
                        "--cgroup"));
        Path dir = projectDir(args);
        Optional<Path> cgroup = Optional.empty();
        if (args.value("--cgroup").isPresent()) {
            cgroup = Optional.of(CommandLineFiles.existingDirectory(
                    "--cgroup", args.value("--cgroup").get()));
        }
        ProjectGate.Builder gateBuilder = ProjectGate.builder();
        cgroup.ifPresent(gateBuilder::delegatedCgroup);
        PortablePath output = output(args);
        List<String> scripts = new ArrayList<>();
        scripts.add(args.value("--script").orElseThrow(() -> new UsageException("--script is required")));
        args.value("--then").ifPresent(scripts::add);
        boolean json = args.has("--json");
        PrintStream talk = json ? err : out;
        Path node = Path.of(args.value("--node").orElseThrow(() -> new UsageException("--node is required")));
        if (!node.isAbsolute()) {
            throw new UsageException("--node must be an absolute path (it is never looked up on PATH)");
        }
        Optional<Sha256Digest> nodeDigest = args.digest("--node-sha256");
        Optional<Sha256Digest> approve = args.digest("--approve");
        Optional<String> dataDirOption = args.value("--data-dir");
        if (dataDirOption.isPresent() && dataDirOption.get().isEmpty()) {
            throw new UsageException("--data-dir must not be empty");
        }
        Optional<Path> defaultParent = Optional.empty();
        if (dataDirOption.isEmpty()) {
            defaultParent = DataDirectories.defaultParent(environment, System.getProperty("user.home"));
            if (defaultParent.isEmpty()) {
                throw new UsageException(
                        "no default data directory: XDG_STATE_HOME and HOME are unset; give --data-dir");
            }
        }
        Path checked =
                dataDirOption.map(d -> Path.of(d).toAbsolutePath().normalize()).orElseGet(defaultParent::orElseThrow);
        Optional<Diagnostic> unsafe = DataDirectories.unsafe(checked);
        if (unsafe.isPresent()) {
            err.println("skillgate project: " + unsafe.get().code() + " at "
                    + Args.safe(unsafe.get().location()) + ": "
                    + Args.safe(unsafe.get().message()) + "; nothing ran");
            return ExitCode.REFUSED;
        }
        if (!Files.isRegularFile(node)) {
            err.println("skillgate project: RUNTIME_UNAVAILABLE: no Node binary at " + Args.safe(node.toString()));
            return ExitCode.REFUSED;
        }
        if (nodeDigest.isPresent() && !RunRuntime.fileDigest(node).equals(nodeDigest)) {
            err.println(
                    "skillgate project: RUNTIME_MISMATCH: the Node binary is not the one --node-sha256 pins; nothing ran");
            return ExitCode.REFUSED;
        }
        Optional<String> version = args.value("--node-version").or(() -> RunRuntime.askVersion(node));
        if (version.isEmpty()) {
            err.println("skillgate project: " + Args.safe(node.toString()) + " did not answer --version");
            return ExitCode.REFUSED;
        }
        NodeRuntime runtime;
        try {
            runtime = nodeDigest.isPresent()
                    ? NodeRuntime.pinned(node, version.get(), nodeDigest.get())
                    : NodeRuntime.pinned(node, version.get());
        } catch (InvalidValueException e) {
            err.println("skillgate project: " + e.getMessage());
            return ExitCode.REFUSED;
        }
        Path dataDir = checked;
        boolean temporary = dataDirOption.isEmpty();
        if (temporary) {
            DataDirectories.Created created = DataDirectories.createRun(defaultParent.orElseThrow());
            if (created.directory().isEmpty()) {
                err.println("skillgate project: cannot create a data directory; give --data-dir");
                return ExitCode.INVALID;
            }
            dataDir = created.directory().get();
            // The helper kept beside the temporary data directories, as for run (decision 0891).
            gateBuilder.supervisorHelperDirectory(
                    defaultParent.orElseThrow().resolve(RunCommand.SHARED_HELPER_DIRECTORY));
        }
        Optional<ProjectEnvelope> envelope = Optional.empty();
        try (SkillGateAdmin admin = SkillGateAdmin.open(dataDir);
                ProjectGate gate = gateBuilder
                        .admin(admin)
                        .nodeRuntime(runtime)
                        .approvalChannel(request -> answer(request, approve, talk, in))
                        .build()) {
            ProjectEnvelope e = gate.run(new ProjectRequest(RunId.random(), AGENT, dir, scripts, output));
            envelope = Optional.of(e);
            if (json) {
                JsonOut.print(out, envelopeDocument(e));
            } else {
                print(out, e);
            }
            return exitCode(e);
        } finally {
            if (temporary && envelope.flatMap(ProjectEnvelope::retainedStaging).isEmpty()) {
                DataDirectories.deleteQuietly(dataDir);
            } else if (temporary) {
                err.println("skillgate project: the data directory is kept because its staging was retained: "
                        + Args.safe(dataDir.toString()));
            }
        }
    }

    /** The terminal's answer: {@code --approve} decides by digest, otherwise the human types yes. */
    private static CompletionStage<ApprovalDecision> answer(
            ProjectApprovalRequest request, Optional<Sha256Digest> approve, PrintStream talk, InputStream in) {
        talk.print(request.text());
        if (approve.isPresent()) {
            boolean same = approve.get().equals(request.digest());
            talk.println(
                    same
                            ? "--approve names this plan's approval digest: answering yes"
                            : "--approve names " + approve.get() + ", not this plan: answering no, nothing runs");
            return CompletableFuture.completedFuture(
                    same ? request.approve() : new ApprovalDecision.Denied(ErrorCode.CONSENT_DENIED, "digest differs"));
        }
        talk.print("Run these steps? Type yes to approve: ");
        talk.flush();
        String line;
        try {
            line = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).readLine();
        } catch (IOException e) {
            line = null;
        }
        boolean yes =
                line != null && (line.strip().equals("yes") || line.strip().equals("y"));
        talk.println();
        return CompletableFuture.completedFuture(
                yes ? request.approve() : new ApprovalDecision.Denied(ErrorCode.CONSENT_DENIED, "not approved"));
    }

    private static void print(PrintStream out, ProjectEnvelope e) {
        out.println("status: " + e.status());
        for (StepResult s : e.steps()) {
            String exit = s.exit() instanceof ProcessExit.Code c
                    ? "exit " + c.code()
                    : s.exit() instanceof ProcessExit.Signal sig ? "signal " + sig.signal() : "not started";
            out.println("step " + Args.safe(s.script()) + ": " + s.outcome() + ", " + exit + ", cleanup "
                    + (s.cleanupProven() ? "PROVEN (" + s.proof() + ")" : "UNKNOWN")
                    + (s.detachedSeen() ? ", detached descendant seen" : ""));
            s.tests()
                    .ifPresent(t -> out.println("  tests " + t.tests() + ", pass " + t.passed() + ", fail " + t.failed()
                            + ", cancelled " + t.cancelled() + ", skipped " + t.skipped() + ", todo " + t.todo()
                            + " (printed by the project's own tests: evidence, not proof)"));
            tail(out, "stdout", s.stdout());
            tail(out, "stderr", s.stderr());
        }
        for (Diagnostic d : e.errors()) {
            out.println("error: " + d.code() + (d.location().isEmpty() ? "" : " at " + Args.safe(d.location())) + ": "
                    + Args.safe(d.message()));
        }
        out.println("cleanup: " + e.cleanup());
        e.retainedStaging().ifPresent(p -> out.println("retained staging: " + Args.safe(p.toString())));
    }

    private static void tail(PrintStream out, String name, String text) {
        if (text.isEmpty()) {
            return;
        }
        String[] lines = text.split("\n");
        int from = Math.max(0, lines.length - 20);
        out.println("  " + name + (from > 0 ? " (last 20 lines)" : "") + ":");
        for (int i = from; i < lines.length; i++) {
            out.println("    " + Args.safe(lines[i]));
        }
    }

    static ExitCode exitCode(ProjectEnvelope e) {
        return switch (e.status()) {
            case SUCCEEDED -> ExitCode.OK;
            case CLEANUP_UNKNOWN -> ExitCode.CLEANUP_UNKNOWN;
            case REFUSED ->
                e.errors().isEmpty()
                                || e.errors().get(0).code().group() != ErrorGroup.PROJECT
                                || e.errors().get(0).code() == ErrorCode.PROJECT_INPUT_CHANGED
                        ? ExitCode.REFUSED
                        : ExitCode.INVALID;
            default -> ExitCode.INVALID;
        };
    }

    private static Map<String, Object> inspectionDocument(ProjectInspection inspection) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("project", inspection.root().toString());
        doc.put("outputDirectory", inspection.outputDirectory().value());
        List<Map<String, Object>> scripts = new ArrayList<>();
        for (ScriptVerdict v : inspection.scripts()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", v.name());
            m.put("source", v.source());
            if (v instanceof ScriptVerdict.Supported s) {
                m.put("supported", true);
                m.put("form", s.step().form().name());
                m.put("kind", s.step().kind().name());
                m.put("nodeArguments", s.step().arguments());
                m.put(
                        "generatedTests",
                        s.step().generatedTests().stream()
                                .map(PortablePath::value)
                                .toList());
            } else {
                m.put("supported", false);
                m.put("refusal", JsonOut.diagnostic(((ScriptVerdict.Refused) v).reason()));
            }
            scripts.add(m);
        }
        doc.put("scripts", scripts);
        doc.put("problems", JsonOut.diagnostics(inspection.problems()));
        inspection.snapshot().ifPresent(s -> doc.put("inputs", inputs(s)));
        return doc;
    }

    private static Map<String, Object> inputs(ProjectSnapshot s) {
        Map<String, Object> m = new LinkedHashMap<>();
        ProjectSnapshot.InputDigests d = s.digests();
        m.put("combined", d.combined().toString());
        m.put("packageJson", d.packageJson().toString());
        m.put("lockfile", d.lockfile().map(Sha256Digest::toString).orElse(null));
        Map<String, Object> configs = new LinkedHashMap<>();
        d.configs().forEach((k, v) -> configs.put(k.value(), v.toString()));
        m.put("configs", configs);
        m.put("sources", d.sources().toString());
        m.put("dependencies", d.dependencies().toString());
        m.put("binLinks", d.binLinks().toString());
        m.put("sourceFiles", s.sourcePaths().size());
        m.put("dependencyFiles", s.dependencyPaths().size());
        m.put("bytes", s.totalBytes());
        return m;
    }

    private static Map<String, Object> envelopeDocument(ProjectEnvelope e) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("run", e.run().value());
        doc.put("status", e.status().name());
        doc.put("plan", e.plan().map(Sha256Digest::toString).orElse(null));
        doc.put("revision", e.revision().map(Object::toString).orElse(null));
        List<Map<String, Object>> steps = new ArrayList<>();
        for (StepResult s : e.steps()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("script", s.script());
            m.put("argv", s.argv());
            m.put("outcome", s.outcome().name());
            m.put("exitCode", s.exit() instanceof ProcessExit.Code c ? c.code() : null);
            m.put("cleanupProven", s.cleanupProven());
            m.put("detachedSeen", s.detachedSeen());
            m.put("proof", s.proof());
            m.put(
                    "tests",
                    s.tests()
                            .map(t -> Map.of(
                                    "tests",
                                    t.tests(),
                                    "pass",
                                    t.passed(),
                                    "fail",
                                    t.failed(),
                                    "cancelled",
                                    t.cancelled(),
                                    "skipped",
                                    t.skipped(),
                                    "todo",
                                    t.todo()))
                            .orElse(null));
            m.put("stdout", s.stdout());
            m.put("stderr", s.stderr());
            m.put("errors", JsonOut.diagnostics(s.errors()));
            steps.add(m);
        }
        doc.put("steps", steps);
        doc.put("errors", JsonOut.diagnostics(e.errors()));
        doc.put("cleanup", e.cleanup().name());
        doc.put("retainedStaging", e.retainedStaging().map(Path::toString).orElse(null));
        return doc;
    }

    private static Path projectDir(Args args) throws UsageException {
        if (args.positionals().size() != 1) {
            throw new UsageException("expected exactly one project directory");
        }
        Path dir = Path.of(args.positionals().get(0)).toAbsolutePath().normalize();
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw new UsageException(
                    "no such project directory (links are never followed): " + Args.safe(dir.toString()));
        }
        return dir;
    }

    private static PortablePath output(Args args) throws UsageException {
        String value = args.value("--out").orElse("dist");
        if (!PortablePath.isValid(value)) {
            throw new UsageException("--out must be a relative path inside the project");
        }
        return PortablePath.of(value);
    }
}
