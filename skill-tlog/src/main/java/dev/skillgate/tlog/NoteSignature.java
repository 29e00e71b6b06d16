package dev.skillgate.tlog;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One signature line of a signed note, {@code — name base64(keyid ‖ signature)}, as read: not yet
 * verified, possibly by a key the reader does not know.
 *
 * @param name the key name
 * @param keyId the 32-bit key id
 * @param signature the signature bytes after the key id (copied; 64 for Ed25519, other sizes for
 *     other types)
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record NoteSignature(String name, int keyId, byte[] signature) {
    /** Longest signature accepted, in bytes (post-quantum signatures reach about 5 kB). */
    public static final int MAX_SIGNATURE = 8192;

    public NoteSignature {
        NoteKeys.checkName(Objects.requireNonNull(name, "name"));
        Objects.requireNonNull(signature, "signature");
        if (signature.length == 0 || signature.length > MAX_SIGNATURE) {
            throw NoteKeys.format("a note signature is 1 to " + MAX_SIGNATURE + " bytes after its key id");
        }
        signature = signature.clone();
    }

    @Override
    public byte[] signature() {
        return signature.clone();
    }

    /** The line, {@code — name base64\n}. */
    public String line() {
        byte[] b = ByteBuffer.allocate(4 + signature.length)
                .putInt(keyId)
                .put(signature)
                .array();
        return "\u2014 " + name + " " + Base64.getEncoder().encodeToString(b) + "\n";
    }

    byte[] raw() {
        return signature;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NoteSignature s
                && name.equals(s.name)
                && keyId == s.keyId
                && Arrays.equals(signature, s.signature);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, keyId, Arrays.hashCode(signature));
    }

    @Override
    public String toString() {
        return "NoteSignature[" + name + "+" + NoteKeys.hexId(keyId) + "]";
    }
}
