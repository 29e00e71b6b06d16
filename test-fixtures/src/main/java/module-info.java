/**
 * Adversarial Node scripts and helpers shared by the runner, supervisor, engine and testkit test suites. Test-only.
 *
 * <p>Nothing here is a sandbox: a consented script runs with the host user's file and network access.
 */
module dev.skillgate.fixtures {
    requires transitive dev.skillgate.model;
// Packages are exported here as they land; internal packages never are.
}
