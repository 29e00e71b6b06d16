/**
 * Transparency-log formats: RFC 6962 Merkle tree hashing, inclusion and consistency proofs, and the
 * C2SP {@code signed-note}, {@code tlog-checkpoint}, {@code tlog-proof} and witness request texts,
 * signed with Ed25519.
 *
 * <p>Pure values and functions over bytes: nothing here reads a file, holds a log or decides whom to
 * trust. A verified proof says that some bytes are in a tree with a given root; whether that root is
 * the one a log showed everyone else is what a witness or a second checkpoint establishes.
 */
module dev.skillgate.tlog {
    requires transitive dev.skillgate.model;
    requires org.bouncycastle.provider;
    requires static org.apiguardian.api;

    exports dev.skillgate.tlog;
}
