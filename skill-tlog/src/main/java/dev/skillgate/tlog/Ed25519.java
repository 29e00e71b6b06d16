package dev.skillgate.tlog;

import java.security.SecureRandom;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.bouncycastle.crypto.signers.Ed25519Signer;

/** Ed25519 (RFC 8032, pure) through Bouncy Castle's lightweight API. */
final class Ed25519 {
    private static final SecureRandom RANDOM = new SecureRandom();

    private Ed25519() {}

    static byte[] newSeed() {
        byte[] seed = new byte[Ed25519PrivateKeyParameters.KEY_SIZE];
        RANDOM.nextBytes(seed);
        return seed;
    }

    static byte[] publicKey(byte[] seed) {
        return new Ed25519PrivateKeyParameters(seed, 0).generatePublicKey().getEncoded();
    }

    static byte[] sign(byte[] seed, byte[] message) {
        Ed25519Signer signer = new Ed25519Signer();
        signer.init(true, new Ed25519PrivateKeyParameters(seed, 0));
        signer.update(message, 0, message.length);
        return signer.generateSignature();
    }

    /** Any malformed input (wrong sizes, a key that does not decode) is simply invalid. */
    static boolean verify(byte[] publicKey, byte[] message, byte[] signature) {
        if (publicKey.length != 32 || signature.length != 64) {
            return false;
        }
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
