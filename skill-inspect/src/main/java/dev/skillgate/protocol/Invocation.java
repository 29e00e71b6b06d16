package dev.skillgate.protocol;

import dev.skillgate.model.Sha256Digest;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apiguardian.api.API;

/**
 * An invocation that passed strict decoding and the input schema: the exact bytes received and
 * their SHA-256.
 *
 * <p>Only {@link CompiledSchema#checkInvocation} creates one. The bytes are a private copy taken
 * before checking, so what was checked is what {@link #bytes()} returns and what the digest covers;
 * the digest is computed over those bytes exactly as received, never over a re-serialisation. It is
 * ≤ 64 KiB of strict UTF-8 holding one JSON object. {@link #toString()} never shows the content
 * (invocations may carry user data). A checked invocation is not consent to run anything.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class Invocation {
    private final byte[] bytes;
    private volatile Sha256Digest digest;

    Invocation(byte[] privateCopy) {
        this.bytes = privateCopy;
    }

    /** A copy of the exact bytes received. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** The byte count. */
    public int size() {
        return bytes.length;
    }

    /** The bytes as text (they are strict UTF-8, so this is lossless). */
    public String text() {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** SHA-256 over the exact bytes received; computed once, on first use. */
    public Sha256Digest digest() {
        Sha256Digest value = digest;
        if (value == null) {
            value = Sha256Digest.hash(bytes);
            digest = value;
        }
        return value;
    }

    /** Whether both hold the same bytes. */
    @Override
    public boolean equals(Object other) {
        return other instanceof Invocation that && Arrays.equals(bytes, that.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    /** Size and digest only, never the content. */
    @Override
    public String toString() {
        return "Invocation[" + bytes.length + " bytes, " + digest() + "]";
    }
}
