package dev.skillgate.model;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The pinned Node runtime a consent binds to: an absolute binary path, its exact version string
 * (as {@code node --version} prints it, e.g. {@code v20.20.2}) and, optionally, the SHA-256 of the
 * binary.
 *
 * <p>This is an identity, not a verification: the runner re-verifies path, version and digest
 * before every launch. Never resolved through {@code PATH}.
 *
 * @param executable absolute path of the binary
 * @param version exact expected version string
 * @param binaryDigest expected SHA-256 of the binary, if pinned
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record RuntimeIdentity(Path executable, String version, Optional<Sha256Digest> binaryDigest) {
    public RuntimeIdentity {
        Objects.requireNonNull(executable, "executable");
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(binaryDigest, "binaryDigest");
        if (!executable.isAbsolute()) {
            throw new InvalidValueException(ErrorCode.RUNTIME_UNAVAILABLE, "the runtime path must be absolute");
        }
        if (!version.matches("v?[0-9]{1,4}\\.[0-9]{1,4}\\.[0-9]{1,4}([-+][0-9A-Za-z.-]{1,64})?")) {
            throw new InvalidValueException(ErrorCode.RUNTIME_MISMATCH, "the runtime version must look like v20.20.2");
        }
    }
}
