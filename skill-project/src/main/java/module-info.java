/**
 * The Node project profile (seed ADR-007): inert inspection of a repository's {@code package.json}
 * scripts into exact direct argv for the pinned {@code node}, a bounded snapshot of its sources and
 * installed dependency tree, and the supervised run of an approved build/test step sequence.
 *
 * <p>Nothing here is a sandbox: the project's code and its dependencies run with the host user's
 * files and network.
 */
module dev.skillgate.project {
    requires transitive dev.skillgate.model;
    requires transitive dev.skillgate.inspect;
    requires transitive dev.skillgate.runner;
    requires transitive dev.skillgate.consent;
    requires tools.jackson.core;
    requires tools.jackson.databind;
    requires static org.apiguardian.api;

    exports dev.skillgate.project;
}
