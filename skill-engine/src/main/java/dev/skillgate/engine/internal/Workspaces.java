package dev.skillgate.engine.internal;

import dev.skillgate.model.WorkspaceIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;

/**
 * Resolves a workspace to the identity consent binds to: its real path (links in the given path
 * resolved once, here) and the file key (device and inode) of the directory found there.
 *
 * <p>The real directory is examined without following a link, so the file key belongs to exactly
 * the directory the real path names. Moving another directory into that place later changes the
 * file key and so the binding. The workspace is the script's working directory, not a boundary.
 */
public final class Workspaces {
    private Workspaces() {}

    /** The identity, or empty when the path is missing, not a directory or has no file key. */
    public static Optional<WorkspaceIdentity> identify(Path workspace) {
        try {
            Path real = workspace.toAbsolutePath().toRealPath();
            BasicFileAttributes attrs =
                    Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!attrs.isDirectory() || attrs.fileKey() == null) {
                return Optional.empty();
            }
            return Optional.of(new WorkspaceIdentity(real, attrs.fileKey().toString()));
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }
}
