package dev.skillgate.cli;

/** The {@code skillgate} exit codes (SPEC §13); stable, documented in {@code docs/cli.md}. */
public enum ExitCode {
    /** Success, or the input is valid. */
    OK(0),
    /** Invalid input, or the execution failed (including a rejected schema or manifest). */
    INVALID(1),
    /** The command line is malformed. */
    USAGE(2),
    /** Refused: consent, policy, gates or a wrong {@code --approve}. Nothing ran. */
    REFUSED(3),
    /** A process ran and its tree's cleanup could not be proven. */
    CLEANUP_UNKNOWN(4);

    private final int code;

    ExitCode(int code) {
        this.code = code;
    }

    /** The numeric process exit code. */
    public int code() {
        return code;
    }
}
