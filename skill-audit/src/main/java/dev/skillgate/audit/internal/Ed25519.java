package dev.skillgate.audit.internal;

import java.security.SecureRandom;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;

/** Ed25519 through Bouncy Castle's lightweight API (RFC 8032, pure). */
public final class Ed25519 {
    private static final SecureRandom RANDOM = new SecureRandom();

    private Ed25519() {}

    /** A fresh 32-byte seed. */
    public static byte[] newSeed() {
        byte[] seed = new byte[Ed25519PrivateKeyParameters.KEY_SIZE];
        RANDOM.nextBytes(seed);
        return seed;
    }

    /** The 32-byte public key of a seed. */
    public static byte[] publicKey(byte[] seed) {
        return new Ed25519PrivateKeyParameters(seed, 0).generatePublicKey().getEncoded();
    }

    /** A 64-byte signature. */
    public static byte[] sign(byte[] seed, byte[] message) {
        Ed25519Signer signer = new Ed25519Signer();
        signer.init(true, new Ed25519PrivateKeyParameters(seed, 0));
        signer.update(message, 0, message.length);
        return signer.generateSignature();
    }

    /** Whether {@code signature} verifies; any malformed input (e.g. a small-order key) is simply invalid. */
    public static boolean verify(byte[] publicKey, byte[] message, byte[] signature) {
        try {
            Ed25519Signer verifier = new Ed25519Signer();
            verifier.init(false, new Ed25519PublicKeyParameters(publicKey, 0));
            verifier.update(message, 0, message.length);
            return verifier.verifySignature(signature);
        } catch (RuntimeException e) {
            return false;
        }
    }
}
