/**
 * The {@code skillgate} command line (SPEC §13). Inert commands never start a process; {@code run}
 * executes only after consent bound to the exact revision. No command prints a stack trace.
 */
module dev.skillgate.cli {
    requires dev.skillgate.model;
    requires dev.skillgate.inspect;
    requires dev.skillgate.audit;
    requires dev.skillgate.engine;
    requires tools.jackson.databind;
    // sun.misc.Signal: Ctrl-C waits for the run's settlement instead of ending the JVM (decision 0638).
    requires jdk.unsupported;

    exports dev.skillgate.cli;
}
