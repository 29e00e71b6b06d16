/**
 * Adversarial Node scripts and helpers shared by the runner, supervisor, engine and testkit test
 * suites. Test-only: consumers depend on it in {@code test} scope.
 *
 * <p>Nothing here is a sandbox: a consented script runs with the host user's file and network access.
 */
module dev.skillgate.fixtures {
    requires transitive dev.skillgate.model;
    requires static org.apiguardian.api;

    exports dev.skillgate.fixtures;

    // The scripts are resources of the exported package, opened so test code on the module path can read them too.
    opens dev.skillgate.fixtures;
}
