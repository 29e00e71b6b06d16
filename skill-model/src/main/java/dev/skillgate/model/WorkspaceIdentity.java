package dev.skillgate.model;

import java.nio.file.Path;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * The workspace a script runs in, identified by its resolved real path and the file system's file
 * key (device and inode on Linux), so that a directory swapped in at the same path is a different
 * workspace and needs fresh consent.
 *
 * <p>The script may read and write anything the host user can; the workspace is its working
 * directory, not a boundary.
 *
 * @param realPath the resolved, absolute real path
 * @param fileKey the file system's key for the directory (its {@code toString()}), or {@code "none"}
 *     where the platform has none
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record WorkspaceIdentity(Path realPath, String fileKey) {
    public WorkspaceIdentity {
        Objects.requireNonNull(realPath, "realPath");
        Objects.requireNonNull(fileKey, "fileKey");
        if (!realPath.isAbsolute()) {
            throw new IllegalArgumentException("workspace real path must be absolute");
        }
        if (fileKey.isEmpty()) {
            throw new IllegalArgumentException("file key must not be empty");
        }
    }
}
