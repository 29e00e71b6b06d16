package dev.skillgate.inspect;

import dev.skillgate.model.PortablePath;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The bytes of one bundle file, read through the {@link BoundedReader}, with the identity the file
 * had when it was read.
 *
 * <p>Immutable: {@link #bytes()} returns a fresh copy on every call, so no caller can change what
 * another sees. {@link #text()} is present when the file was read as text, and then the bytes were
 * verified to be strict UTF-8. Nothing here says the file is unchanged now; re-check with {@link
 * BoundedReader#identify}.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class FileContent {
    private final PortablePath path;
    private final byte[] bytes;
    private final FileIdentity identity;
    private final String text;

    /**
     * Creates a content value; {@code bytes} is copied.
     *
     * @param path the bundle-relative path that was read
     * @param bytes the bytes read
     * @param identity the file's identity when it was read
     * @param text the decoded text for a text read, or empty for a binary read
     */
    public FileContent(PortablePath path, byte[] bytes, FileIdentity identity, Optional<String> text) {
        this.path = Objects.requireNonNull(path, "path");
        this.bytes = Objects.requireNonNull(bytes, "bytes").clone();
        this.identity = Objects.requireNonNull(identity, "identity");
        this.text = Objects.requireNonNull(text, "text").orElse(null);
    }

    /** The bundle-relative path that was read. */
    public PortablePath path() {
        return path;
    }

    /** A copy of the bytes read. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** How many bytes were read. */
    public int size() {
        return bytes.length;
    }

    /** The identity of the file when it was read. */
    public FileIdentity identity() {
        return identity;
    }

    /** The strictly decoded UTF-8 text, for a text read; empty for a binary read. */
    public Optional<String> text() {
        return Optional.ofNullable(text);
    }

    /** Equal when path, bytes, identity and text are equal. */
    @Override
    public boolean equals(Object o) {
        return o instanceof FileContent c
                && path.equals(c.path)
                && Arrays.equals(bytes, c.bytes)
                && identity.equals(c.identity)
                && Objects.equals(text, c.text);
    }

    @Override
    public int hashCode() {
        return Objects.hash(path, Arrays.hashCode(bytes), identity, text);
    }

    @Override
    public String toString() {
        return "FileContent[" + path + ", " + bytes.length + " bytes]";
    }
}
