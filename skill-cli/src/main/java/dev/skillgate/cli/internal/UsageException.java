package dev.skillgate.cli.internal;

/** A malformed command line: exit code 2 and the command's usage. */
final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
        super(message);
    }
}
