/**
 * Exact, one-use consent (SPEC §8): {@link dev.skillgate.consent.ConsentBinding bindings}, the
 * per-run {@link dev.skillgate.consent.shared.ConsentLedger ledger}, execution
 * {@link dev.skillgate.consent.ExecutionPolicy policy} with store-minted
 * {@link dev.skillgate.consent.Receipt receipts}, the independent
 * {@link dev.skillgate.consent.LaunchGates launch gates}, and the
 * {@link dev.skillgate.consent.PolicyAdmin admin} object that alone can change policy and trust.
 *
 * <p>None of this is a sandbox: a consented script runs as the host user, with that user's files
 * and network.
 */
package dev.skillgate.consent;
