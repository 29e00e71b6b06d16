package dev.skillgate.runner.linux.internal;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Sha256Digest;
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
 * Extracts the helper shipped in the jar for this platform into a private directory of the data
 * directory and verifies it. Layout: {@code <data>/supervisor/<platform>-<digest prefix>/skillgate-supervisor},
 * directories 0700, the binary 0500, written to a temporary name, fsync'd and renamed. An existing
 * binary is never overwritten: {@link HelperImage} verifies it each time it starts it, and if its
 * SHA-256 differs from the digest baked into the jar it has been tampered with and is refused.
 */
public final class HelperInstaller {
    private HelperInstaller() {}

    /** Name of the helper binary in the jar and on disk. */
    public static final String BINARY = "skillgate-supervisor";

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

    /** Finds, extracts (first use) and verifies the helper for this platform. */
    public static Installation install(Path dataDirectory) {
        Optional<String> platform = platform();
        if (platform.isEmpty()) {
            return new Unavailable(ErrorCode.PROCESS_OWNERSHIP_UNSUPPORTED, "not Linux: no subreaper supervisor");
        }
        String base = RESOURCE_ROOT + platform.get() + "/" + BINARY;
        Sha256Digest expected;
        byte[] binary;
        try (InputStream digestIn = HelperInstaller.class.getResourceAsStream(base + ".sha256");
                InputStream binIn = HelperInstaller.class.getResourceAsStream(base)) {
            if (digestIn == null || binIn == null) {
                return new Unavailable(
                        ErrorCode.PROCESS_OWNERSHIP_UNSUPPORTED,
                        "no supervisor helper was built for " + platform.get());
            }
            String hex = new String(digestIn.readNBytes(128), StandardCharsets.US_ASCII).trim();
            expected = new Sha256Digest(hex);
            binary = binIn.readNBytes(MAX_BINARY + 1);
        } catch (IOException | RuntimeException e) {
            return new Unavailable(ErrorCode.SUPERVISOR_UNAVAILABLE, "the helper resource cannot be read");
        }
        if (binary.length > MAX_BINARY || !expected.matches(sha256(binary))) {
            return new Unavailable(ErrorCode.SUPERVISOR_TAMPERED, "the helper in the jar does not match its digest");
        }
        try {
            Path root = privateDirectory(dataDirectory.toAbsolutePath().resolve("supervisor"));
            Path dir = privateDirectory(
                    root.resolve(platform.get() + "-" + expected.hex().substring(0, 16)));
            Path target = dir.resolve(BINARY);
            if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
                extract(dir, target, binary);
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

    private static void extract(Path dir, Path target, byte[] binary) throws IOException {
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
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException e) {
                // Another JVM won the race; its file is verified like any other.
            }
            try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
                d.force(true);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    static byte[] sha256(byte[] data) {
        return Sha256Digest.newMessageDigest().digest(data);
    }
}
