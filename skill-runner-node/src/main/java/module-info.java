/**
 * The direct-argv Node runner: runtime pinning, staging, fixed environment, bounded streams, deadlines, the envelope, the ProcessSupervisor SPI and the portable supervisor.
 *
 * <p>Nothing here is a sandbox: a consented script runs with the host user's file and network access.
 */
module dev.skillgate.runner {
    requires transitive dev.skillgate.model;
    requires transitive dev.skillgate.inspect;

    exports dev.skillgate.runner;
// Packages are exported here as they land; internal packages never are.
}
