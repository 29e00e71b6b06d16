/**
 * Publisher signatures for skills: the signed statement over a contract and revision, the host's
 * allowed publisher keys (OpenSSH {@code allowed_signers}) and the Ed25519 SSHSIG verifier and
 * signer ({@code ssh-keygen -Y sign -n skillgate}).
 *
 * <p>Independent of the audit log and of the transparency-log formats: it reads bounded files and
 * bytes and says which allowed key vouched for which exact contract. A verified signature is not a
 * safety verdict, and nothing here is a sandbox.
 */
module dev.skillgate.signature {
    requires transitive dev.skillgate.model;
    requires org.bouncycastle.provider;
    requires static org.apiguardian.api;

    exports dev.skillgate.signature;
}
