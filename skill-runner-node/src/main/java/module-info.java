/**
 * The direct-argv Node runner: runtime pinning, private staging and its janitor, the fixed
 * environment, bounded streams, deadlines, cancellation, the envelope, the ProcessSupervisor SPI and
 * the portable supervisor.
 *
 * <p>Nothing here is a sandbox: a consented script runs with the host user's file and network access.
 */
module dev.skillgate.runner {
    requires transitive dev.skillgate.model;
    requires transitive dev.skillgate.inspect;
    requires static org.apiguardian.api;

    exports dev.skillgate.runner;
}
