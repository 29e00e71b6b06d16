/**
 * Publisher signatures for skills (SPEC §5): the signed statement, the host's allowed publisher
 * keys and the verifier for SSH signatures made with {@code ssh-keygen -Y sign -n skillgate}.
 *
 * <p>Only Ed25519 keys and signatures are accepted; OpenSSH key, allowed-signers and SSHSIG formats
 * are parsed strictly and within fixed bounds. A verified signature says which allowed key vouched
 * for which exact contract and revision; it is not a safety verdict, and nothing here is a sandbox:
 * a consented script still runs with the host user's file and network access.
 */
package dev.skillgate.signature;
