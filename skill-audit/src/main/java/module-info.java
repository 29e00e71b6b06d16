/**
 * The hash-chained trust audit log with its RFC 6962 Merkle tree, signed checkpoints (C2SP and legacy),
 * inclusion and consistency proofs, and the trust store. Publisher signatures are {@code
 * dev.skillgate.signature} (module {@code skill-signature}, decision 0731).
 *
 * <p>Nothing here is a sandbox: a consented script runs with the host user's file and network access.
 */
module dev.skillgate.audit {
    requires transitive dev.skillgate.model;
    requires transitive dev.skillgate.tlog;
    requires tools.jackson.core;
    requires tools.jackson.databind;
    requires org.bouncycastle.provider;
    requires static org.apiguardian.api;

    exports dev.skillgate.audit;
}
