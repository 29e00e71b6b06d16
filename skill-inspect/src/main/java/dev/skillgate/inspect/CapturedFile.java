package dev.skillgate.inspect;

import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Sha256Digest;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * One file of a {@link SkillArtifact}, as an approval request lists it: its bundle-relative path,
 * its size and the SHA-256 of its captured bytes.
 *
 * <p>The digest is of the bytes in the capture, not of the file on disk now.
 *
 * @param path the bundle-relative path
 * @param size the captured size in bytes
 * @param sha256 SHA-256 of the captured bytes
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record CapturedFile(PortablePath path, long size, Sha256Digest sha256) {
    public CapturedFile {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(sha256, "sha256");
        if (size < 0) {
            throw new IllegalArgumentException("size must not be negative");
        }
    }
}
