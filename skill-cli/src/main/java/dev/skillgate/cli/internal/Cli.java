package dev.skillgate.cli.internal;

import dev.skillgate.cli.ExitCode;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/** Dispatches {@code skillgate} subcommands and turns every outcome into an exit code. */
public final class Cli {
    /** Every subcommand, in the order {@code --help} lists them. */
    static final List<Command> COMMANDS = List.of(
            new ValidateCommand(),
            new CatalogCommand(),
            new InspectCommand(),
            new CheckInputCommand(),
            new VerifySignatureCommand(),
            new SignCommand(),
            new RunCommand(),
            new AuditCommand(),
            new TrustCommand(),
            new ProjectCommand());

    /** A command that reads standard input (the {@code run} command's approval prompt). */
    interface NeedsInput {
        /** Runs the command with {@code in} as its standard input. */
        ExitCode run(List<String> args, InputStream in, PrintStream out, PrintStream err) throws UsageException;
    }

    private final InputStream in;
    private final PrintStream out;
    private final PrintStream err;

    /** A dispatcher reading {@code System.in} and writing to the given streams. */
    public Cli(PrintStream out, PrintStream err) {
        this(System.in, out, err);
    }

    /** A dispatcher reading {@code in} and writing to the given streams. */
    public Cli(InputStream in, PrintStream out, PrintStream err) {
        this.in = in;
        this.out = out;
        this.err = err;
    }

    /** Runs one command line and returns its exit code. Never throws, never prints a stack trace. */
    public int run(String[] args) {
        try {
            return dispatch(List.of(args)).code();
        } catch (RuntimeException | Error e) {
            // No stack trace ever reaches the user; the type names the fault for a bug report.
            err.println("skillgate: internal error (" + e.getClass().getName() + ")");
            return ExitCode.INVALID.code();
        }
    }

    private ExitCode dispatch(List<String> args) {
        if (args.isEmpty()) {
            err.print(overview());
            return ExitCode.USAGE;
        }
        String first = args.get(0);
        if (first.equals("--version") || first.equals("version")) {
            out.println("skillgate " + version() + " (commit " + commit() + ")");
            return ExitCode.OK;
        }
        if (first.equals("--help") || first.equals("-h") || first.equals("help")) {
            out.print(overview());
            return ExitCode.OK;
        }
        Optional<Command> command =
                COMMANDS.stream().filter(c -> c.name().equals(first)).findFirst();
        if (command.isEmpty()) {
            err.println("skillgate: unknown command '" + Args.printable(first) + "'");
            err.print(overview());
            return ExitCode.USAGE;
        }
        List<String> rest = args.subList(1, args.size());
        if (rest.contains("--help") || rest.contains("-h")) {
            out.print(command.get().usage());
            return ExitCode.OK;
        }
        try {
            return command.get() instanceof NeedsInput reader
                    ? reader.run(rest, in, out, err)
                    : command.get().run(rest, out, err);
        } catch (UsageException e) {
            err.println("skillgate " + command.get().name() + ": " + e.getMessage());
            err.print(command.get().usage());
            return ExitCode.USAGE;
        }
    }

    private static String overview() {
        StringBuilder text = new StringBuilder();
        text.append("usage: skillgate <command> [options]\n\n");
        text.append("Skillgate inspects Agent Skills without running them, and runs a skill's Node script\n");
        text.append("only after consent bound to its exact bytes. It is not a sandbox.\n\n");
        text.append("commands:\n");
        int width = COMMANDS.stream().mapToInt(c -> c.name().length()).max().orElse(8);
        for (Command c : COMMANDS) {
            text.append("  ")
                    .append(pad(c.name(), width))
                    .append("  ")
                    .append(c.summary())
                    .append('\n');
        }
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
        return buildProperty("version");
    }

    /**
     * The commit this build was made from: 12 hex digits of {@code git describe}, with {@code -dirty}
     * when tracked files differed from it; {@code unknown} when built outside a git checkout.
     */
    public static String commit() {
        return buildProperty("commit");
    }

    private static String buildProperty(String key) {
        Properties props = new Properties();
        try (InputStream in = Cli.class.getResourceAsStream("/dev/skillgate/cli/version.properties")) {
            if (in != null) {
                props.load(in);
            }
        } catch (IOException e) {
            return "unknown";
        }
        String value = props.getProperty(key, "unknown");
        return value.isEmpty() || value.startsWith("${") ? "unknown" : value;
    }
}
