/**
 * Exact, one-use consent: bindings, the proposal ledger, execution policy, receipts, launch gates and the approval SPI.
 *
 * <p>Depends on {@code dev.skillgate.model} and the JDK only (no JSON library: the policy file is
 * read by a small strict reader in the internal package). Nothing here is a sandbox: a consented
 * script runs with the host user's file and network access.
 */
module dev.skillgate.consent {
    requires transitive dev.skillgate.model;
    requires static org.apiguardian.api;

    exports dev.skillgate.consent;
    exports dev.skillgate.consent.spi;
    // The proposal ledger and its one-use grants (decision 0634): for the engine, never for hosts.
    exports dev.skillgate.consent.shared to
            dev.skillgate.engine;
    // The one rendering of an approval request, shared with the agent-framework adapters so that an
    // MCP elicitation or an ADK confirmation shows what the console shows (decision 0602).
    exports dev.skillgate.consent.internal to
            dev.skillgate.tools;
}
