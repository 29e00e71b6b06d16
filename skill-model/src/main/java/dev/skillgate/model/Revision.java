package dev.skillgate.model;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * The content revision of a captured skill artifact: {@code sha256:} + hex of the framed SHA-256
 * over every captured file (SPEC §7, specified byte for byte in {@code docs/revision.md}).
 *
 * <p>Consent, receipts and trust scopes bind to a revision. Equal revisions mean equal captured
 * bytes and paths (up to SHA-256 collisions); the revision says nothing about what the files do.
 *
 * @param digest the framed digest
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record Revision(Sha256Digest digest) {

    public Revision {
        Objects.requireNonNull(digest, "digest");
    }

    /** Parses {@code sha256:<64 lowercase hex>} exactly. */
    public static Revision parse(String text) {
        return new Revision(Sha256Digest.parse(text));
    }

    /**
     * The framing tag that starts every revision's hashed bytes; changing the framing means a new
     * tag, never a silent change.
     */
    public static final String FRAMING_TAG = "skillgate-revision-v1";

    /**
     * Computes the revision of a set of captured files (SPEC §7, {@code docs/revision.md}).
     *
     * <p>Hashed bytes: the ASCII {@link #FRAMING_TAG} and one {@code 0x00} byte; then for each file
     * in byte-wise (UTF-8, unsigned) path order: the path's UTF-8 length as a 4-byte big-endian
     * unsigned integer, the path bytes, the content length as an 8-byte big-endian integer, the
     * content bytes. The map's own order does not matter; the content arrays are read, never kept
     * or modified.
     */
    public static Revision compute(Map<PortablePath, byte[]> files) {
        Objects.requireNonNull(files, "files");
        List<PortablePath> paths = new ArrayList<>(files.keySet());
        paths.sort(null);
        Builder builder = builder();
        for (PortablePath path : paths) {
            builder.append(path, Objects.requireNonNull(files.get(path), "content"));
        }
        return builder.build();
    }

    /** A builder that hashes files one by one, in byte-wise path order, as they become available. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Computes a revision incrementally: the same framed bytes as {@link #compute}, hashed file by
     * file, so a caller can hash files as it reads them instead of after.
     *
     * <p>Files must be appended in strictly increasing byte-wise (UTF-8, unsigned) path order, the
     * order the framing requires; an out-of-order or repeated path is refused with {@link
     * IllegalArgumentException} and leaves the builder unchanged. {@link #build()} ends the builder;
     * any later call throws {@link IllegalStateException}. The content arrays are read during {@link
     * #append}, never kept or modified.
     *
     * <p>Not thread-safe. A builder may move between threads only with a happens-before edge between
     * its uses (a volatile write and read, a lock, a {@code Future}).
     */
    public static final class Builder {
        private final MessageDigest digest = Sha256Digest.newMessageDigest();
        private final ByteBuffer lengths = ByteBuffer.allocate(8);
        private PortablePath last;
        private boolean built;

        private Builder() {
            digest.update(FRAMING_TAG.getBytes(StandardCharsets.US_ASCII));
            digest.update((byte) 0);
        }

        /** Hashes one file: its path (after every path appended before) and its content. */
        public Builder append(PortablePath path, byte[] content) {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(content, "content");
            if (built) {
                throw new IllegalStateException("the revision was already built");
            }
            if (last != null && last.compareTo(path) >= 0) {
                throw new IllegalArgumentException(
                        "files must be appended in strictly increasing byte-wise path order");
            }
            byte[] name = path.utf8();
            lengths.clear();
            lengths.putInt(name.length);
            digest.update(lengths.array(), 0, 4);
            digest.update(name);
            lengths.clear();
            lengths.putLong(content.length);
            digest.update(lengths.array(), 0, 8);
            digest.update(content);
            last = path;
            return this;
        }

        /** The revision over every file appended; ends the builder. */
        public Revision build() {
            if (built) {
                throw new IllegalStateException("the revision was already built");
            }
            built = true;
            return new Revision(Sha256Digest.of(digest.digest()));
        }
    }

    /** {@code sha256:} + hex. */
    @Override
    public String toString() {
        return digest.toString();
    }
}
