package dev.skillgate.cli;

import dev.skillgate.cli.internal.Cli;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Entry point of the {@code skillgate} command.
 *
 * <p>Exit codes (SPEC §13): 0 success or valid, 1 invalid or failed, 2 usage error, 3 refused,
 * 4 cleanup unknown. No command prints a stack trace; an unexpected fault prints one line naming
 * its type and exits 1.
 */
public final class Main {
    private Main() {}

    /** Runs the command and exits the JVM with its exit code. */
    public static void main(String[] args) {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(System.err, true, StandardCharsets.UTF_8);
        System.exit(Cli.forThisProcess(args, out, err).run(args));
    }

    /**
     * Runs the command without exiting, for embedding and tests.
     *
     * @return the exit code
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return new Cli(out, err).run(args);
    }

    /**
     * Runs the command without exiting, reading standard input from {@code in} (the {@code run}
     * command's approval prompt).
     *
     * @return the exit code
     */
    public static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
        return new Cli(in, out, err).run(args);
    }
}
