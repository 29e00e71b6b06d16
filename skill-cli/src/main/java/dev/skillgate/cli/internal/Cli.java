package dev.skillgate.cli.internal;

import dev.skillgate.cli.ExitCode;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Dispatches {@code skillgate} subcommands and turns every outcome into an exit code. */
public final class Cli {
    /**
     * Every subcommand's name, in the order {@code --help} lists them. Only the command a command line
     * names is made ({@link #make}, decision 0834): making all ten loaded and initialised about 55
     * classes (every command's static state, the process environment copied twice) before any command
     * ran.
     */
    static final List<String> NAMES = List.of(
            "validate",
            "catalog",
            "inspect",
            "check-input",
            "verify-signature",
            "sign",
            "run",
            "audit",
            "trust",
            "project");

    /** The command called {@code name}, newly made; empty for a name that is not one. */
    static Optional<Command> make(String name) {
        // A plain switch, not a table of lambdas: nothing but the chosen command's class is loaded.
        Command command = switch (name) {
            case "validate" -> new ValidateCommand();
            case "catalog" -> new CatalogCommand();
            case "inspect" -> new InspectCommand();
            case "check-input" -> new CheckInputCommand();
            case "verify-signature" -> new VerifySignatureCommand();
            case "sign" -> new SignCommand();
            case "run" -> new RunCommand();
            case "audit" -> new AuditCommand();
            case "trust" -> new TrustCommand();
            case "project" -> new ProjectCommand();
            default -> null;
        };
        return Optional.ofNullable(command);
    }

    /** Every subcommand, in the order {@code --help} lists them (each newly made). */
    static List<Command> commands() {
        List<Command> all = new java.util.ArrayList<>();
        for (String name : NAMES) {
            all.add(make(name).orElseThrow());
        }
        return all;
    }

    /**
     * A command that reads standard input (the {@code run} command's approval prompt, {@code --input
     * @-}) or the raw bytes of its arguments ({@code --input JSON}).
     */
    interface NeedsInput {
        /** Runs the command with {@code in} as its standard input and {@code raw} as its argument bytes. */
        ExitCode run(List<String> args, InputStream in, RawArguments raw, PrintStream out, PrintStream err)
                throws UsageException;
    }

    private final InputStream in;
    private final PrintStream out;
    private final PrintStream err;
    private final RawArguments raw;

    /** A dispatcher reading {@code System.in} and writing to the given streams. */
    public Cli(PrintStream out, PrintStream err) {
        this(System.in, out, err);
    }

    /** A dispatcher reading {@code in} and writing to the given streams. */
    public Cli(InputStream in, PrintStream out, PrintStream err) {
        this(in, out, err, RawArguments.none());
    }

    /** A dispatcher that also knows the raw bytes of its arguments. */
    Cli(InputStream in, PrintStream out, PrintStream err, RawArguments raw) {
        this.in = in;
        this.out = out;
        this.err = err;
        this.raw = raw;
    }

    /**
     * A dispatcher for this very process: standard input, and the raw argument bytes of {@code
     * /proc/self/cmdline} when they match {@code args} (decision 0637).
     */
    public static Cli forThisProcess(String[] args, PrintStream out, PrintStream err) {
        return new Cli(System.in, out, err, RawArguments.ofThisProcess(args));
    }

    /**
     * Runs one command line and returns its exit code. Never throws, never prints a stack trace. With
     * {@code --json}, every exit other than 2 prints exactly one JSON document on standard output: the
     * command's own, or — when a command failed before it had one — {@code skillgate.failure/1} with
     * the lines it printed on standard error (decision 0637).
     */
    public int run(String[] args) {
        List<String> argv = List.of(args);
        boolean json =
                argv.contains("--json") && !argv.isEmpty() && !argv.get(0).startsWith("-");
        Counting counted = new Counting(out);
        Tee tee = new Tee(err);
        PrintStream cmdOut = json ? new PrintStream(counted, true, StandardCharsets.UTF_8) : out;
        PrintStream cmdErr = json ? new PrintStream(tee, true, StandardCharsets.UTF_8) : err;
        int code;
        try {
            code = dispatch(argv, cmdOut, cmdErr).code();
        } catch (RuntimeException | Error e) {
            // No stack trace ever reaches the user; the type names the fault for a bug report.
            cmdErr.println("skillgate: internal error (" + e.getClass().getName() + ")");
            code = ExitCode.INVALID.code();
        }
        cmdOut.flush();
        cmdErr.flush();
        if (json && code != ExitCode.USAGE.code() && counted.count == 0) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("schema", "skillgate.failure/1");
            doc.put("command", argv.get(0));
            doc.put("exitCode", code);
            doc.put("messages", tee.lines());
            JsonOut.print(out, doc);
        }
        return code;
    }

    /** Counts the bytes a command printed on standard output. */
    private static final class Counting extends FilterOutputStream {
        long count;

        Counting(OutputStream out) {
            super(out);
        }

        @Override
        public void write(int b) throws IOException {
            count++;
            out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            count += len;
            out.write(b, off, len);
        }
    }

    /** Passes standard error through and keeps its first lines (bounded) for a failure document. */
    private static final class Tee extends FilterOutputStream {
        private static final int MAX = 64 * 1024;
        private final java.io.ByteArrayOutputStream kept = new java.io.ByteArrayOutputStream();

        Tee(OutputStream out) {
            super(out);
        }

        @Override
        public void write(int b) throws IOException {
            if (kept.size() < MAX) {
                kept.write(b);
            }
            out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            kept.write(b, off, Math.max(0, Math.min(len, MAX - kept.size())));
            out.write(b, off, len);
        }

        List<String> lines() {
            return kept.toString(StandardCharsets.UTF_8).lines().toList();
        }
    }

    private ExitCode dispatch(List<String> args, PrintStream out, PrintStream err) {
        if (args.isEmpty()) {
            err.print(overview());
            return ExitCode.USAGE;
        }
        String first = args.get(0);
        if (first.equals("--version") || first.equals("version")) {
            out.println("skillgate " + version() + " (commit " + commit() + ")");
            return ExitCode.OK;
        }
        if (first.equals("help") && args.size() == 2) {
            Optional<Command> asked = find(args.get(1));
            if (asked.isEmpty()) {
                err.println("skillgate help: unknown command '" + Args.printable(args.get(1))
                        + "'; see 'skillgate --help'");
                return ExitCode.USAGE;
            }
            out.print(asked.get().usage());
            return ExitCode.OK;
        }
        if (first.equals("--help") || first.equals("-h") || (first.equals("help") && args.size() == 1)) {
            out.print(overview());
            return ExitCode.OK;
        }
        Optional<Command> command = find(first);
        if (command.isEmpty()) {
            err.println("skillgate: unknown command '" + Args.printable(first) + "'; see 'skillgate --help'");
            return ExitCode.USAGE;
        }
        List<String> rest = args.subList(1, args.size());
        if (rest.contains("--help") || rest.contains("-h")) {
            out.print(command.get().usage());
            return ExitCode.OK;
        }
        try {
            return command.get() instanceof NeedsInput reader
                    ? reader.run(rest, in, raw, out, err)
                    : command.get().run(rest, out, err);
        } catch (UsageException e) {
            // One line and a pointer, not the whole usage (issue 18).
            err.println("skillgate " + command.get().name() + ": " + e.getMessage() + "; see 'skillgate "
                    + command.get().name() + " --help'");
            return ExitCode.USAGE;
        }
    }

    private static Optional<Command> find(String name) {
        return make(name);
    }

    private static String overview() {
        StringBuilder text = new StringBuilder();
        text.append("usage: skillgate <command> [options]\n\n");
        text.append("Skillgate inspects Agent Skills without running them, and runs a skill's Node script\n");
        text.append("only after consent bound to its exact bytes. It is not a sandbox.\n\n");
        text.append("commands:\n");
        List<Command> commands = commands();
        int width = commands.stream().mapToInt(c -> c.name().length()).max().orElse(8);
        for (Command c : commands) {
            text.append("  ")
                    .append(pad(c.name(), width))
                    .append("  ")
                    .append(c.summary())
                    .append('\n');
        }
        text.append("  ").append(pad("help CMD", width)).append("  print one command's usage\n");
        text.append("  ").append(pad("--version", width)).append("  print the version\n");
        text.append("\nexit codes: 0 ok/valid, 1 invalid/failed, 2 usage, 3 refused, 4 cleanup unknown\n");
        return text.toString();
    }

    private static String pad(String s, int width) {
        char[] fill = new char[Math.max(0, width - s.length())];
        Arrays.fill(fill, ' ');
        return s + new String(fill);
    }

    /** The version this build was made from. */
    public static String version() {
        return known(BuildInfo.VERSION);
    }

    /**
     * The commit this build was made from: 12 hex digits of {@code git describe}, with {@code -dirty}
     * when tracked files differed from it; {@code unknown} when built outside a git checkout.
     */
    public static String commit() {
        return known(BuildInfo.COMMIT);
    }

    /**
     * A value the build wrote into {@link BuildInfo} (decision 0889: constants, not a resource, so a
     * cold start reads no file for them); {@code unknown} when the build left it empty or unexpanded.
     */
    private static String known(String value) {
        return value.isEmpty() || value.startsWith("${") ? "unknown" : value;
    }
}
