/**
 * The hash-chained trust audit log, signed checkpoints, the trust store and publisher signature verification.
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
    exports dev.skillgate.audit.signature;
}
