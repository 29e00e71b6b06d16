package dev.skillgate.cli.internal;

import dev.skillgate.cli.ExitCode;
import dev.skillgate.consent.ConsoleApprovalChannel;
import dev.skillgate.consent.TrustScope;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.engine.ExecutionEvent;
import dev.skillgate.engine.ExecutionListener;
import dev.skillgate.engine.ExecutionRequest;
import dev.skillgate.engine.LaunchAuthority;
import dev.skillgate.engine.PendingExecution;
import dev.skillgate.engine.SkillGate;
import dev.skillgate.engine.SkillSummary;
import dev.skillgate.engine.SupervisorSelection;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.inspect.DiscoveryOptions;
import dev.skillgate.inspect.DiscoveryResult;
import dev.skillgate.inspect.ShadowedSkill;
import dev.skillgate.inspect.SkillDiscovery;
import dev.skillgate.inspect.SkillValidator;
import dev.skillgate.inspect.ValidationReport;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.CleanupReport;
import dev.skillgate.model.Confinement;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ErrorGroup;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.InputType;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Limits;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.ProcessExit;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.ToolClass;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.runner.ProgressEvent;
import dev.skillgate.runner.ResourceCeilings;
import dev.skillgate.runner.linux.ConfinementPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code skillgate run DIR --node ABS_PATH --input JSON|@FILE [--workspace DIR] [--approve sha256:REV]
 * [--data-dir DIR] [--node-version V] [--node-sha256 sha256:HEX] [--json]}: runs one skill's script
 * through the engine, with the approval request shown on the terminal (SPEC §13).
 *
 * <p>A launch that a stored trusted-revision receipt authorised is announced before the script
 * starts (receipt id, scope, "not asked"), and {@code --json} says {@code "approval": "receipt"}.
 * Nothing runs over a data directory that another user could change ({@code DATA_DIRECTORY_UNSAFE}).
 *
 * <p>Without {@code --approve} the human answers the prompt ({@code y}/{@code yes} approves; anything
 * else, end of input included, denies). With {@code --approve} the request is still printed, and it
 * is approved only if the captured revision equals the one given; otherwise it is denied and nothing
 * runs. Exit codes: 0 succeeded, 1 failed or invalid input/bundle, 2 usage, 3 refused, 4 cleanup
 * unknown. Not a sandbox: an approved script runs with the user's files and network.
 */
final class RunCommand implements Command, Cli.NeedsInput {
    /** The agent id the CLI acts as (it binds consent and audit records). */
    static final AgentId AGENT = AgentId.of("skillgate-cli");

    /**
     * The agent context a skill's trust contract is checked against: the CLI itself, at its own
     * version, offering text, structured data and files as input and no tools beyond its own,
     * granting workspace-write (the script's working directory is the workspace), no credentials.
     * A statement about what the CLI offers, not a confinement.
     */
    static AgentContext agentContext() {
        SemVer version;
        try {
            version = SemVer.parse(Cli.version());
        } catch (InvalidValueException e) {
            version = SemVer.parse("0.0.0");
        }
        return AgentContext.of(
                AGENT.value(),
                version,
                Set.of(InputType.TEXT, InputType.STRUCTURED_DATA, InputType.FILE),
                Set.of(ToolClass.AGENT_NATIVE),
                PermissionMode.WORKSPACE_WRITE);
    }

    /** How long {@code close()} waits for a run to settle when the command ends. */
    static final Duration DRAIN_WAIT = Duration.ofSeconds(30);

    /** The process environment: where the default data directory goes ({@code XDG_STATE_HOME}, {@code HOME}). */
    private final Map<String, String> environment;

    /** The command over this process's environment. */
    RunCommand() {
        this(System.getenv());
    }

    /** The command over the given environment (tests). */
    RunCommand(Map<String, String> environment) {
        this.environment = Map.copyOf(environment);
    }

    @Override
    public String name() {
        return "run";
    }

    @Override
    public String summary() {
        return "run a skill's script after approving the exact request on the terminal";
    }

    @Override
    public String usage() {
        return """
                usage: skillgate run DIR|NAME --root DIR... --node ABS_PATH --input JSON|@FILE|@- [--workspace DIR]
                                     [--approve sha256:REV] [--data-dir DIR] [--node-version V]
                                     [--node-sha256 sha256:HEX] [--confinement require|prefer|off]
                                     [--show-stderr] [--cgroup DIR [--memory-max BYTES] [--pids-max N]
                                     [--cpu-max QUOTA/PERIOD]] [--json]

                Captures the skill in DIR, checks the input against its inputSchema, shows the approval
                request (files and digests, input, argv, workspace, runtime, limits, and the warning that
                the script runs as you with your files and network: this is not a sandbox), asks, then
                runs the script under the process supervisor and prints the checked envelope.

                  --root DIR          run the skill called NAME found in DIR (repeatable; the first
                                      root wins on equal names) instead of the skill directory DIR
                  --node ABS_PATH     the Node binary, an absolute path (never looked up on PATH)
                  --node-version V    the exact version it must report (default: ask it once, with an
                                      empty environment, and pin the answer)
                  --node-sha256 sha256:HEX  the SHA-256 the binary must have: checked before it is asked
                                      anything, again before launch, and on the very file that runs
                  --confinement P     kernel confinement (L2) from the skill's contract: prefer (default,
                                      what the kernel offers), require (refuse if a part is missing),
                                      off; the approval request lists what will be enforced
                  --cgroup DIR        a cgroup v2 directory delegated to you: each run gets its own
                                      child cgroup there, and cgroup.kill + populated 0 are added to
                                      its cleanup proof (a directory that is not one refuses the run)
                  --memory-max BYTES  with --cgroup: the run cgroup's memory.max
                  --pids-max N        with --cgroup: its pids.max (1 to 4194304)
                  --cpu-max QUOTA/PERIOD  with --cgroup: its cpu.max as microseconds per period, a
                                      whole percent of one CPU (50000/100000 is 50%; 1% to 102400%)
                  --input JSON|@FILE|@-  the invocation: the argument's bytes, or @ and a file holding
                                      it, or @- for standard input (then --approve is needed); <= 64 KiB
                  --workspace DIR     the script's working directory (default: the current directory)
                  --approve sha256:REV  approve without asking, only if the captured revision is REV
                  --data-dir DIR      private state (policy, audit log, staging); no other user may be
                                      able to change it or a directory on its path; default: a new
                                      directory in $XDG_STATE_HOME/skillgate (~/.local/state/skillgate),
                                      removed afterwards (kept when its staging is retained)
                  --show-stderr       after the run, print the script's own stderr on standard error,
                                      escaped (at most 16 KiB; more ends the run, and it says so); off
                                      by default; never in the JSON document or the audit log
                  --json              print the documented JSON document (docs/cli.md); the approval
                                      request then goes to standard error
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
        // The parsers the catalog and the execution meet first, initialised beside the gate's opening
        // (decision 0882); nothing here waits for it.
        Preinitializer.start();
        Args args = Args.parse(
                argv,
                Set.of("--json", "--show-stderr"),
                Set.of(
                        "--node",
                        "--node-version",
                        "--node-sha256",
                        "--confinement",
                        "--cgroup",
                        "--memory-max",
                        "--pids-max",
                        "--cpu-max",
                        "--input",
                        "--workspace",
                        "--approve",
                        "--data-dir"),
                Set.of("--root"));
        List<String> positionals = args.positionals();
        if (positionals.size() != 1) {
            throw new UsageException("expected exactly one skill directory (or a NAME with --root DIR)");
        }
        boolean json = args.has("--json");
        boolean showStderr = args.has("--show-stderr");
        // run NAME --root DIR...: the skill called NAME in those roots, first root first (decision 0640).
        List<Path> roots = new java.util.ArrayList<>();
        for (String root : args.values("--root")) {
            roots.add(CommandLineFiles.existingDirectory("--root", root));
        }
        Optional<String> byName = Optional.empty();
        Path dir;
        if (!roots.isEmpty()) {
            if (!dev.skillgate.model.SkillName.isValid(positionals.get(0))) {
                throw new UsageException("with --root, the argument is a skill name (a-z, 0-9, single hyphens), not '"
                        + Args.printable(positionals.get(0)) + "'");
            }
            byName = Optional.of(positionals.get(0));
            dir = roots.get(0);
        } else {
            dir = Path.of(positionals.get(0)).toAbsolutePath().normalize();
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                throw new UsageException(Args.missing("skill directory", positionals.get(0)));
            }
        }
        // No lambda here: each call site is linked in every cold JVM, ≈ 0.3 ms (decision 0895).
        if (args.value("--node").isEmpty()) {
            throw new UsageException("--node is required");
        }
        Path node = Path.of(args.value("--node").get());
        if (!node.isAbsolute()) {
            throw new UsageException("--node must be an absolute path (it is never looked up on PATH)");
        }
        ConfinementPolicy confinement = ConfinementPolicy.PREFER;
        if (args.value("--confinement").isPresent()) {
            switch (args.value("--confinement").get()) {
                case "require" -> confinement = ConfinementPolicy.REQUIRE;
                case "prefer" -> confinement = ConfinementPolicy.PREFER;
                case "off" -> confinement = ConfinementPolicy.OFF;
                default -> throw new UsageException("--confinement is require, prefer or off");
            }
        }
        Optional<Path> cgroup = Optional.empty();
        if (args.value("--cgroup").isPresent()) {
            cgroup = Optional.of(CommandLineFiles.existingDirectory(
                    "--cgroup", args.value("--cgroup").get()));
        }
        ResourceCeilings ceilings = ceilings(args, cgroup.isPresent());
        Optional<Sha256Digest> nodeDigest = Optional.empty();
        if (args.value("--node-sha256").isPresent()) {
            try {
                nodeDigest = Optional.of(
                        Sha256Digest.parse(args.value("--node-sha256").get()));
            } catch (InvalidValueException e) {
                throw new UsageException("--node-sha256 needs sha256: and 64 lowercase hex digits");
            }
        }
        if (args.value("--input").isEmpty()) {
            throw new UsageException("--input is required");
        }
        String inputOption = args.value("--input").get();
        if (inputOption.equals("@-") && args.value("--approve").isEmpty()) {
            throw new UsageException("--input @- reads standard input, so the approval cannot be read there; give"
                    + " --approve sha256:REV");
        }
        // A larger input is not read: one byte over the bound is enough for the engine to refuse it
        // with JSON_TOO_LARGE by its size alone.
        Optional<byte[]> read = CommandLineFiles.invocation(inputOption, in, raw);
        byte[] input = read.isPresent() ? read.get() : new byte[Limits.INVOCATION_BYTES + 1];
        Path workspace = CommandLineFiles.existingDirectory(
                "--workspace", args.value("--workspace").orElse("."));
        Optional<Revision> approve = Optional.empty();
        if (args.value("--approve").isPresent()) {
            try {
                approve = Optional.of(Revision.parse(args.value("--approve").get()));
            } catch (InvalidValueException e) {
                throw new UsageException("--approve needs sha256: and 64 lowercase hex digits");
            }
        }
        Optional<String> dataDirOption = args.value("--data-dir");
        if (dataDirOption.isPresent() && dataDirOption.get().isEmpty()) {
            throw new UsageException("--data-dir must not be empty");
        }
        Optional<Path> defaultParent = Optional.empty();
        if (dataDirOption.isPresent()) {
            // A missing data directory is created (private state); something else in its place is
            // a usage error, not a fault.
            Path given = Path.of(dataDirOption.get());
            if (Files.exists(given, LinkOption.NOFOLLOW_LINKS)
                    && !Files.isDirectory(given, LinkOption.NOFOLLOW_LINKS)) {
                throw new UsageException(
                        "--data-dir is not a directory (links are never followed): " + Args.path(dataDirOption.get()));
            }
        } else {
            defaultParent = DataDirectories.defaultParent(environment, System.getProperty("user.home"));
            if (defaultParent.isEmpty()) {
                throw new UsageException(
                        "no default data directory: XDG_STATE_HOME and HOME are unset or not absolute; give --data-dir");
            }
        }
        PrintStream talk = json ? err : out;

        // Before anything runs (node --version included) and before anything is created: no other
        // user may be able to change the data directory or a directory on its path (decision 0520).
        Path checked = dataDirOption.isPresent()
                ? Path.of(dataDirOption.get()).toAbsolutePath().normalize()
                : defaultParent.orElseThrow();
        Optional<Diagnostic> unsafe = DataDirectories.unsafe(checked);
        if (unsafe.isPresent()) {
            return refused(json, out, err, ExitCode.REFUSED, dir, approve, unsafeLine(unsafe.get()), unsafe.get());
        }
        Optional<String> noexec = DataDirectories.noexecMount(checked);
        if (noexec.isPresent()) {
            // The supervisor helper is installed in the data directory and executed from there.
            String message = "the data directory " + Args.path(checked.toString()) + " is on a file system mounted"
                    + " noexec (" + Args.path(noexec.get()) + "), so the supervisor helper cannot be executed there;"
                    + " nothing ran (choose a --data-dir on a file system that allows execution, or remount it"
                    + " without noexec)";
            return refused(
                    json,
                    out,
                    err,
                    ExitCode.REFUSED,
                    dir,
                    approve,
                    "skillgate run: " + ErrorCode.DATA_DIRECTORY_NOEXEC + ": " + message,
                    Diagnostic.error(ErrorCode.DATA_DIRECTORY_NOEXEC, checked.toString(), message));
        }
        if (DataDirectories.runningAsRoot()) {
            err.println("skillgate run: warning: running skills as root. A root script can end the supervisor"
                    + " and the JVM (cgroup.kill) and start processes outside its tree (a cgroup-v1"
                    + " release_agent), so 'cleanup: PROVEN' means nothing against it; run skills as an"
                    + " unprivileged user.");
        }

        if (!Files.isRegularFile(node)) {
            // Checked before asking it anything, so the message says what is wrong (a link to a file
            // is fine here: NodeRuntime pins its real path).
            String message = "no Node binary at " + Args.path(node.toString()) + " (not a regular file)";
            return refused(
                    json,
                    out,
                    err,
                    ExitCode.REFUSED,
                    dir,
                    approve,
                    "skillgate run: RUNTIME_UNAVAILABLE: " + message,
                    Diagnostic.error(ErrorCode.RUNTIME_UNAVAILABLE, "", message));
        }
        if (nodeDigest.isPresent()) {
            // The pinned digest is checked before the binary is asked anything, so a binary that is
            // not the pinned one never runs, not even for --version.
            Optional<String> mismatch = digestMismatch(node, nodeDigest.get());
            if (mismatch.isPresent()) {
                return refused(
                        json,
                        out,
                        err,
                        ExitCode.REFUSED,
                        dir,
                        approve,
                        "skillgate run: RUNTIME_MISMATCH: " + mismatch.get() + "; nothing ran",
                        Diagnostic.error(ErrorCode.RUNTIME_MISMATCH, "", mismatch.get()));
            }
        }
        Optional<String> givenVersion = args.value("--node-version");
        // Asked once (decision 0826): without a pinned digest, the answer is also the runtime's first
        // full check, so the engine's verification before the launch does not start node again. In
        // that case (the default) node is asked on a thread of its own while this one creates the data
        // directory and the gate opens (decision 0866); every refusal keeps its place in the order:
        // the runtime's outcome is waited for before any later refusal is reported.
        RuntimeAnswer answer;
        Optional<Sha256Digest> pin = nodeDigest;
        if (givenVersion.isEmpty() && nodeDigest.isEmpty()) {
            CompletableFuture<Optional<NodeRuntime>> asking = new CompletableFuture<>();
            // No lambda here: each call site is linked in every cold JVM, ≈ 0.3 ms (decision 0895).
            Thread ask = new Thread(
                    new Runnable() {
                        @Override
                        public void run() {
                            try {
                                asking.complete(NodeRuntime.askAndPin(node));
                            } catch (RuntimeException | Error e) {
                                asking.completeExceptionally(e);
                            }
                        }
                    },
                    "skillgate-run-node-version");
            ask.setDaemon(true);
            ask.start();
            answer = new RuntimeAnswer(() -> runtimeOutcome(node, givenVersion, pin, () -> answerOf(asking)));
        } else {
            answer = new RuntimeAnswer(() -> runtimeOutcome(node, givenVersion, pin, Optional::empty));
            if (answer.get().refusal().isPresent()) {
                return refusedFor(
                        json, out, err, dir, approve, answer.get().refusal().get());
            }
        }

        Path dataDir;
        boolean temporary = dataDirOption.isEmpty();
        if (temporary) {
            DataDirectories.Created created = DataDirectories.createRun(defaultParent.orElseThrow());
            if ((created.unsafe().isPresent() || created.directory().isEmpty())
                    && answer.get().refusal().isPresent()) {
                // Asked before the data directory was made, the runtime's refusal came first (0866).
                return refusedFor(
                        json, out, err, dir, approve, answer.get().refusal().get());
            }
            if (created.unsafe().isPresent()) {
                Diagnostic d = created.unsafe().get();
                return refused(json, out, err, ExitCode.REFUSED, dir, approve, unsafeLine(d), d);
            }
            if (created.directory().isEmpty()) {
                String message = "cannot create a data directory in "
                        + Args.path(defaultParent.get().toString()) + " ("
                        + Args.safe(created.failure().orElse("unknown")) + "); give --data-dir";
                return refused(
                        json,
                        out,
                        err,
                        ExitCode.INVALID,
                        dir,
                        approve,
                        "skillgate run: " + message,
                        Diagnostic.error(
                                ErrorCode.DATA_DIRECTORY_UNUSABLE,
                                defaultParent.get().toString(),
                                message));
            }
            dataDir = created.directory().get();
        } else {
            dataDir = checked;
        }

        ExitCode code;
        Optional<ExecutionEnvelope> envelope = Optional.empty();
        AtomicReference<LaunchAuthority> authority = new AtomicReference<>();
        AtomicReference<ProgressLine> progress = new AtomicReference<>();
        AtomicReference<ProgressEvent.Stderr> scriptStderr = new AtomicReference<>();
        Header header = new Header();
        Path shownDataDir = dataDir;
        try (ApprovalAnswers answers = new ApprovalAnswers(talk, in, approve)) {
            SkillGate gate;
            try {
                // This process builds the gate to run one skill at once: its supervisor is prepared
                // while the gate opens its audit log and policy store (decision 0850), and it starts
                // the one spare helper this run takes, not a second one to retire unused (0865).
                SkillGate.Builder builder =
                        SkillGate.builder().prepareSupervisorAhead().spareForFirstExecutionOnly();
                if (showStderr) {
                    builder.deliverScriptStderr();
                }
                if (cgroup.isPresent()) { // no method reference (decision 0895)
                    builder.delegatedCgroup(cgroup.get());
                }
                builder.resourceCeilings(ceilings);
                gate = builder.dataDirectory(dataDir)
                        .confinement(confinement)
                        .skillRoots(roots.isEmpty() ? List.of(dir.getParent() == null ? dir : dir.getParent()) : roots)
                        .nodeRuntimeWhileBuilding(() -> answer.get().runtime().orElseThrow(RuntimeRefused::new))
                        .approvalChannel(answers)
                        .agentContext(agentContext())
                        // An anonymous class and plain tests, not lambdas: four call sites fewer to
                        // link in every cold JVM (decision 0895).
                        .listener(new ExecutionListener() {
                            @Override
                            public void onEvent(ExecutionEvent event) {
                                header.printIfNotYet();
                                Optional<LaunchAuthority> given = event.authority();
                                if (given.isPresent()) {
                                    LaunchAuthority a = given.get();
                                    authority.set(a);
                                    if (a instanceof LaunchAuthority.TrustedRevision receipt) {
                                        printReceipt(talk, receipt, shownDataDir);
                                    }
                                }
                                Optional<ProgressEvent> shown = event.progress();
                                if (shown.isPresent() && shown.get() instanceof ProgressEvent.Stderr p) {
                                    scriptStderr.set(p);
                                }
                                ProgressLine line = progress.get();
                                if (line != null) {
                                    line.on(event);
                                }
                            }
                        })
                        .build();
            } catch (RuntimeRefused e) {
                return refusedFor(
                        json, out, err, dir, approve, answer.get().refusal().orElseThrow());
            } catch (UncheckedIOException e) {
                if (answer.get().refusal().isPresent()) {
                    // The runtime's refusal comes first, as when node was asked before the gate (0866).
                    return refusedFor(
                            json, out, err, dir, approve, answer.get().refusal().get());
                }
                // The engine could not create or open its private state: a fault, reported, not a trace.
                IOException cause = e.getCause();
                String reason = cause instanceof java.nio.file.FileSystemException fse && fse.getReason() != null
                        ? fse.getReason()
                        : cause.getClass().getSimpleName();
                String message = "the data directory cannot be used (" + Args.safe(reason) + "): "
                        + Args.path(dataDir.toString());
                return refused(
                        json,
                        out,
                        err,
                        ExitCode.INVALID,
                        dir,
                        approve,
                        "skillgate run: " + message,
                        Diagnostic.error(ErrorCode.DATA_DIRECTORY_UNUSABLE, dataDir.toString(), message));
            }
            // The gate is built only with a runtime, so the answer is one (decision 0866).
            NodeRuntime runtime = answer.get().runtime().orElseThrow();
            Optional<String> version = answer.get().version();
            // No lambda here: each call site is linked in every cold JVM, ≈ 0.3 ms (decision 0895).
            Thread hook = new Thread(
                    new Runnable() {
                        @Override
                        public void run() {
                            gate.close(DRAIN_WAIT);
                        }
                    },
                    "skillgate-run-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            // The supervisor selection (the ServiceLoader scan and the report, over the preparation
            // started while the gate was built) needs nothing the catalog finds: it is made on a second
            // thread while this one walks the skill root (decision 0850). It is the same call the
            // launch makes, made once (the gate remembers it; a selection that threw is not
            // remembered, so the call below repeats it and reports as before), and it is waited for
            // before the gate closes and the temporary data directory is deleted.
            Thread prepare = new Thread(
                    new Runnable() { // not a lambda (decision 0895)
                        @Override
                        public void run() {
                            selectQuietly(gate);
                        }
                    },
                    "skillgate-run-prepare");
            prepare.setDaemon(true);
            prepare.start();
            try {
                Optional<String> wanted = byName;
                Path given = dir;
                // A loop, not a stream: no call sites to link in a cold JVM (decision 0895).
                Optional<SkillSummary> skill = Optional.empty();
                for (SkillSummary s : gate.catalog()) {
                    if (wanted.isPresent()
                            ? s.name().equals(wanted.get())
                            : s.location().getParent().equals(given)) {
                        skill = Optional.of(s);
                        break;
                    }
                }
                if (skill.isEmpty() && wanted.isPresent()) {
                    String message = "no loadable skill named '" + wanted.get() + "' in "
                            + roots.stream()
                                    .map(r -> Args.path(r.toString()))
                                    .collect(java.util.stream.Collectors.joining(", "));
                    err.println("skillgate run: " + ErrorCode.SKILL_NOT_FOUND + ": " + message);
                    if (json) {
                        JsonOut.print(
                                out,
                                refusedDocument(
                                        dir,
                                        approve,
                                        List.of(Diagnostic.error(ErrorCode.SKILL_NOT_FOUND, wanted.get(), message))));
                    }
                    return ExitCode.INVALID;
                }
                if (skill.isEmpty()) {
                    List<Diagnostic> why = notASkill(given, err);
                    if (json) {
                        JsonOut.print(out, refusedDocument(dir, approve, why));
                    }
                    return ExitCode.INVALID;
                }
                if (!json) {
                    // The header names the supervisor selected, which may still be being prepared: it is
                    // printed before the execution's first event (the engine selects the supervisor before
                    // its first event, so that print does not wait) or, when the execution ends without an
                    // event, before the envelope. The execution's capture and checks before the selection
                    // thus overlap the preparation instead of waiting behind it (decision 0867).
                    SkillSummary shown = skill.get();
                    boolean versionGiven = args.value("--node-version").isPresent();
                    Optional<Sha256Digest> digest = nodeDigest;
                    // An anonymous class, not a lambda (decision 0895).
                    header.set(new Runnable() {
                        @Override
                        public void run() {
                            SupervisorSelection selected = gate.supervisor();
                            out.println("skill: " + Args.safe(shown.name()) + " ("
                                    + Args.safe(shown.location().getParent().toString()) + ")");
                            out.println("  " + Args.safe(shown.description()));
                            out.println("runtime: "
                                    + Args.safe(runtime.executable().toString()) + " "
                                    + Args.safe(version.get())
                                    + (versionGiven ? "" : " (asked once, pinned)")
                                    + (digest.isPresent()
                                            ? ", " + digest.get() + " (pinned, checked again on the file that runs)"
                                            : ", digest not pinned (--node-sha256 pins it)"));
                            out.println("supervisor: " + Args.safe(selected.name())
                                    + (selected.available()
                                            ? (selected.provesCleanup()
                                                    ? " (proves cleanup)"
                                                    : " (cannot prove cleanup)")
                                            : " (none: " + Args.safe(selected.explanation()) + ")"));
                            out.println("data directory: " + Args.safe(shownDataDir.toString())
                                    + (temporary ? " (temporary)" : ""));
                            out.println();
                        }
                    });
                    progress.set(progressLine(gate, skill.get().name(), raw.thisProcess(), err));
                }
                ExecutionEnvelope env = executeInterruptibly(
                        gate,
                        ExecutionRequest.of(RunId.random(), AGENT, skill.get().name(), input, workspace),
                        err,
                        temporary ? Optional.of(dataDir) : Optional.empty());
                header.printIfNotYet();
                SupervisorSelection supervisor = gate.supervisor();
                envelope = Optional.of(env);
                code = exitCode(env);
                ProgressLine line = progress.getAndSet(null);
                if (line != null) {
                    line.close();
                }
                if (showStderr) {
                    printScriptStderr(err, Optional.ofNullable(scriptStderr.get()), env);
                }
                if (json) {
                    JsonOut.print(
                            out,
                            document(
                                    skill.get().name(),
                                    skill.get().location().getParent(),
                                    approve,
                                    Optional.ofNullable(authority.get()),
                                    supervisor,
                                    env,
                                    DataDirectories.runningAsRoot()));
                } else {
                    printEnvelope(out, env);
                }
            } finally {
                joinUninterruptibly(prepare);
                gate.close(DRAIN_WAIT);
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // The hook is running already.
                }
            }
        } finally {
            boolean retained =
                    envelope.flatMap(e -> e.cleanup().retainedStaging()).isPresent();
            if (temporary && !retained) {
                DataDirectories.deleteQuietly(dataDir);
            } else if (temporary) {
                err.println("skillgate run: the data directory is kept because its staging directory was retained: "
                        + Args.safe(dataDir.toString()));
            }
        }
        return code;
    }

    /**
     * The run's header, printed once, before anything else the execution prints (decision 0867); a
     * print that comes first from another thread waits for the one in progress.
     */
    private static final class Header {
        private Runnable print;
        private boolean printed;

        synchronized void set(Runnable print) {
            this.print = print;
        }

        synchronized void printIfNotYet() {
            if (print != null && !printed) {
                printed = true;
                print.run();
            }
        }
    }

    /** A refusal of the runtime steps: the line for stderr and the diagnostic for {@code --json}. */
    private record Refusal(String line, Diagnostic diagnostic) {}

    /** What the runtime steps concluded: the runtime and its version, or the refusal they end in. */
    private record RuntimeOutcome(Optional<NodeRuntime> runtime, Optional<String> version, Optional<Refusal> refusal) {
        static RuntimeOutcome refusedWith(String line, Diagnostic diagnostic) {
            return new RuntimeOutcome(Optional.empty(), Optional.empty(), Optional.of(new Refusal(line, diagnostic)));
        }
    }

    /** Thrown by the gate's runtime supplier when the runtime steps refused: the gate is not built. */
    private static final class RuntimeRefused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RuntimeRefused() {
            super("the runtime was refused", null, false, false);
        }
    }

    /** The runtime steps' outcome, worked out once, at its first use (the question may still run). */
    private static final class RuntimeAnswer {
        private final java.util.function.Supplier<RuntimeOutcome> work;
        private RuntimeOutcome outcome;

        RuntimeAnswer(java.util.function.Supplier<RuntimeOutcome> work) {
            this.work = work;
        }

        synchronized RuntimeOutcome get() {
            if (outcome == null) {
                outcome = work.get();
            }
            return outcome;
        }
    }

    /**
     * The runtime steps, in their order: the version given, asked and pinned (without a digest), or
     * asked after the digest check; the runtime pinned. {@code asked} is {@code askAndPin}'s answer.
     */
    private static RuntimeOutcome runtimeOutcome(
            Path node,
            Optional<String> givenVersion,
            Optional<Sha256Digest> nodeDigest,
            java.util.function.Supplier<Optional<NodeRuntime>> asked) {
        Optional<String> version = givenVersion;
        Optional<NodeRuntime> pinnedByAsking = Optional.empty();
        if (version.isEmpty() && nodeDigest.isEmpty()) {
            try {
                pinnedByAsking = asked.get();
            } catch (InvalidValueException e) {
                return RuntimeOutcome.refusedWith(
                        "skillgate run: " + e.code() + ": " + e.getMessage(),
                        Diagnostic.error(e.code(), "", e.getMessage()));
            }
            version = pinnedByAsking.map(r -> r.identity().version());
        } else if (version.isEmpty()) {
            version = askVersion(node);
        }
        if (version.isEmpty()) {
            String message = Args.path(node.toString()) + " did not answer --version";
            return RuntimeOutcome.refusedWith(
                    "skillgate run: RUNTIME_UNAVAILABLE: " + message,
                    Diagnostic.error(ErrorCode.RUNTIME_UNAVAILABLE, "", message));
        }
        try {
            NodeRuntime runtime = pinnedByAsking.isPresent()
                    ? pinnedByAsking.get()
                    : nodeDigest.isPresent()
                            ? NodeRuntime.pinned(node, version.get(), nodeDigest.get())
                            : NodeRuntime.pinned(node, version.get());
            return new RuntimeOutcome(Optional.of(runtime), version, Optional.empty());
        } catch (InvalidValueException e) {
            return RuntimeOutcome.refusedWith(
                    "skillgate run: " + e.code() + ": " + e.getMessage(),
                    Diagnostic.error(e.code(), "", e.getMessage()));
        }
    }

    /** {@code askAndPin}'s answer from the thread that asked, or what it threw, unchanged. */
    private static Optional<NodeRuntime> answerOf(CompletableFuture<Optional<NodeRuntime>> asking) {
        try {
            return asking.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error er) {
                throw er;
            }
            throw e;
        }
    }

    private static ExitCode refusedFor(
            boolean json, PrintStream out, PrintStream err, Path dir, Optional<Revision> approve, Refusal r) {
        return refused(json, out, err, ExitCode.REFUSED, dir, approve, r.line(), r.diagnostic());
    }

    /**
     * The gate's supervisor selection, made ahead of its first use (decision 0850). A failure is not
     * reported here: the selection is not remembered then, and the caller's own {@code
     * gate.supervisor()} (or the launch) makes it again and reports it exactly as without this call.
     */
    private static void selectQuietly(SkillGate gate) {
        try {
            gate.supervisor();
        } catch (RuntimeException e) {
            // Nothing to do: see above.
        }
    }

    /**
     * Waits for {@code thread} to end; an interrupt while waiting is kept for the caller, and the wait
     * goes on (the temporary data directory must not be deleted under a running helper install).
     */
    private static void joinUninterruptibly(Thread thread) {
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Runs the request; Ctrl-C (or SIGTERM) stops the script and waits for the run's real settlement,
     * at most {@link #DRAIN_WAIT}, instead of ending the JVM before it settled; a second signal exits
     * at once (130), naming the temporary data directory it leaves (decision 0638).
     */
    private static ExecutionEnvelope executeInterruptibly(
            SkillGate gate, ExecutionRequest request, PrintStream err, Optional<Path> temporary) {
        PendingExecution pending = gate.executeAsync(request);
        AtomicBoolean interrupted = new AtomicBoolean();
        try (Interrupts handlers = Interrupts.install(signal -> {
            if (interrupted.compareAndSet(false, true)) {
                err.println("skillgate run: SIG" + signal + ": stopping the script and waiting for the run to settle"
                        + " (at most " + DRAIN_WAIT.toSeconds() + " s; interrupt again to exit at once)");
                pending.cancel();
                return;
            }
            err.println("skillgate run: SIG" + signal + " again: exiting without waiting for the run to settle"
                    + temporary
                            .map(d -> "; the temporary data directory is left at " + Args.path(d.toString()))
                            .orElse("")
                    + " (its audit log records the settlement)");
            err.flush();
            Runtime.getRuntime().halt(130);
        })) {
            ExecutionEnvelope delivered = pending.await();
            if (!interrupted.get() || delivered.status() != dev.skillgate.model.ExecutionStatus.CLEANUP_UNKNOWN) {
                return delivered;
            }
            // Delivered early while the tree was still being terminated: wait for what the runner saw.
            try {
                return pending.settlement().toCompletableFuture().get(DRAIN_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
                err.println("skillgate run: the run did not settle within " + DRAIN_WAIT.toSeconds() + " s");
                return delivered;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return delivered;
            }
        }
    }

    /**
     * The live progress line on a terminal (decision 0641), with the manifest's deadline and output
     * limit; {@code null} when standard error is not this process's terminal.
     */
    private static ProgressLine progressLine(SkillGate gate, String name, boolean thisProcess, PrintStream err) {
        if (!thisProcess || !ProgressLine.stderrIsTerminal()) {
            return null;
        }
        long deadline = 0;
        long limit = 0;
        Optional<dev.skillgate.protocol.ManifestVerdict> manifest =
                gate.inspect(name).manifest();
        if (manifest.isPresent() && manifest.get() instanceof dev.skillgate.protocol.ManifestVerdict.Accepted a) {
            deadline = a.manifest().timeout().millis();
            limit = a.manifest().maxOutputBytes().bytes();
        }
        return ProgressLine.open(true, err, name, deadline, limit).orElse(null);
    }

    /**
     * {@code --show-stderr} (decision 0632): the script's captured stderr on standard error, line by
     * line, every line escaped (control and format characters as {@code \\uXXXX}, bytes that are not
     * UTF-8 as {@code \\xNN}), then whether bytes are missing. At most 16 KiB of the script's bytes.
     */
    static void printScriptStderr(PrintStream err, Optional<ProgressEvent.Stderr> captured, ExecutionEnvelope env) {
        if (captured.isEmpty()) {
            err.println("script stderr: not captured (the script did not start, or the run did not settle)");
            return;
        }
        ProgressEvent.Stderr s = captured.get();
        if (s.size() == 0) {
            err.println("script stderr: empty");
            return;
        }
        err.println("script stderr: " + s.size() + " bytes (the script's own bytes, escaped):");
        for (String line : escapedLines(s.bytes())) {
            err.println("  | " + line);
        }
        if (s.truncated()) {
            boolean overflowed = env.errors().stream()
                    .anyMatch(d ->
                            d.code() == ErrorCode.OUTPUT_LIMIT && d.location().equals("stderr"));
            err.println(
                    overflowed
                            ? "script stderr truncated: the script wrote more than " + Limits.STDERR_BYTES
                                    + " bytes, which ended the run (" + ErrorCode.OUTPUT_LIMIT + "); the rest was"
                                    + " not kept"
                            : "script stderr truncated: the capture was full (" + Limits.STDERR_BYTES
                                    + " bytes) when the run was ended; later bytes were not kept");
        }
    }

    /** The lines of {@code bytes} (split at {@code \n}), each escaped for a terminal. */
    static List<String> escapedLines(byte[] bytes) {
        List<String> lines = new java.util.ArrayList<>();
        int start = 0;
        for (int i = 0; i <= bytes.length; i++) {
            if (i == bytes.length || bytes[i] == '\n') {
                if (i < bytes.length || start < bytes.length) {
                    lines.add(escapedLine(bytes, start, i));
                }
                start = i + 1;
            }
        }
        return lines;
    }

    private static String escapedLine(byte[] bytes, int from, int to) {
        java.nio.charset.CharsetDecoder decoder = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes, from, to - from);
        java.nio.CharBuffer chars = java.nio.CharBuffer.allocate(to - from + 1);
        StringBuilder line = new StringBuilder();
        while (true) {
            java.nio.charset.CoderResult r = decoder.decode(in, chars, true);
            chars.flip();
            line.append(dev.skillgate.model.shared.Text.sanitize(chars.toString(), Integer.MAX_VALUE));
            chars.clear();
            if (r.isError()) {
                for (int k = 0; k < r.length(); k++) {
                    line.append(String.format("\\x%02X", in.get() & 0xFF));
                }
            } else if (r.isUnderflow()) {
                return line.toString();
            }
        }
    }

    /** A data directory another user could change: one line with the code, where, and why. */
    private static String unsafeLine(Diagnostic unsafe) {
        return "skillgate run: " + unsafe.code() + " at " + Args.safe(unsafe.location()) + ": "
                + Args.safe(unsafe.message()) + "; nothing ran (choose a --data-dir only you can change)";
    }

    /**
     * A refusal before the engine ran anything: {@code line} on standard error and, with {@code
     * --json}, the {@code skillgate.run/1} document with a {@code REFUSED} envelope (decision 0637).
     */
    private static ExitCode refused(
            boolean json,
            PrintStream out,
            PrintStream err,
            ExitCode code,
            Path dir,
            Optional<Revision> approve,
            String line,
            Diagnostic why) {
        err.println(line);
        if (json) {
            JsonOut.print(out, refusedDocument(dir, approve, List.of(why)));
        }
        return code;
    }

    /** The {@code skillgate.run/1} document of a refusal before a skill or a supervisor was known. */
    private static Map<String, Object> refusedDocument(Path dir, Optional<Revision> approve, List<Diagnostic> why) {
        ExecutionEnvelope env = ExecutionEnvelope.refused(RunId.random(), Optional.empty(), Duration.ZERO, why);
        return document(null, dir, approve, Optional.empty(), null, env, DataDirectories.runningAsRoot());
    }

    /** Says, before the script starts, that a stored receipt authorised this launch and nobody was asked. */
    private static void printReceipt(PrintStream talk, LaunchAuthority.TrustedRevision receipt, Path dataDir) {
        TrustScope scope = receipt.scope();
        talk.println("authorised by a trusted-revision receipt, not asked");
        talk.println("  receipt: " + receipt.receipt().id() + " (approved "
                + receipt.receipt().approvedAt() + ")");
        talk.println("  scope: " + receipt.scopeId() + ": revision " + scope.revision() + ", agent "
                + Args.safe(scope.agent().value()) + ", workspace "
                + Args.safe(scope.workspace().realPath().toString()) + ", timeout at most "
                + scope.timeoutCeiling().millis() + " ms, output at most "
                + scope.outputCeiling().bytes()
                + " bytes");
        talk.println("  revoke it with: skillgate trust revoke --data-dir " + Args.safe(dataDir.toString())
                + " --scope " + receipt.scopeId());
    }

    /**
     * Why the binary's bytes are not the pinned digest, read once through an open channel without
     * following a link at the real path; empty when they are.
     */
    static Optional<String> digestMismatch(Path node, Sha256Digest pinned) {
        MessageDigest md = Sha256Digest.newMessageDigest();
        try (FileChannel ch = FileChannel.open(node.toRealPath(), StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
            while (ch.read(buf) >= 0) {
                buf.flip();
                md.update(buf);
                buf.clear();
            }
        } catch (IOException e) {
            return Optional.of("the Node binary at " + Args.safe(node.toString()) + " cannot be read");
        }
        Sha256Digest actual = Sha256Digest.of(md.digest());
        return actual.equals(pinned)
                ? Optional.empty()
                : Optional.of("the Node binary at " + Args.safe(node.toString()) + " has SHA-256 " + actual
                        + ", --node-sha256 pins " + pinned);
    }

    /** Asks the binary for its version once, with an empty environment, bounded. */
    static Optional<String> askVersion(Path node) {
        ProcessBuilder pb = new ProcessBuilder(node.toString(), "--version");
        pb.environment().clear();
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        try {
            Process p = pb.start();
            p.getOutputStream().close();
            CompletableFuture<byte[]> head = CompletableFuture.supplyAsync(() -> {
                try (InputStream s = p.getInputStream()) {
                    byte[] first = s.readNBytes(65);
                    s.transferTo(java.io.OutputStream.nullOutputStream());
                    return first;
                } catch (IOException e) {
                    return new byte[0];
                }
            });
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.empty();
            }
            byte[] out = head.get(10, TimeUnit.SECONDS);
            String text = new String(out, StandardCharsets.UTF_8).strip();
            if (p.exitValue() != 0 || out.length > 64 || text.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(text);
        } catch (IOException | java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** Says why {@code dir} was not selected as a skill, and returns the reasons as diagnostics. */
    private static List<Diagnostic> notASkill(Path dir, PrintStream err) {
        List<Diagnostic> why = new java.util.ArrayList<>();
        ValidationReport report = SkillValidator.validate(dir);
        if (report.loadable()) {
            // The skill is fine, but the engine finds skills by discovering DIR's parent, and that
            // walk did not select it: say why instead of calling a loadable skill unloadable.
            err.println("skillgate run: " + Args.safe(dir.toString())
                    + " is a loadable skill, but discovery of its parent directory did not select it");
            Path parent = dir.getParent() == null ? dir : dir.getParent();
            DiscoveryResult found = SkillDiscovery.discover(DiscoveryOptions.of(List.of(parent)));
            for (ShadowedSkill s : found.shadowed()) {
                if (dir.equals(s.location().getParent())) {
                    String message = "a skill of the same name comes first: "
                            + Args.path(s.winner().toString());
                    err.println("  - " + ErrorCode.LAYOUT_SHADOWED + ": " + message);
                    why.add(Diagnostic.error(ErrorCode.LAYOUT_SHADOWED, dir.toString(), message));
                }
            }
            for (Diagnostic d : found.diagnostics()) {
                if (d.code() == ErrorCode.LAYOUT_WALK_LIMIT) {
                    err.println("  - " + d.code() + ": " + d.message());
                    why.add(d);
                }
            }
            err.println("  move the skill into a directory of its own skills to run it");
            if (why.isEmpty()) {
                why.add(Diagnostic.error(
                        ErrorCode.SKILL_NOT_FOUND,
                        dir.toString(),
                        "a loadable skill, but discovery of its parent directory did not select it"));
            }
            return why;
        }
        err.println("skillgate run: " + Args.safe(dir.toString()) + " is not a loadable skill");
        for (Diagnostic d : report.loadErrors()) {
            err.println("  - " + d.code() + ": " + d.message());
            why.add(d);
        }
        if (why.isEmpty()) {
            why.add(Diagnostic.error(ErrorCode.SKILL_NOT_FOUND, dir.toString(), "not a loadable skill"));
        }
        return why;
    }

    /** SPEC §13: 0 success, 1 failed or invalid, 3 refused, 4 cleanup unknown. */
    static ExitCode exitCode(ExecutionEnvelope env) {
        return switch (env.status()) {
            case SUCCEEDED -> ExitCode.OK;
            case CLEANUP_UNKNOWN -> ExitCode.CLEANUP_UNKNOWN;
            case REFUSED -> invalidInput(env) ? ExitCode.INVALID : ExitCode.REFUSED;
            default -> ExitCode.INVALID;
        };
    }

    /** A refusal because the input or the bundle is invalid (not consent, policy, gates or supervision). */
    private static boolean invalidInput(ExecutionEnvelope env) {
        if (env.errors().isEmpty()) {
            return false;
        }
        ErrorGroup group = env.errors().get(0).code().group();
        return switch (group) {
            case JSON, VALUE, SCHEMA, MANIFEST, FIELD, FRONTMATTER, PATH, READ, LAYOUT, CONTRACT -> true;
            default -> env.errors().get(0).code() == dev.skillgate.model.ErrorCode.EXECUTION_UNAVAILABLE;
        };
    }

    private static void printEnvelope(PrintStream out, ExecutionEnvelope env) {
        out.println();
        out.println("status: " + env.status());
        env.output().ifPresent(o -> out.println("output: " + Args.safe(o)));
        out.println("run: " + env.runId());
        out.println("revision: " + env.revision().map(Revision::toString).orElse("-"));
        out.println("runtime: " + env.runtimeVersion().map(Args::safe).orElse("-")
                + env.runtimeSha256().map(d -> " " + d).orElse(""));
        out.println("exit: " + exitText(env.exit()));
        out.println("elapsed: " + env.elapsed().toMillis() + " ms");
        CleanupReport c = env.cleanup();
        out.println("cleanup: " + c.status() + " (" + c.descendantsSeen() + " process(es) seen"
                + (c.detachedSeen() ? ", a detached descendant was seen" : "") + ")"
                + c.retainedStaging()
                        .map(p -> "; staging kept at " + Args.safe(p.toString()))
                        .orElse(""));
        out.println("hardening: " + env.hardening());
        out.println("confinement: " + confinementText(env.confinement()));
        for (Diagnostic d : env.errors()) {
            out.println("  " + d.severity().name().toLowerCase(java.util.Locale.ROOT) + ": " + d.code()
                    + (d.location().isEmpty() ? "" : " at " + d.location()) + ": " + d.message());
        }
    }

    /**
     * The cgroup limits of {@code --memory-max}, {@code --pids-max} and {@code --cpu-max} as the
     * engine's resource ceilings ({@link ResourceCeilings#NONE} without them). Each needs {@code
     * --cgroup}; a value that is no positive whole number in range is a usage error, so nothing runs.
     */
    static ResourceCeilings ceilings(Args args, boolean cgroup) throws UsageException {
        OptionalLong memory = OptionalLong.empty();
        OptionalLong pids = OptionalLong.empty();
        OptionalLong cpu = OptionalLong.empty();
        for (String option : List.of("--memory-max", "--pids-max", "--cpu-max")) {
            if (args.value(option).isPresent() && !cgroup) {
                throw new UsageException(option + " needs --cgroup DIR (the limit applies in the run's own cgroup)");
            }
        }
        if (args.value("--memory-max").isPresent()) {
            memory = OptionalLong.of(
                    positive("--memory-max", args.value("--memory-max").get(), Long.MAX_VALUE));
        }
        if (args.value("--pids-max").isPresent()) {
            pids = OptionalLong.of(
                    positive("--pids-max", args.value("--pids-max").get(), ResourceCeilings.MAX_PROCESSES));
        }
        if (args.value("--cpu-max").isPresent()) {
            String value = args.value("--cpu-max").get();
            String[] parts = value.split("/", -1);
            if (parts.length != 2) {
                throw new UsageException("--cpu-max is QUOTA/PERIOD in microseconds, e.g. 50000/100000 for half a CPU");
            }
            long quota = positive("--cpu-max", parts[0], 1_000_000_000L);
            long period = positive("--cpu-max", parts[1], 1_000_000L);
            if ((quota * 100) % period != 0
                    || quota * 100 / period < 1
                    || quota * 100 / period > ResourceCeilings.MAX_CPU_PERCENT) {
                throw new UsageException("--cpu-max must be a whole percent of one CPU, 1% to "
                        + ResourceCeilings.MAX_CPU_PERCENT + "% (QUOTA*100/PERIOD)");
            }
            cpu = OptionalLong.of(quota * 100 / period);
        }
        return ResourceCeilings.NONE.withCgroupLimits(memory, pids, cpu);
    }

    private static long positive(String option, String value, long max) throws UsageException {
        if (!value.matches("[1-9][0-9]{0,18}")) {
            throw new UsageException(
                    option + " needs a whole number of 1 or more, not '" + Args.printable(value) + "'");
        }
        long n;
        try {
            n = Long.parseLong(value);
        } catch (NumberFormatException e) {
            n = Long.MAX_VALUE;
        }
        if (n > max) {
            throw new UsageException(option + " is at most " + max);
        }
        return n;
    }

    /**
     * Every part of the envelope's confinement, in {@link Confinement.Kind} order: {@code process
     * reach ENFORCED, file writes NOT_REQUESTED, network NOT_REQUESTED, memory NOT_REQUESTED, process
     * count NOT_REQUESTED, cpu NOT_REQUESTED}.
     */
    static String confinementText(Confinement c) {
        StringBuilder b = new StringBuilder();
        for (Confinement.Kind k : Confinement.Kind.values()) {
            if (b.length() > 0) {
                b.append(", ");
            }
            b.append(k.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '))
                    .append(' ')
                    .append(c.part(k));
        }
        return b.toString();
    }

    /** The JSON member of a part: the record component's name ({@code processReach}, {@code cpu}). */
    private static String confinementMember(Confinement.Kind k) {
        String[] words = k.name().toLowerCase(java.util.Locale.ROOT).split("_");
        StringBuilder b = new StringBuilder(words[0]);
        for (int i = 1; i < words.length; i++) {
            b.append(Character.toUpperCase(words[i].charAt(0))).append(words[i], 1, words[i].length());
        }
        return b.toString();
    }

    private static String exitText(ProcessExit exit) {
        if (exit instanceof ProcessExit.Code c) {
            return "code " + c.code();
        }
        if (exit instanceof ProcessExit.Signal s) {
            return "signal " + s.signal();
        }
        return "not observed";
    }

    static Map<String, Object> document(
            String skill,
            Path dir,
            Optional<Revision> approve,
            Optional<LaunchAuthority> authority,
            SupervisorSelection supervisor,
            ExecutionEnvelope env,
            boolean root) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("schema", "skillgate.run/1");
        doc.put("skill", skill); // null when refused before the skill was known
        doc.put("directory", dir.toString());
        Optional<LaunchAuthority.TrustedRevision> receipt = authority
                .filter(LaunchAuthority.TrustedRevision.class::isInstance)
                .map(LaunchAuthority.TrustedRevision.class::cast);
        doc.put(
                "approval",
                receipt.isPresent() ? "receipt" : approve.isPresent() ? "--approve " + approve.get() : "terminal");
        doc.put("receipt", receipt.map(RunCommand::receipt).orElse(null));
        doc.put("runningAsRoot", root);
        if (supervisor == null) {
            doc.put("supervisor", null); // refused before a supervisor was selected
        } else {
            Map<String, Object> sup = new LinkedHashMap<>();
            sup.put("name", supervisor.name());
            sup.put("available", supervisor.available());
            sup.put("provesCleanup", supervisor.provesCleanup());
            sup.put("explanation", supervisor.explanation());
            doc.put("supervisor", sup);
        }
        doc.put("envelope", envelope(env));
        return doc;
    }

    private static Map<String, Object> receipt(LaunchAuthority.TrustedRevision r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", r.receipt().id().toString());
        m.put("approvedAt", r.receipt().approvedAt().toString());
        Map<String, Object> scope = new LinkedHashMap<>();
        scope.put("id", r.scopeId().toString());
        scope.put("revision", r.scope().revision().toString());
        scope.put("agent", r.scope().agent().value());
        scope.put("workspace", r.scope().workspace().realPath().toString());
        scope.put("timeoutCeilingMillis", r.scope().timeoutCeiling().millis());
        scope.put("outputCeilingBytes", r.scope().outputCeiling().bytes());
        m.put("scope", scope);
        return m;
    }

    static Map<String, Object> envelope(ExecutionEnvelope env) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", env.status().name());
        m.put("runId", env.runId().value());
        m.put("revision", env.revision().map(Revision::toString).orElse(null));
        m.put("runtimeVersion", env.runtimeVersion().orElse(null));
        m.put("runtimeSha256", env.runtimeSha256().map(Sha256Digest::toString).orElse(null));
        m.put("elapsedMillis", env.elapsed().toMillis());
        Map<String, Object> exit = new LinkedHashMap<>();
        if (env.exit() instanceof ProcessExit.Code c) {
            exit.put("kind", "code");
            exit.put("code", c.code());
        } else if (env.exit() instanceof ProcessExit.Signal s) {
            exit.put("kind", "signal");
            exit.put("signal", s.signal());
        } else {
            exit.put("kind", "notObserved");
        }
        m.put("exit", exit);
        m.put("output", env.output().orElse(null));
        m.put("errors", JsonOut.diagnostics(env.errors()));
        Map<String, Object> cleanup = new LinkedHashMap<>();
        cleanup.put("status", env.cleanup().status().name());
        cleanup.put("descendantsSeen", env.cleanup().descendantsSeen());
        cleanup.put("detachedSeen", env.cleanup().detachedSeen());
        cleanup.put(
                "retainedStaging",
                env.cleanup().retainedStaging().map(Path::toString).orElse(null));
        m.put("cleanup", cleanup);
        m.put("hardening", env.hardening().name());
        Map<String, Object> confinement = new LinkedHashMap<>();
        for (Confinement.Kind k : Confinement.Kind.values()) {
            confinement.put(confinementMember(k), env.confinement().part(k).name());
        }
        m.put("confinement", confinement);
        return m;
    }

    /**
     * The terminal approval channel: the console channel reading the human's answer, or — with
     * {@code --approve} — the same rendering answered {@code yes} only when the request's revision is
     * the given one.
     */
    private static final class ApprovalAnswers implements ApprovalChannel, AutoCloseable {
        private final PrintStream talk;
        private final InputStream in;
        private final Optional<Revision> approve;
        private ConsoleApprovalChannel console;

        ApprovalAnswers(PrintStream talk, InputStream in, Optional<Revision> approve) {
            this.talk = talk;
            this.in = in;
            this.approve = approve;
        }

        @Override
        public synchronized CompletionStage<dev.skillgate.consent.ApprovalDecision> request(
                dev.skillgate.consent.ApprovalRequest request) {
            Reader answers;
            Optional<String> mismatch = Optional.empty();
            if (approve.isPresent()) {
                Revision captured = request.artifact().revision();
                if (!approve.get().equals(captured)) {
                    mismatch = Optional.of("--approve names " + approve.get() + ", captured " + captured);
                }
                talk.println(mismatch.map(m -> m + ": answering no, nothing runs")
                        .orElse("--approve names the captured revision: answering yes"));
                answers = new StringReader(mismatch.isPresent() ? "no\n" : "yes\n");
            } else {
                answers = new InputStreamReader(in, StandardCharsets.UTF_8);
            }
            if (console != null) {
                console.close();
            }
            console = new ConsoleApprovalChannel(talk, answers);
            CompletionStage<dev.skillgate.consent.ApprovalDecision> shown = console.request(request);
            if (mismatch.isEmpty()) {
                return shown;
            }
            String reason = mismatch.get();
            return shown.thenApply(d -> dev.skillgate.consent.ApprovalDecision.deny(reason));
        }

        @Override
        public synchronized void close() {
            if (console != null) {
                console.close();
            }
        }
    }
}
