/**
 * The {@code skillgate} command line (SPEC §13). Inert commands never start a process; {@code run}
 * executes only after consent bound to the exact revision. No command prints a stack trace.
 */
// No package is exported: the command line (docs/cli.md) is the contract, not these classes, and
// `java --module dev.skillgate.cli/dev.skillgate.cli.Main` needs no export (decision 0631).
module dev.skillgate.cli {
    requires dev.skillgate.model;
    requires dev.skillgate.inspect;
    requires dev.skillgate.audit;
    requires dev.skillgate.signature;
    requires dev.skillgate.engine;
    requires tools.jackson.databind;
    // sun.misc.Signal: Ctrl-C waits for the run's settlement instead of ending the JVM (decision 0638).
    requires jdk.unsupported;
}
