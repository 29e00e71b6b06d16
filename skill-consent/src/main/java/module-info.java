/**
 * Exact, one-use consent: bindings, the proposal ledger, execution policy, receipts, launch gates and the approval SPI.
 *
 * <p>Nothing here is a sandbox: a consented script runs with the host user's file and network access.
 */
module dev.skillgate.consent {
    requires transitive dev.skillgate.model;
// Packages are exported here as they land; internal packages never are.
}
