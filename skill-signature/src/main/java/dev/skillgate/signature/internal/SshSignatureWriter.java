package dev.skillgate.signature.internal;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Makes the armored SSHSIG signature {@code ssh-keygen -Y sign -n skillgate} makes (OpenSSH {@code
 * PROTOCOL.sshsig}): version 1, the signer's public key, namespace {@value SignatureFile#NAMESPACE},
 * an empty reserved field, hash {@value #HASH_ALGORITHM} (ssh-keygen's default) and an {@code
 * ssh-ed25519} signature over the SSHSIG signed data, armored as {@code sshsig_armor} armors it.
 *
 * <p>Ed25519 is deterministic, so for one key and one message the output is byte for byte what
 * {@code ssh-keygen} writes; the tests compare the two.
 */
public final class SshSignatureWriter {
    /** The message hash every signature made here uses. */
    public static final String HASH_ALGORITHM = "sha512";

    private SshSignatureWriter() {}

    /** The armored signature (begin line, base64 wrapped at 70, end line, each LF-terminated). */
    public static byte[] armoredSignature(OpenSshPrivateKey key, byte[] message) {
        byte[] messageHash = SignatureFile.messageDigest(HASH_ALGORITHM).digest(message);
        byte[] signature = key.sign(SignatureFile.signedData(HASH_ALGORITHM, messageHash));
        byte[] blob = new SshWriter()
                .raw(SignatureFile.MAGIC)
                .uint32(SignatureFile.VERSION)
                .string(key.publicKey().blob())
                .string(SignatureFile.NAMESPACE)
                .string(new byte[0])
                .string(HASH_ALGORITHM)
                .string(new SshWriter()
                        .string(Ed25519PublicKey.TYPE)
                        .string(signature)
                        .toByteArray())
                .toByteArray();
        String base64 = Base64.getEncoder().encodeToString(blob);
        StringBuilder armor = new StringBuilder(base64.length() + 128);
        armor.append(SignatureFile.BEGIN).append('\n');
        for (int i = 0; i < base64.length(); i += SignatureFile.BASE64_LINE) {
            armor.append(base64, i, Math.min(base64.length(), i + SignatureFile.BASE64_LINE))
                    .append('\n');
        }
        armor.append(SignatureFile.END).append('\n');
        return armor.toString().getBytes(StandardCharsets.US_ASCII);
    }
}
