/**
 * The Linux subreaper supervisor: a small C helper and its Java driver, proving that a run's whole process tree is gone.
 *
 * <p>Nothing here is a sandbox: a consented script runs with the host user's file and network access.
 */
module dev.skillgate.runner.linux {
    requires transitive dev.skillgate.runner;
    requires org.slf4j;
    requires static org.apiguardian.api;

    exports dev.skillgate.runner.linux;
}
