package dev.skillgate.cli.internal;

import dev.skillgate.cli.ExitCode;
import java.io.PrintStream;
import java.util.List;

/** One {@code skillgate} subcommand. Implementations are registered in {@link Cli#NAMES} and {@link Cli#make}. */
interface Command {
    /** The word that selects this command, e.g. {@code validate}. */
    String name();

    /** One line for the command list in {@code --help}. */
    String summary();

    /** The usage text printed for {@code skillgate NAME --help} and after a usage error. */
    String usage();

    /**
     * Runs the command.
     *
     * @param args the arguments after the command name
     * @throws UsageException for a malformed command line
     */
    ExitCode run(List<String> args, PrintStream out, PrintStream err) throws UsageException;
}
