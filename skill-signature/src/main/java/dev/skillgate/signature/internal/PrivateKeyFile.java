package dev.skillgate.signature.internal;

import dev.skillgate.model.ErrorCode;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

/**
 * Reads and parses a signing key file: never through a link at the last path component, never a
 * FIFO or device, at most {@link #MAX_BYTES} bytes, and only when no permission bit is set for group
 * or others.
 *
 * <p>The permission rule is OpenSSH's ({@code sshkey_perm_ok}: "UNPROTECTED PRIVATE KEY FILE"),
 * made stricter in one way: OpenSSH checks only files the user owns, we check every file. A file
 * system that reports no POSIX permissions fails closed ({@code SIGNATURE_KEY_PERMISSIONS}). The
 * permissions are read (without following links) before the bounded read and again after it; a
 * change in between is caught only if it is still there after the read. Links in parent
 * directories are followed: the caller chose the path.
 */
public final class PrivateKeyFile {
    /** Largest key file read, in bytes (an Ed25519 key file is about 400 bytes). */
    public static final int MAX_BYTES = 16 * 1024;

    private static final Set<PosixFilePermission> GROUP_OR_OTHERS = EnumSet.of(
            PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.GROUP_EXECUTE,
            PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE,
            PosixFilePermission.OTHERS_EXECUTE);

    private PrivateKeyFile() {}

    /**
     * Reads and parses the key at {@code path}; the file bytes are wiped before returning.
     *
     * @throws Refusal {@code READ_NOT_FOUND}, {@code READ_LINK}, {@code READ_NOT_REGULAR}, {@code
     *     READ_TOO_LARGE}, {@code READ_IO} (changed while read, or permission denied), {@code
     *     SIGNATURE_KEY_PERMISSIONS}, or a parse refusal of {@link OpenSshPrivateKey#parse}
     * @throws IOException for other I/O faults
     */
    public static OpenSshPrivateKey read(Path path) throws Refusal, IOException {
        checkPermissions(path);
        byte[] bytes;
        try {
            bytes = BoundedFile.read(path, MAX_BYTES);
        } catch (AccessDeniedException e) {
            throw new Refusal(ErrorCode.READ_IO, "the key file cannot be read: permission denied");
        }
        try {
            checkPermissions(path);
            return OpenSshPrivateKey.parse(bytes);
        } finally {
            Arrays.fill(bytes, (byte) 0);
        }
    }

    private static void checkPermissions(Path path) throws Refusal, IOException {
        PosixFileAttributes attributes;
        try {
            attributes = Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw new Refusal(ErrorCode.READ_NOT_FOUND, "the key file does not exist");
        } catch (AccessDeniedException e) {
            throw new Refusal(ErrorCode.READ_IO, "the key file cannot be examined: permission denied");
        } catch (UnsupportedOperationException e) {
            throw new Refusal(
                    ErrorCode.SIGNATURE_KEY_PERMISSIONS,
                    "the file system reports no POSIX permissions, so the key file's protection cannot be checked");
        }
        if (attributes.isSymbolicLink()) {
            throw new Refusal(ErrorCode.READ_LINK, "the key file is a symbolic link; links are not followed");
        }
        if (!attributes.isRegularFile()) {
            throw new Refusal(ErrorCode.READ_NOT_REGULAR, "the key file is not a regular file");
        }
        Set<PosixFilePermission> loose = EnumSet.copyOf(GROUP_OR_OTHERS);
        loose.retainAll(attributes.permissions());
        if (!loose.isEmpty()) {
            throw new Refusal(
                    ErrorCode.SIGNATURE_KEY_PERMISSIONS,
                    "the key file is accessible by group or others (mode " + mode(attributes.permissions())
                            + "); make it private: chmod 600");
        }
    }

    private static String mode(Set<PosixFilePermission> permissions) {
        int mode = 0;
        for (PosixFilePermission p : permissions) {
            mode |= 1 << (8 - p.ordinal());
        }
        return String.format(java.util.Locale.ROOT, "%04o", mode);
    }
}
