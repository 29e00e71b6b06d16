package dev.skillgate.runner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The device and inode of a directory, as {@code stat} reports them: what a launch's working
 * directory must be, not merely where it is. A directory renamed away and replaced by another at the
 * same path has another identity.
 *
 * <p>A supervisor that honours it (the Linux helper does) opens the working directory once, compares
 * this identity with the directory it opened and changes into that same descriptor, refusing a
 * mismatch as {@code WORKSPACE_CHANGED} before anything starts. It says nothing about the directory's
 * contents: the script may read and write whatever the host user can.
 *
 * @param device {@code st_dev}
 * @param inode {@code st_ino}
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record DirectoryIdentity(long device, long inode) {

    /**
     * The identity of the directory at {@code directory}, read without following a link in its last
     * component; empty when it is missing, not a directory, or the platform reports no device and
     * inode (no {@code unix} attribute view).
     */
    public static Optional<DirectoryIdentity> of(Path directory) {
        try {
            Map<String, Object> attrs =
                    Files.readAttributes(directory, "unix:dev,ino,isDirectory", LinkOption.NOFOLLOW_LINKS);
            if (!Boolean.TRUE.equals(attrs.get("isDirectory"))) {
                return Optional.empty();
            }
            return Optional.of(new DirectoryIdentity((Long) attrs.get("dev"), (Long) attrs.get("ino")));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            return Optional.empty();
        }
    }
}
