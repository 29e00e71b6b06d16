package dev.skillgate.tlog;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One 32-byte SHA-256 value of an RFC 6962 Merkle tree: a leaf hash, an interior node or a root.
 *
 * <p>A value, compared by content; the bytes are copied in and out. It says nothing about which
 * tree it belongs to.
 *
 * @param bytes the 32 bytes (copied)
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record MerkleHash(byte[] bytes) {
    /** The size of every hash. */
    public static final int SIZE = 32;

    public MerkleHash {
        Objects.requireNonNull(bytes, "bytes");
        if (bytes.length != SIZE) {
            throw new InvalidValueException(ErrorCode.AUDIT_PROOF_INVALID, "a tree hash is 32 bytes");
        }
        bytes = bytes.clone();
    }

    @Override
    public byte[] bytes() {
        return bytes.clone();
    }

    /**
     * Parses standard base64 with padding, in canonical form only.
     *
     * @throws InvalidValueException ({@code AUDIT_PROOF_INVALID}) for anything else
     */
    public static MerkleHash ofBase64(String text) {
        Objects.requireNonNull(text, "text");
        if (text.length() != 44) {
            throw new InvalidValueException(ErrorCode.AUDIT_PROOF_INVALID, "a tree hash is 44 base64 characters");
        }
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new InvalidValueException(ErrorCode.AUDIT_PROOF_INVALID, "a tree hash is not base64");
        }
        if (raw.length != SIZE || !Base64.getEncoder().encodeToString(raw).equals(text)) {
            throw new InvalidValueException(ErrorCode.AUDIT_PROOF_INVALID, "a tree hash is not canonical base64");
        }
        return new MerkleHash(raw);
    }

    /** Parses 64 lowercase hex digits. */
    public static MerkleHash ofHex(String hex) {
        Objects.requireNonNull(hex, "hex");
        if (!hex.matches("[0-9a-f]{64}")) {
            throw new InvalidValueException(ErrorCode.AUDIT_PROOF_INVALID, "a tree hash is 64 lowercase hex digits");
        }
        return new MerkleHash(HexFormat.of().parseHex(hex));
    }

    /** Standard base64 with padding (44 characters). */
    public String base64() {
        return Base64.getEncoder().encodeToString(bytes);
    }

    /** 64 lowercase hex digits. */
    public String hex() {
        return HexFormat.of().formatHex(bytes);
    }

    /** Constant-time comparison with raw bytes. */
    public boolean matches(byte[] other) {
        return other != null && MessageDigest.isEqual(bytes, other);
    }

    byte[] raw() {
        return bytes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MerkleHash h && MessageDigest.isEqual(bytes, h.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return "MerkleHash[" + hex() + "]";
    }
}
