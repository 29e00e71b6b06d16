package dev.skillgate.runner.linux.internal;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.shared.DirectoryPlacement;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Extracts the helper shipped in the jar for this platform into a private helper directory and
 * verifies it. Layout: {@code <helper directory>/<platform>-<digest prefix>/skillgate-supervisor},
 * the helper directory {@code <data>/supervisor} unless the host names another one (decision 0891:
 * the CLI shares one between its temporary data directories); directories 0700, the binary 0500,
 * written to a temporary name, fsync'd and hard-linked onto its name (never replacing one there). The helper directory's parent must be a
 * directory no other user could change (decision 0520), checked before anything is created there.
 * An existing binary is never overwritten and not re-read here: {@link HelperImage} verifies the
 * open file each time it starts it, and if its SHA-256 differs from the digest baked into the jar it
 * has been tampered with and is refused. The jar's bytes are read and checked against that digest
 * only when they are extracted.
 */
public final class HelperInstaller {
    private HelperInstaller() {}

    /** Name of the helper binary in the jar and on disk. */
    public static final String BINARY = "skillgate-supervisor";

    /** The helper directory's name below a data directory, unless the host names another one. */
    static final String DIRECTORY = "supervisor";

    private static final String RESOURCE_ROOT = "/dev/skillgate/runner/linux/";
    private static final Set<PosixFilePermission> DIR_0700 = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> FILE_0500 = PosixFilePermissions.fromString("r-x------");
    private static final int MAX_BINARY = 16 * 1024 * 1024;

    /** The outcome of an installation. */
    public sealed interface Installation permits Installed, Unavailable {}

    /**
     * A helper on disk with the digest it must have.
     *
     * @param binary the helper's path below the data directory
     * @param realPath the same path with every link resolved, as {@code /proc/<pid>/fd} shows it
     * @param digest the SHA-256 shipped in the jar
     * @param platform e.g. {@code linux-x86_64}
     */
    public record Installed(Path binary, Path realPath, Sha256Digest digest, String platform) implements Installation {}

    /** No helper can be used here, and why. */
    public record Unavailable(ErrorCode code, String detail) implements Installation {
        /** {@code CODE: detail}, the form used in results and capabilities. */
        public String describe() {
            return code.name() + ": " + detail;
        }
    }

    /** The platform name used for resource directories, e.g. {@code linux-x86_64}; empty off Linux. */
    public static Optional<String> platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (!os.startsWith("linux")) {
            return Optional.empty();
        }
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        switch (arch) {
            case "amd64":
            case "x86_64":
                arch = "x86_64";
                break;
            case "aarch64":
            case "arm64":
                arch = "aarch64";
                break;
            default:
                break;
        }
        return Optional.of("linux-" + arch);
    }

    /** The data directory's own helper directory, {@code <data>/supervisor} (absolute). */
    public static Path directoryBelow(Path dataDirectory) {
        return dataDirectory.toAbsolutePath().resolve(DIRECTORY);
    }

    /** {@link #installInto} the data directory's own helper directory ({@link #directoryBelow}). */
    public static Installation install(Path dataDirectory) {
        return installInto(directoryBelow(dataDirectory));
    }

    /**
     * Finds, extracts (first use) and verifies the helper for this platform in {@code helperDirectory}
     * (absolute). {@code DATA_DIRECTORY_UNSAFE} when its parent could be changed by another user,
     * {@code SUPERVISOR_UNAVAILABLE} when the helper cannot be extracted, {@code SUPERVISOR_TAMPERED}
     * when the jar's helper does not match its digest.
     */
    public static Installation installInto(Path helperDirectory) {
        Optional<String> platform = platform();
        if (platform.isEmpty()) {
            return new Unavailable(ErrorCode.PROCESS_OWNERSHIP_UNSUPPORTED, "not Linux: no subreaper supervisor");
        }
        Path root = helperDirectory.toAbsolutePath().normalize();
        Path parent = root.getParent();
        if (parent == null) {
            return new Unavailable(
                    ErrorCode.SUPERVISOR_UNAVAILABLE, "the helper directory cannot be the root directory");
        }
        Optional<Diagnostic> unsafe = DirectoryPlacement.check(parent, "directory holding the supervisor helper");
        if (unsafe.isPresent()) {
            return new Unavailable(ErrorCode.DATA_DIRECTORY_UNSAFE, unsafe.get().message());
        }
        String base = RESOURCE_ROOT + platform.get() + "/" + BINARY;
        Sha256Digest expected;
        try (InputStream digestIn = HelperInstaller.class.getResourceAsStream(base + ".sha256")) {
            if (digestIn == null || HelperInstaller.class.getResource(base) == null) {
                return new Unavailable(
                        ErrorCode.PROCESS_OWNERSHIP_UNSUPPORTED,
                        "no supervisor helper was built for " + platform.get());
            }
            String hex = new String(digestIn.readNBytes(128), StandardCharsets.US_ASCII).trim();
            expected = new Sha256Digest(hex);
        } catch (IOException | RuntimeException e) {
            return new Unavailable(ErrorCode.SUPERVISOR_UNAVAILABLE, "the helper resource cannot be read");
        }
        try {
            privateDirectory(root);
            Path dir = privateDirectory(
                    root.resolve(platform.get() + "-" + expected.hex().substring(0, 16)));
            Path target = dir.resolve(BINARY);
            if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
                // Only bytes that match the digest are ever written: a file at this name is never
                // replaced, so a corrupt one would stay.
                Optional<byte[]> binary = shippedBinary(base, expected);
                if (binary.isEmpty()) {
                    return new Unavailable(
                            ErrorCode.SUPERVISOR_TAMPERED, "the helper in the jar does not match its digest");
                }
                extract(dir, target, binary.get());
            }
            // Verified where it is used: HelperImage hashes the open file it starts (the probe is first).
            return new Installed(target, target.toRealPath(), expected, platform.get());
        } catch (IOException e) {
            return new Unavailable(
                    ErrorCode.SUPERVISOR_UNAVAILABLE,
                    "the helper cannot be extracted into the data directory ("
                            + e.getClass().getSimpleName() + ")");
        }
    }

    /** The jar's helper bytes, if they are within the bound and match {@code expected}. */
    private static Optional<byte[]> shippedBinary(String base, Sha256Digest expected) throws IOException {
        byte[] binary;
        try (InputStream binIn = HelperInstaller.class.getResourceAsStream(base)) {
            if (binIn == null) {
                throw new IOException("the helper resource is gone");
            }
            binary = binIn.readNBytes(MAX_BINARY + 1);
        }
        if (binary.length > MAX_BINARY || !expected.matches(sha256(binary))) {
            return Optional.empty();
        }
        return Optional.of(binary);
    }

    /**
     * The owner of the helper's directory if it is a private 0700 directory (checked without
     * following a link), else why not. At-rest hygiene only: what is trusted is the open file that
     * {@link HelperImage} hashes and starts.
     */
    static DirectoryCheck checkDirectory(Path dir) {
        try {
            Map<String, Object> attrs = Files.readAttributes(dir, "unix:mode,uid", LinkOption.NOFOLLOW_LINKS);
            int mode = (Integer) attrs.get("mode");
            if ((mode & 0170000) != 0040000 || (mode & 07777) != 0700) {
                return new DirectoryCheck(
                        -1,
                        Optional.of(new Unavailable(
                                ErrorCode.SUPERVISOR_TAMPERED,
                                "the helper directory is not a private 0700 directory")));
            }
            return new DirectoryCheck((Integer) attrs.get("uid"), Optional.empty());
        } catch (IOException | UnsupportedOperationException | ClassCastException e) {
            return new DirectoryCheck(
                    -1, Optional.of(new Unavailable(ErrorCode.SUPERVISOR_UNAVAILABLE, "the helper cannot be read")));
        }
    }

    /** The result of {@link #checkDirectory}: the owner's uid, or the refusal. */
    record DirectoryCheck(int owner, Optional<Unavailable> refusal) {}

    private static Path privateDirectory(Path dir) throws IOException {
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(DIR_0700));
        } catch (FileAlreadyExistsException e) {
            // fall through to the checks
        }
        PosixFileAttributeView view =
                Files.getFileAttributeView(dir, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
        PosixFileAttributes attrs = view.readAttributes();
        if (!attrs.isDirectory()) {
            throw new IOException("not a directory (links are not followed)");
        }
        if (!attrs.permissions().equals(DIR_0700)) {
            // The umask may have narrowed our own mkdir; a wider mode on a directory we own is tightened.
            view.setPermissions(DIR_0700);
        }
        return dir;
    }

    /**
     * Writes {@code binary} under a temporary name in {@code dir}, syncs it and gives it the name
     * {@code target} unless that exists ({@link #publish}); package-private for the race test.
     */
    static void extract(Path dir, Path target, byte[] binary) throws IOException {
        Path tmp = dir.resolve("." + BINARY + "." + UUID.randomUUID() + ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(
                    tmp,
                    EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                    PosixFilePermissions.asFileAttribute(DIR_0700))) {
                ByteBuffer buf = ByteBuffer.wrap(binary);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true);
            }
            Files.setPosixFilePermissions(tmp, FILE_0500);
            publish(tmp, target);
            Files.deleteIfExists(tmp);
            try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
                d.force(true);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * Gives {@code tmp}'s inode the name {@code target} unless that name exists. A hard link, not a
     * rename: {@code rename} would replace a helper that another JVM extracted a moment earlier and may
     * be verifying through an open descriptor, and the inode it holds, unlinked, would fail its
     * identity check ({@code SUPERVISOR_TAMPERED} for a race of two first runs). The caller removes
     * {@code tmp}. Where the file system has no hard links, the atomic rename of before.
     */
    private static void publish(Path tmp, Path target) throws IOException {
        try {
            Files.createLink(target, tmp);
        } catch (FileAlreadyExistsException e) {
            // Another JVM won the race; its file is verified like any other.
        } catch (UnsupportedOperationException | java.nio.file.FileSystemException e) {
            if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
                return;
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException raced) {
                // As above.
            }
        }
    }

    static byte[] sha256(byte[] data) {
        return Sha256Digest.newMessageDigest().digest(data);
    }
}
