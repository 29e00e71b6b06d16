package dev.skillgate.model;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * A SHA-256 digest, printed and parsed as {@code sha256:} followed by 64 lowercase hex digits.
 *
 * <p>Parsing is exact: the prefix must be present and lowercase, the hex must be lowercase and
 * exactly 64 digits; nothing is trimmed or case-folded, so one digest has exactly one text form.
 * {@link #bytes()} returns a copy.
 *
 * @param hex the 64 lowercase hex digits, without prefix
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record Sha256Digest(String hex) {

    /** The text prefix. */
    public static final String PREFIX = "sha256:";

    /** Digest length in bytes. */
    public static final int LENGTH = 32;

    public Sha256Digest {
        Objects.requireNonNull(hex, "hex");
        if (!isLowerHex(hex, LENGTH * 2)) {
            throw new InvalidValueException(ErrorCode.INVALID_DIGEST, "a SHA-256 digest is 64 lowercase hex digits");
        }
    }

    /** Wraps 32 digest bytes (copied). */
    public static Sha256Digest of(byte[] digest) {
        Objects.requireNonNull(digest, "digest");
        if (digest.length != LENGTH) {
            throw new InvalidValueException(ErrorCode.INVALID_DIGEST, "a SHA-256 digest is 32 bytes");
        }
        return new Sha256Digest(HexFormat.of().formatHex(digest));
    }

    /** Parses {@code sha256:<64 lowercase hex>}, rejecting every other spelling. */
    public static Sha256Digest parse(String text) {
        Objects.requireNonNull(text, "text");
        if (!text.startsWith(PREFIX)) {
            throw new InvalidValueException(
                    ErrorCode.INVALID_DIGEST, "a digest starts with 'sha256:' followed by 64 lowercase hex");
        }
        return new Sha256Digest(text.substring(PREFIX.length()));
    }

    /** The SHA-256 of {@code data}. */
    public static Sha256Digest hash(byte[] data) {
        return of(newMessageDigest().digest(data));
    }

    /** A fresh SHA-256 {@link MessageDigest}; SHA-256 is required of every Java platform. */
    public static MessageDigest newMessageDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }

    /** A copy of the 32 digest bytes. */
    public byte[] bytes() {
        return HexFormat.of().parseHex(hex);
    }

    /** Constant-time comparison with raw digest bytes. */
    public boolean matches(byte[] digest) {
        return MessageDigest.isEqual(bytes(), digest);
    }

    /** {@code sha256:} + hex. */
    @Override
    public String toString() {
        return PREFIX + hex;
    }

    static boolean isLowerHex(String s, int length) {
        if (s.length() != length) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }
}
