/**
 * The framework-neutral agent tool surface that Skillgate's framework adapters share: the catalog
 * prompt, {@code activate_skill}, {@code read_skill_resource} and one tool per executable skill,
 * bound to the run, agent, agent context and workspace the host chose, with every outcome a value
 * carrying stable error codes.
 *
 * <p>Nothing here is a sandbox: a consented script runs with the host user's file and network access.
 */
module dev.skillgate.tools {
    requires transitive dev.skillgate.engine;
    requires tools.jackson.core;
    requires tools.jackson.databind;
    requires static org.apiguardian.api;

    exports dev.skillgate.tools;
}
