/**
 * Interfaces hosts and platform teams implement: the host's approval UI
 * ({@link dev.skillgate.consent.spi.ApprovalChannel}) and policy persistence
 * ({@link dev.skillgate.consent.spi.PolicyStore}). Both must fail closed.
 */
package dev.skillgate.consent.spi;
