package dev.skillgate.engine.internal;

import dev.skillgate.model.WorkspaceIdentity;
import dev.skillgate.runner.DirectoryIdentity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Map;
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
        return resolve(workspace).map(Resolved::identity);
    }

    /**
     * The identity consent binds to and the device and inode the launch is bound to, both from one
     * {@code stat} of the real directory, so that the directory the supervisor must find is exactly
     * the one whose file key was compared.
     *
     * @param identity what consent binds (real path and file key)
     * @param directory the same directory's device and inode, empty where the platform has none
     */
    public record Resolved(WorkspaceIdentity identity, Optional<DirectoryIdentity> directory) {}

    /** Both identities of the workspace, or empty when it is missing, not a directory or has no file key. */
    public static Optional<Resolved> resolve(Path workspace) {
        try {
            Path real = workspace.toAbsolutePath().toRealPath();
            Map<String, Object> unix = readUnix(real);
            if (unix != null) {
                if (!Boolean.TRUE.equals(unix.get("isDirectory")) || unix.get("fileKey") == null) {
                    return Optional.empty();
                }
                return Optional.of(new Resolved(
                        new WorkspaceIdentity(real, unix.get("fileKey").toString()),
                        Optional.of(new DirectoryIdentity((Long) unix.get("dev"), (Long) unix.get("ino")))));
            }
            BasicFileAttributes attrs =
                    Files.readAttributes(real, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!attrs.isDirectory() || attrs.fileKey() == null) {
                return Optional.empty();
            }
            return Optional.of(
                    new Resolved(new WorkspaceIdentity(real, attrs.fileKey().toString()), Optional.empty()));
        } catch (IOException | SecurityException | ClassCastException e) {
            return Optional.empty();
        }
    }

    /** The {@code unix} view's attributes (one stat, no link followed), or null where there is no such view. */
    private static Map<String, Object> readUnix(Path real) throws IOException {
        try {
            return Files.readAttributes(real, "unix:isDirectory,fileKey,dev,ino", LinkOption.NOFOLLOW_LINKS);
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            return null;
        }
    }
}
