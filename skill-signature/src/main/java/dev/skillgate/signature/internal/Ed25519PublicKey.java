package dev.skillgate.signature.internal;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.shared.Text;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.Set;
import org.bouncycastle.crypto.params.AsymmetricKeyParameter;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;
import org.bouncycastle.crypto.util.OpenSSHPublicKeyUtil;

/**
 * An OpenSSH {@code ssh-ed25519} public key, parsed strictly from its wire blob.
 *
 * <p>The blob must be exactly {@code string "ssh-ed25519" || string key} with a 32-byte key and no
 * trailing data; Bouncy Castle then decodes it and checks that the key is a usable Ed25519 point.
 * Immutable; accessors return copies.
 */
public final class Ed25519PublicKey {
    /** The OpenSSH key type name. */
    public static final String TYPE = "ssh-ed25519";

    /** Raw Ed25519 public key length. */
    public static final int KEY_LENGTH = 32;

    /** Raw Ed25519 signature length. */
    public static final int SIGNATURE_LENGTH = 64;

    /**
     * OpenSSH public key and certificate type names that are recognised as keys but are not
     * accepted: anything other than plain {@code ssh-ed25519}.
     */
    static final Set<String> OTHER_KNOWN_TYPES = Set.of(
            "ssh-rsa",
            "ssh-dss",
            "ecdsa-sha2-nistp256",
            "ecdsa-sha2-nistp384",
            "ecdsa-sha2-nistp521",
            "sk-ecdsa-sha2-nistp256@openssh.com",
            "sk-ssh-ed25519@openssh.com",
            "ssh-xmss@openssh.com",
            "ssh-rsa-cert-v01@openssh.com",
            "ssh-dss-cert-v01@openssh.com",
            "ecdsa-sha2-nistp256-cert-v01@openssh.com",
            "ecdsa-sha2-nistp384-cert-v01@openssh.com",
            "ecdsa-sha2-nistp521-cert-v01@openssh.com",
            "sk-ecdsa-sha2-nistp256-cert-v01@openssh.com",
            "ssh-ed25519-cert-v01@openssh.com",
            "sk-ssh-ed25519-cert-v01@openssh.com",
            "ssh-xmss-cert-v01@openssh.com");

    private final byte[] blob;
    private final byte[] key;
    private final Ed25519PublicKeyParameters parameters;

    private Ed25519PublicKey(byte[] blob, byte[] key, Ed25519PublicKeyParameters parameters) {
        this.blob = blob;
        this.key = key;
        this.parameters = parameters;
    }

    /** Whether {@code type} names an OpenSSH key type at all (accepted or not). */
    public static boolean isKnownType(String type) {
        return TYPE.equals(type) || OTHER_KNOWN_TYPES.contains(type);
    }

    /**
     * Parses a public key wire blob.
     *
     * @throws Refusal {@code SIGNATURE_ALGORITHM} for another key type, {@code SIGNATURE_FORMAT} for
     *     a malformed blob or an unusable point
     */
    public static Ed25519PublicKey fromBlob(byte[] blob) throws Refusal {
        SshReader reader = new SshReader(blob);
        byte[] type = reader.readString("public key type");
        if (!Arrays.equals(type, TYPE.getBytes(StandardCharsets.US_ASCII))) {
            throw new Refusal(
                    ErrorCode.SIGNATURE_ALGORITHM,
                    "key type '" + Text.excerpt(new String(type, StandardCharsets.UTF_8))
                            + "' is not accepted; only ssh-ed25519 is");
        }
        byte[] key = reader.readString("Ed25519 public key");
        if (key.length != KEY_LENGTH) {
            throw new Refusal(ErrorCode.SIGNATURE_FORMAT, "an Ed25519 public key is 32 bytes");
        }
        reader.requireEnd("the public key");
        Ed25519PublicKeyParameters parameters;
        try {
            AsymmetricKeyParameter parsed = OpenSSHPublicKeyUtil.parsePublicKey(blob);
            if (!(parsed instanceof Ed25519PublicKeyParameters ed) || !Arrays.equals(ed.getEncoded(), key)) {
                throw new Refusal(ErrorCode.SIGNATURE_FORMAT, "the public key blob does not decode as Ed25519");
            }
            parameters = ed;
        } catch (RuntimeException e) {
            // Bouncy Castle rejects encodings that are not valid curve points.
            throw new Refusal(ErrorCode.SIGNATURE_FORMAT, "the public key is not a valid Ed25519 point");
        }
        return new Ed25519PublicKey(blob.clone(), key, parameters);
    }

    /** Parses the base64 field of an OpenSSH public key line (canonical, padded base64 only). */
    public static Ed25519PublicKey fromBase64(String base64) throws Refusal {
        return fromBlob(Base64Strict.decode(base64, "public key"));
    }

    /** The wire blob, copied. */
    public byte[] blob() {
        return blob.clone();
    }

    /** Whether {@code otherBlob} is byte-for-byte this key's blob. */
    public boolean sameBlob(byte[] otherBlob) {
        return MessageDigest.isEqual(blob, otherBlob);
    }

    /** {@code ssh-ed25519 <base64>} without a comment. */
    public String toOpenSsh() {
        return TYPE + " " + Base64.getEncoder().encodeToString(blob);
    }

    /** The OpenSSH fingerprint as {@code ssh-keygen -l} prints it: {@code SHA256:} + unpadded base64. */
    public String fingerprint() {
        byte[] digest = Sha256Digest.newMessageDigest().digest(blob);
        return "SHA256:" + Base64.getEncoder().withoutPadding().encodeToString(digest);
    }

    /** Verifies a raw 64-byte Ed25519 signature over {@code message}; any failure is {@code false}. */
    public boolean verify(byte[] message, byte[] signature) {
        if (signature.length != SIGNATURE_LENGTH) {
            return false;
        }
        try {
            Ed25519Signer verifier = new Ed25519Signer();
            verifier.init(false, parameters);
            verifier.update(message, 0, message.length);
            return verifier.verifySignature(signature);
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Ed25519PublicKey that && Arrays.equals(key, that.key);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(key);
    }

    @Override
    public String toString() {
        return TYPE + " " + fingerprint();
    }
}
