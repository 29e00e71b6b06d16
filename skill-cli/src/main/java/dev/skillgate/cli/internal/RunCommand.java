package dev.skillgate.cli.internal;

import dev.skillgate.cli.ExitCode;
import dev.skillgate.engine.ExecutionRequest;
import dev.skillgate.engine.PendingExecution;
import dev.skillgate.engine.SkillGate;
import dev.skillgate.engine.SkillSummary;
import dev.skillgate.engine.SupervisorSelection;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.InputType;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.ToolClass;
import dev.skillgate.protocol.ManifestVerdict;
import dev.skillgate.runner.NodeRuntime;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

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

    /**
     * The supervisor helper's directory beside the temporary data directories, in their parent
     * ({@code $XDG_STATE_HOME/skillgate/supervisor}); kept when a run's own directory is removed.
     */
    static final String SHARED_HELPER_DIRECTORY = "supervisor";

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

    /**
     * The run's steps in their order: the options; the refusals before anything runs (the data
     * directory's safety, the Node binary's file and pinned digest); the runtime asked, beside the
     * data directory's creation and the gate's opening; the skill found in the catalog; the execution.
     */
    @Override
    public ExitCode run(List<String> argv, InputStream in, RawArguments raw, PrintStream out, PrintStream err)
            throws UsageException {
        // The parsers the catalog and the execution meet first, initialised beside the gate's opening
        // (decision 0882); nothing here waits for it.
        Preinitializer.start();
        RunOptions options = RunOptions.parse(argv, in, raw, environment);
        RunReport.Refusals refusals = new RunReport.Refusals(options.json, out, err, options.dir, options.approve);
        Optional<ExitCode> refused = refusedBeforeAnythingRuns(options, refusals, err);
        if (refused.isPresent()) {
            return refused.get();
        }
        // Asked once (decision 0826): without a pinned digest, the answer is also the runtime's first
        // full check, so the engine's verification before the launch does not start node again. In
        // that case (the default) node is asked on a thread of its own while this one creates the data
        // directory and the gate opens (decision 0866); every refusal keeps its place in the order:
        // the runtime's outcome is waited for before any later refusal is reported.
        RunRuntime.Answer answer = RunRuntime.Answer.start(options.node, options.givenVersion, options.nodeDigest);
        if (!answer.askedAhead() && answer.outcome().refusal().isPresent()) {
            return refusals.refuse(answer.outcome().refusal().get());
        }
        Path dataDir;
        boolean temporary = options.dataDir.isEmpty();
        if (temporary) {
            Path parent = options.defaultParent.orElseThrow();
            DataDirectories.Created created = DataDirectories.createRun(parent);
            if ((created.unsafe().isPresent() || created.directory().isEmpty())
                    && answer.outcome().refusal().isPresent()) {
                // Asked before the data directory was made, the runtime's refusal came first (0866).
                return refusals.refuse(answer.outcome().refusal().get());
            }
            if (created.unsafe().isPresent()) {
                return refusals.unsafe(created.unsafe().get());
            }
            if (created.directory().isEmpty()) {
                String message = "cannot create a data directory in " + Args.path(parent.toString()) + " ("
                        + Args.safe(created.failure().orElse("unknown")) + "); give --data-dir";
                return refusals.refuse(
                        ExitCode.INVALID,
                        "skillgate run: " + message,
                        Diagnostic.error(ErrorCode.DATA_DIRECTORY_UNUSABLE, parent.toString(), message));
            }
            dataDir = created.directory().get();
        } else {
            dataDir = options.dataDir.get();
        }
        RunInGate inGate = null;
        try {
            // With --json the terminal's lines (receipt, approval request) go to standard error.
            PrintStream talk = options.json ? err : out;
            RunEvents events = new RunEvents(talk, dataDir);
            try (TerminalApprovals answers = new TerminalApprovals(talk, in, options.approve)) {
                SkillGate gate;
                try {
                    gate = openGate(options, dataDir, answer, answers, events);
                } catch (RunRuntime.Refused e) {
                    return refusals.refuse(answer.outcome().refusal().orElseThrow());
                } catch (UncheckedIOException e) {
                    if (answer.outcome().refusal().isPresent()) {
                        // The runtime's refusal comes first, as when node was asked before the gate (0866).
                        return refusals.refuse(answer.outcome().refusal().get());
                    }
                    // The engine could not create or open its private state: a fault, reported, not a trace.
                    IOException cause = e.getCause();
                    String reason = cause instanceof java.nio.file.FileSystemException fse && fse.getReason() != null
                            ? fse.getReason()
                            : cause.getClass().getSimpleName();
                    String message = "the data directory cannot be used (" + Args.safe(reason) + "): "
                            + Args.path(dataDir.toString());
                    return refusals.refuse(
                            ExitCode.INVALID,
                            "skillgate run: " + message,
                            Diagnostic.error(ErrorCode.DATA_DIRECTORY_UNUSABLE, dataDir.toString(), message));
                }
                inGate = new RunInGate(options, gate, answer.outcome(), dataDir, temporary, events);
                return inGate.run(refusals, raw, out, err);
            }
        } finally {
            boolean retained = inGate != null && inGate.retainedStaging();
            if (temporary && !retained) {
                DataDirectories.deleteQuietly(dataDir);
            } else if (temporary) {
                err.println("skillgate run: the data directory is kept because its staging directory was retained: "
                        + Args.safe(dataDir.toString()));
            }
        }
    }

    /**
     * The refusals before anything runs (node --version included) and before anything is created: a
     * data directory another user could change (decision 0520) or on a {@code noexec} mount, no Node
     * binary at the path, or one that is not the pinned digest. Running as root is warned about.
     */
    private static Optional<ExitCode> refusedBeforeAnythingRuns(
            RunOptions options, RunReport.Refusals refusals, PrintStream err) {
        Path checked = options.checkedDataDirectory();
        Optional<Diagnostic> unsafe = DataDirectories.unsafe(checked);
        if (unsafe.isPresent()) {
            return Optional.of(refusals.unsafe(unsafe.get()));
        }
        Optional<String> noexec = DataDirectories.noexecMount(checked);
        if (noexec.isPresent()) {
            // The supervisor helper is installed in the data directory and executed from there.
            String message = "the data directory " + Args.path(checked.toString()) + " is on a file system mounted"
                    + " noexec (" + Args.path(noexec.get()) + "), so the supervisor helper cannot be executed there;"
                    + " nothing ran (choose a --data-dir on a file system that allows execution, or remount it"
                    + " without noexec)";
            return Optional.of(refusals.refuse(
                    ExitCode.REFUSED,
                    "skillgate run: " + ErrorCode.DATA_DIRECTORY_NOEXEC + ": " + message,
                    Diagnostic.error(ErrorCode.DATA_DIRECTORY_NOEXEC, checked.toString(), message)));
        }
        if (DataDirectories.runningAsRoot()) {
            err.println("skillgate run: warning: running skills as root. A root script can end the supervisor"
                    + " and the JVM (cgroup.kill) and start processes outside its tree (a cgroup-v1"
                    + " release_agent), so 'cleanup: PROVEN' means nothing against it; run skills as an"
                    + " unprivileged user.");
        }
        Path node = options.node;
        if (!Files.isRegularFile(node)) {
            // Checked before asking it anything, so the message says what is wrong (a link to a file
            // is fine here: NodeRuntime pins its real path).
            String message = "no Node binary at " + Args.path(node.toString()) + " (not a regular file)";
            return Optional.of(refusals.refuse(
                    ExitCode.REFUSED,
                    "skillgate run: RUNTIME_UNAVAILABLE: " + message,
                    Diagnostic.error(ErrorCode.RUNTIME_UNAVAILABLE, "", message)));
        }
        if (options.nodeDigest.isPresent()) {
            // The pinned digest is checked before the binary is asked anything, so a binary that is
            // not the pinned one never runs, not even for --version.
            Optional<String> mismatch = RunRuntime.digestMismatch(node, options.nodeDigest.get());
            if (mismatch.isPresent()) {
                return Optional.of(refusals.refuse(
                        ExitCode.REFUSED,
                        "skillgate run: RUNTIME_MISMATCH: " + mismatch.get() + "; nothing ran",
                        Diagnostic.error(ErrorCode.RUNTIME_MISMATCH, "", mismatch.get())));
            }
        }
        return Optional.empty();
    }

    /**
     * The gate this process builds to run one skill at once: its supervisor is prepared while the gate
     * opens its audit log and policy store (decision 0850), and it starts the one spare helper this
     * run takes, not a second one to retire unused (0865). Throws {@link RunRuntime.Refused} when the
     * runtime steps refused, {@link UncheckedIOException} when the private state cannot be opened.
     */
    private static SkillGate openGate(
            RunOptions options, Path dataDir, RunRuntime.Answer runtime, TerminalApprovals answers, RunEvents events) {
        SkillGate.Builder builder = SkillGate.builder().prepareSupervisorAhead().spareForFirstExecutionOnly();
        if (options.showStderr) {
            builder.deliverScriptStderr();
        }
        if (options.cgroup.isPresent()) { // no method reference (decision 0895)
            builder.delegatedCgroup(options.cgroup.get());
        }
        if (options.defaultParent.isPresent()) {
            // A temporary data directory: the helper is kept beside it, shared by the runs that use
            // the same parent, instead of extracted anew into each (decision 0891). The parent passed
            // the same placement check as the data directory.
            builder.supervisorHelperDirectory(options.defaultParent.get().resolve(SHARED_HELPER_DIRECTORY));
        }
        Path dir = options.dir;
        return builder.resourceCeilings(options.ceilings)
                .dataDirectory(dataDir)
                .confinement(options.confinement)
                .skillRoots(
                        options.roots.isEmpty()
                                ? List.of(dir.getParent() == null ? dir : dir.getParent())
                                : options.roots)
                .nodeRuntimeWhileBuilding(runtime)
                .approvalChannel(answers)
                .agentContext(agentContext())
                .listener(events)
                .build();
    }

    /**
     * The steps inside an open gate: the shutdown hook that closes it, the supervisor selected on a
     * thread of its own while this one walks the skill root (decision 0850), the skill found, the
     * header, the execution and what is printed of it. Closes the gate before it returns.
     */
    private static final class RunInGate {
        private final RunOptions options;
        private final SkillGate gate;
        private final NodeRuntime runtime;
        private final Optional<String> version;
        private final Path dataDir;
        private final boolean temporary;
        private final RunEvents events;
        /** The execution's envelope, once it returned one. */
        private Optional<ExecutionEnvelope> envelope = Optional.empty();

        RunInGate(
                RunOptions options,
                SkillGate gate,
                RunRuntime.Outcome runtime,
                Path dataDir,
                boolean temporary,
                RunEvents events) {
            this.options = options;
            this.gate = gate;
            // The gate is built only with a runtime, so the outcome is one (decision 0866).
            this.runtime = runtime.runtime().orElseThrow();
            this.version = runtime.version();
            this.dataDir = dataDir;
            this.temporary = temporary;
            this.events = events;
        }

        /** Whether the execution returned an envelope whose staging directory was kept (not removed). */
        boolean retainedStaging() {
            return envelope.isPresent()
                    && envelope.get().cleanup().retainedStaging().isPresent();
        }

        ExitCode run(RunReport.Refusals refusals, RawArguments raw, PrintStream out, PrintStream err) {
            // No lambda here: each call site is linked in every cold JVM, ≈ 0.3 ms (decision 0895).
            SkillGate closing = gate;
            Thread hook = new Thread(
                    new Runnable() {
                        @Override
                        public void run() {
                            closing.close(DRAIN_WAIT);
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
                            selectQuietly(closing);
                        }
                    },
                    "skillgate-run-prepare");
            prepare.setDaemon(true);
            prepare.start();
            try {
                return findAndExecute(refusals, raw, out, err);
            } finally {
                joinUninterruptibly(prepare);
                gate.close(DRAIN_WAIT);
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // The hook is running already.
                }
            }
        }

        private ExitCode findAndExecute(
                RunReport.Refusals refusals, RawArguments raw, PrintStream out, PrintStream err) {
            Optional<SkillSummary> skill = skillAskedFor();
            if (skill.isEmpty() && options.byName.isPresent()) {
                StringBuilder roots = new StringBuilder();
                for (Path r : options.roots) {
                    roots.append(roots.length() == 0 ? "" : ", ").append(Args.path(r.toString()));
                }
                String name = options.byName.get();
                String message = "no loadable skill named '" + name + "' in " + roots;
                return refusals.refuse(
                        ExitCode.INVALID,
                        "skillgate run: " + ErrorCode.SKILL_NOT_FOUND + ": " + message,
                        Diagnostic.error(ErrorCode.SKILL_NOT_FOUND, name, message));
            }
            if (skill.isEmpty()) {
                return refusals.notFound(RunReport.notASkill(options.dir, err));
            }
            if (!options.json) {
                // The header names the supervisor selected, which may still be being prepared: it is
                // printed before the execution's first event (the engine selects the supervisor before
                // its first event, so that print does not wait) or, when the execution ends without an
                // event, before the envelope. The execution's capture and checks before the selection
                // thus overlap the preparation instead of waiting behind it (decision 0867).
                events.header(new Header(skill.get(), out));
                events.progress(progressLine(gate, skill.get().name(), raw.thisProcess(), err));
            }
            ExecutionEnvelope env = executeInterruptibly(
                    gate,
                    ExecutionRequest.of(RunId.random(), AGENT, skill.get().name(), options.input, options.workspace),
                    err,
                    temporary ? Optional.of(dataDir) : Optional.empty());
            events.printHeaderIfNotYet();
            SupervisorSelection supervisor = gate.supervisor();
            envelope = Optional.of(env);
            if (options.defaultParent.isPresent()) {
                RunReport.printIfSharedHelperTampered(
                        err, env, options.defaultParent.get().resolve(SHARED_HELPER_DIRECTORY));
            }
            events.closeProgress();
            if (options.showStderr) {
                RunReport.printScriptStderr(err, events.scriptStderr(), env);
            }
            if (options.json) {
                JsonOut.print(
                        out,
                        RunReport.document(
                                skill.get().name(),
                                skill.get().location().getParent(),
                                options.approve,
                                events.authority(),
                                supervisor,
                                env,
                                DataDirectories.runningAsRoot()));
            } else {
                RunReport.printEnvelope(out, env);
            }
            return RunReport.exitCode(env);
        }

        /** The skill named with {@code --root}, or the one in the directory given. A loop, not a stream (0895). */
        private Optional<SkillSummary> skillAskedFor() {
            for (SkillSummary s : gate.catalog()) {
                if (options.byName.isPresent()
                        ? s.name().equals(options.byName.get())
                        : s.location().getParent().equals(options.dir)) {
                    return Optional.of(s);
                }
            }
            return Optional.empty();
        }

        /** The run's header: the skill, the runtime, the supervisor selected and the data directory. */
        private final class Header implements Runnable {
            private final SkillSummary shown;
            private final PrintStream out;

            Header(SkillSummary shown, PrintStream out) {
                this.shown = shown;
                this.out = out;
            }

            @Override
            public void run() {
                SupervisorSelection selected = gate.supervisor();
                out.println("skill: " + Args.safe(shown.name()) + " ("
                        + Args.safe(shown.location().getParent().toString()) + ")");
                out.println("  " + Args.safe(shown.description()));
                out.println("runtime: "
                        + Args.safe(runtime.executable().toString()) + " "
                        + Args.safe(version.orElseThrow())
                        + (options.givenVersion.isPresent() ? "" : " (asked once, pinned)")
                        + (options.nodeDigest.isPresent()
                                ? ", " + options.nodeDigest.get() + " (pinned, checked again on the file that runs)"
                                : ", digest not pinned (--node-sha256 pins it)"));
                out.println("supervisor: " + Args.safe(selected.name())
                        + (selected.available()
                                ? (selected.provesCleanup() ? " (proves cleanup)" : " (cannot prove cleanup)")
                                : " (none: " + Args.safe(selected.explanation()) + ")"));
                out.println("data directory: " + Args.safe(dataDir.toString()) + (temporary ? " (temporary)" : ""));
                out.println();
            }
        }
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
        StopOnSignal stop = new StopOnSignal(pending, err, temporary);
        try (Interrupts handlers = Interrupts.install(stop)) {
            ExecutionEnvelope delivered = pending.await();
            if (!stop.interrupted.get() || delivered.status() != ExecutionStatus.CLEANUP_UNKNOWN) {
                return delivered;
            }
            // Delivered early while the tree was still being terminated: wait for what the runner saw.
            try {
                return pending.settlement().toCompletableFuture().get(DRAIN_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException | ExecutionException e) {
                err.println("skillgate run: the run did not settle within " + DRAIN_WAIT.toSeconds() + " s");
                return delivered;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return delivered;
            }
        }
    }

    /**
     * The signal handler of a waiting run (decision 0638): the first signal cancels the execution and
     * lets the command wait for its settlement; a second halts the JVM (130). A class, not a lambda,
     * on the path of every run (decision 0895).
     */
    private static final class StopOnSignal implements Consumer<String> {
        private final PendingExecution pending;
        private final PrintStream err;
        private final Optional<Path> temporary;
        final AtomicBoolean interrupted = new AtomicBoolean();

        StopOnSignal(PendingExecution pending, PrintStream err, Optional<Path> temporary) {
            this.pending = pending;
            this.err = err;
            this.temporary = temporary;
        }

        @Override
        public void accept(String signal) {
            if (interrupted.compareAndSet(false, true)) {
                err.println("skillgate run: SIG" + signal + ": stopping the script and waiting for the run to settle"
                        + " (at most " + DRAIN_WAIT.toSeconds() + " s; interrupt again to exit at once)");
                pending.cancel();
                return;
            }
            err.println("skillgate run: SIG" + signal + " again: exiting without waiting for the run to settle"
                    + (temporary.isPresent()
                            ? "; the temporary data directory is left at "
                                    + Args.path(temporary.get().toString())
                            : "")
                    + " (its audit log records the settlement)");
            err.flush();
            Runtime.getRuntime().halt(130);
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
        Optional<ManifestVerdict> manifest = gate.inspect(name).manifest();
        if (manifest.isPresent() && manifest.get() instanceof ManifestVerdict.Accepted a) {
            deadline = a.manifest().timeout().millis();
            limit = a.manifest().maxOutputBytes().bytes();
        }
        return ProgressLine.open(true, err, name, deadline, limit).orElse(null);
    }
}
