package dev.skillgate.consent;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Limits;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apiguardian.api.API;

/**
 * The exact artifact an approval request shows: its revision, every captured file with size and
 * digest, the entrypoint, and the entrypoint's source on demand.
 *
 * <p>This describes what the engine captured; it does not read or verify files itself. The source
 * supplier is called only when the human asks to see it, and its answer is bounded by
 * {@link #MAX_SOURCE_CHARS} (longer or failing → no source, never a partial text).
 *
 * @param revision the captured revision
 * @param files every captured file, at most {@link #MAX_FILES}, paths unique
 * @param entrypoint the entrypoint path, one of the files
 * @param entrypointSource reads the entrypoint's text from the immutable capture
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record ArtifactDescription(
        Revision revision, List<FileEntry> files, PortablePath entrypoint, Supplier<String> entrypointSource) {

    /** Most files listed: the declared files plus SKILL.md, the manifest and the contract. */
    public static final int MAX_FILES = Limits.DECLARED_FILES + 3;

    /** Longest entrypoint source shown, in UTF-16 units (a captured file is at most 1 MiB). */
    public static final int MAX_SOURCE_CHARS = Limits.FILE_BYTES;

    /**
     * One captured file.
     *
     * @param path bundle-relative path
     * @param size size in bytes
     * @param digest SHA-256 of the captured bytes
     */
    public record FileEntry(PortablePath path, long size, Sha256Digest digest) {
        public FileEntry {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(digest, "digest");
            if (size < 0 || size > Limits.FILE_BYTES) {
                throw new InvalidValueException(ErrorCode.READ_TOO_LARGE, "a captured file is 0-1 MiB");
            }
        }
    }

    public ArtifactDescription {
        Objects.requireNonNull(revision, "revision");
        files = List.copyOf(files);
        Objects.requireNonNull(entrypoint, "entrypoint");
        Objects.requireNonNull(entrypointSource, "entrypointSource");
        if (files.isEmpty() || files.size() > MAX_FILES) {
            throw new IllegalArgumentException("an artifact lists 1-" + MAX_FILES + " files");
        }
        Set<PortablePath> paths = new HashSet<>();
        for (FileEntry f : files) {
            if (!paths.add(f.path())) {
                throw new IllegalArgumentException("a file is listed twice");
            }
        }
        if (!paths.contains(entrypoint)) {
            throw new IllegalArgumentException("the entrypoint is not among the files");
        }
    }

    /** Total bytes of all files. */
    public long totalBytes() {
        return files.stream().mapToLong(FileEntry::size).sum();
    }

    /**
     * The entrypoint's source text, read on demand; empty when the supplier fails, returns nothing,
     * or returns more than {@link #MAX_SOURCE_CHARS}.
     */
    public Optional<String> readEntrypointSource() {
        try {
            String text = entrypointSource.get();
            if (text == null || text.length() > MAX_SOURCE_CHARS) {
                return Optional.empty();
            }
            return Optional.of(text);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }
}
