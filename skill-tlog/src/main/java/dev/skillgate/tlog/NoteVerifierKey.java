package dev.skillgate.tlog;

import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * A signed-note verifier key: a name, its 32-bit key id and an Ed25519 public key, written
 * {@code name+hexid+base64(0x01 ‖ key)} (C2SP signed-note v1.0.0; Go's {@code note.NewVerifier}).
 *
 * <p>Parsing checks that the id is the one the name and key define, so a key cannot be presented
 * under another key's id. Knowing a verifier key says nothing about who holds the private half:
 * configure it from a trusted channel.
 *
 * @param name the key name
 * @param keyId the key id
 * @param publicKey the 32-byte Ed25519 public key (copied)
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record NoteVerifierKey(String name, int keyId, byte[] publicKey) {
    public NoteVerifierKey {
        NoteKeys.checkName(Objects.requireNonNull(name, "name"));
        Objects.requireNonNull(publicKey, "publicKey");
        if (publicKey.length != 32) {
            throw NoteKeys.format("an Ed25519 public key is 32 bytes");
        }
        publicKey = publicKey.clone();
        if (keyId != NoteKeys.keyId(name, NoteKeys.ED25519, publicKey)) {
            throw NoteKeys.format("the key id does not match the key name and key");
        }
    }

    /** The key for {@code name} and a 32-byte Ed25519 public key, with its computed id. */
    public static NoteVerifierKey of(String name, byte[] publicKey) {
        Objects.requireNonNull(publicKey, "publicKey");
        return new NoteVerifierKey(
                NoteKeys.checkName(Objects.requireNonNull(name, "name")),
                NoteKeys.keyId(name, NoteKeys.ED25519, publicKey),
                publicKey);
    }

    /**
     * Parses {@code name+hexid+base64}. Only Ed25519 (type 0x01) keys are accepted.
     *
     * @throws dev.skillgate.model.InvalidValueException ({@code AUDIT_CHECKPOINT_FORMAT}) otherwise
     */
    public static NoteVerifierKey parse(String text) {
        Objects.requireNonNull(text, "text");
        if (text.length() > NoteKeys.MAX_NAME + 64) {
            throw NoteKeys.format("a verifier key is too long");
        }
        String[] parts = text.split("\\+", 3);
        if (parts.length != 3) {
            throw NoteKeys.format("a verifier key is name+hexid+base64");
        }
        String name = NoteKeys.checkName(parts[0]);
        int id = NoteKeys.parseHexId(parts[1]);
        byte[] key = NoteKeys.base64(parts[2], "a verifier key");
        if (key.length != 33 || key[0] != NoteKeys.ED25519) {
            throw NoteKeys.format("a verifier key is type 0x01 (Ed25519) and 32 bytes");
        }
        return new NoteVerifierKey(name, id, Arrays.copyOfRange(key, 1, 33));
    }

    @Override
    public byte[] publicKey() {
        return publicKey.clone();
    }

    /** {@code name+hexid+base64(0x01 ‖ key)}. */
    public String encode() {
        byte[] k = new byte[33];
        k[0] = NoteKeys.ED25519;
        System.arraycopy(publicKey, 0, k, 1, 32);
        return name + "+" + NoteKeys.hexId(keyId) + "+" + Base64.getEncoder().encodeToString(k);
    }

    /** Whether a signature line with this name and id claims to be by this key. */
    public boolean names(NoteSignature signature) {
        return signature.name().equals(name) && signature.keyId() == keyId;
    }

    boolean verify(byte[] message, byte[] signature) {
        return Ed25519.verify(publicKey, message, signature);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NoteVerifierKey k
                && name.equals(k.name)
                && keyId == k.keyId
                && Arrays.equals(publicKey, k.publicKey);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, keyId, Arrays.hashCode(publicKey));
    }

    @Override
    public String toString() {
        return "NoteVerifierKey[" + encode() + "]";
    }
}
