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
    requires static org.apiguardian.api;

    exports dev.skillgate.cli;
}
