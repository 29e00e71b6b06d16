package dev.skillgate.inspect;

import java.time.Instant;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * What a file looked like when it was read: the file system's key (device and inode on Linux), its
 * size and its modification time.
 *
 * <p>Comparing two identities detects a replaced, resized or rewritten file between two looks; it
 * cannot detect a change that restores all three (a same-size rewrite within the file system's
 * time resolution), so it supports {@code SOURCE_CHANGED} detection but is not an atomic snapshot.
 *
 * @param fileKey the file system's key ({@code BasicFileAttributes.fileKey().toString()}), or
 *     {@code "none"} where the platform has none
 * @param size the size in bytes
 * @param lastModified the modification time
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public record FileIdentity(String fileKey, long size, Instant lastModified) {
    public FileIdentity {
        Objects.requireNonNull(fileKey, "fileKey");
        Objects.requireNonNull(lastModified, "lastModified");
        if (fileKey.isEmpty()) {
            throw new IllegalArgumentException("file key must not be empty");
        }
        if (size < 0) {
            throw new IllegalArgumentException("size must not be negative");
        }
    }

    /**
     * Equal when all three components are equal (exactly what the record's own {@code equals} says),
     * written out: the generated one bootstraps {@code ObjectMethods} through method handles on its
     * first call, a third of a {@code skillgate validate} process's Java time (decision 0827).
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof FileIdentity f
                && size == f.size
                && fileKey.equals(f.fileKey)
                && lastModified.equals(f.lastModified);
    }

    /** Consistent with {@link #equals}; written out for the same reason. */
    @Override
    public int hashCode() {
        return (fileKey.hashCode() * 31 + Long.hashCode(size)) * 31 + lastModified.hashCode();
    }

    /** Whether {@code other} names the same file object (same key), whatever its size or time. */
    public boolean sameFileAs(FileIdentity other) {
        return !fileKey.equals("none") && fileKey.equals(other.fileKey);
    }
}
