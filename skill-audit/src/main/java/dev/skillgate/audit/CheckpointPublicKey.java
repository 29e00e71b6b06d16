package dev.skillgate.audit;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Sha256Digest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * An Ed25519 public key that signs audit checkpoints, as standard base64 of its 32 raw bytes.
 *
 * <p>Comparing {@link #keyId()} with the id the checkpoint's holder expects is how an outside party
 * knows whose key signed; the key alone proves nothing about who holds the private half.
 *
 * @param base64 standard base64 (with padding) of the 32-byte key
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record CheckpointPublicKey(String base64) {
    private static final byte[] KEY_ID_TAG = "skillgate-audit/v1/checkpoint-key\0".getBytes(StandardCharsets.US_ASCII);

    public CheckpointPublicKey {
        Objects.requireNonNull(base64, "base64");
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(base64);
        } catch (IllegalArgumentException e) {
            throw new InvalidValueException(ErrorCode.AUDIT_CHECKPOINT_FORMAT, "a checkpoint key is not base64");
        }
        if (raw.length != 32 || !Base64.getEncoder().encodeToString(raw).equals(base64)) {
            throw new InvalidValueException(
                    ErrorCode.AUDIT_CHECKPOINT_FORMAT, "a checkpoint key is 32 bytes in canonical base64");
        }
    }

    /** Wraps 32 raw key bytes (copied). */
    public static CheckpointPublicKey of(byte[] raw) {
        Objects.requireNonNull(raw, "raw");
        return new CheckpointPublicKey(Base64.getEncoder().encodeToString(raw));
    }

    /** A copy of the 32 raw key bytes. */
    public byte[] bytes() {
        return Base64.getDecoder().decode(base64);
    }

    /** 16 lowercase hex digits: the first 8 bytes of SHA-256 over a domain tag and the key. */
    public String keyId() {
        MessageDigest md = Sha256Digest.newMessageDigest();
        md.update(KEY_ID_TAG);
        md.update(bytes());
        return HexFormat.of().formatHex(md.digest(), 0, 8);
    }
}
