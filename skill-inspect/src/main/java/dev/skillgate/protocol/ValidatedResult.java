package dev.skillgate.protocol;

import dev.skillgate.model.Sha256Digest;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apiguardian.api.API;

/**
 * A script result that passed strict decoding and the output schema: the exact stdout bytes.
 *
 * <p>Only {@link CompiledSchema#checkResult} creates one. The bytes are a private copy taken before
 * checking and are at most the manifest's {@code maxOutputBytes}: one strict UTF-8 JSON value,
 * optionally surrounded by JSON whitespace (a trailing newline from {@code console.log} is fine).
 * {@link #toString()} never shows the content (raw script output is not logged). Validity means the
 * output matched the declared schema, not that it is true or safe to act on.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class ValidatedResult {
    private final byte[] bytes;

    ValidatedResult(byte[] privateCopy) {
        this.bytes = privateCopy;
    }

    /** A copy of the exact bytes. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** The byte count. */
    public int size() {
        return bytes.length;
    }

    /** The bytes as text (strict UTF-8, so lossless), e.g. for the execution envelope's output. */
    public String text() {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** SHA-256 over the exact bytes. */
    public Sha256Digest digest() {
        return Sha256Digest.hash(bytes);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ValidatedResult that && Arrays.equals(bytes, that.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    /** Size only, never the content. */
    @Override
    public String toString() {
        return "ValidatedResult[" + bytes.length + " bytes]";
    }
}
