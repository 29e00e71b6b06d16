/**
 * Inert discovery, SKILL.md parsing and validation, the bounded reader, manifest and contract parsing, the bounded JSON protocol and artifact capture.
 *
 * <p>Nothing here is a sandbox: a consented script runs with the host user's file and network access.
 */
module dev.skillgate.inspect {
    requires transitive dev.skillgate.model;
    requires tools.jackson.core;
    requires tools.jackson.databind;
    requires com.networknt.schema;
    requires org.snakeyaml.engine;
    requires static org.apiguardian.api;
    // Packages are exported here as they land; internal packages never are, shared ones only to named siblings.
    exports dev.skillgate.inspect;
    exports dev.skillgate.protocol;
    // Sibling-only contract parsing and checks (decision 0634): for the engine, never for hosts.
    exports dev.skillgate.inspect.shared to
            dev.skillgate.engine;
}
