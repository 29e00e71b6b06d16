package dev.skillgate.consent.internal;

import dev.skillgate.consent.PolicyLoad;
import dev.skillgate.consent.PolicySettings;
import dev.skillgate.consent.spi.PolicyStore;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.shared.DirectoryPlacement;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apiguardian.api.API;

/**
 * The default {@link PolicyStore}: one private JSON file, {@code policy.json}, in a private
 * directory.
 *
 * <p>Reads: links are never followed (a linked file is unusable), only a regular file at most
 * {@link PolicyCodec#MAX_BYTES} long is read and never past that bound, a file writable by group or
 * others is unusable (someone else could have written it), and the content is decoded strictly.
 * Every load examines and reads the whole file again; the strict decode is skipped only when the bytes
 * read are equal, byte for byte, to those of the last load that decoded to {@code FOUND}, whose
 * (immutable) verdict is then returned (decision 0815) — never on a file identity or a hash alone.
 * Every problem yields {@link PolicyLoad.Status#UNUSABLE}; nothing is thrown. Before a read or a
 * write, the directory and every directory on its path must pass {@link DirectoryPlacement} (no other
 * user or group can change them): otherwise the policy is unusable with {@code DATA_DIRECTORY_UNSAFE}
 * and nothing is written. Writes: the directory
 * is created 0700 (and set to 0700), a temporary file is created 0600 in the same directory,
 * written, forced to disk, renamed atomically over {@code policy.json}, and the directory is forced,
 * so a reader sees the old or the new file, never a partial one. On a non-POSIX file system the
 * permission steps are skipped (documented platform limit). Concurrent writers in other processes
 * are not coordinated.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class FilePolicyStore implements PolicyStore {
    /** The policy file's name inside the directory. */
    public static final String FILE_NAME = "policy.json";

    private static final Set<PosixFilePermission> DIR_MODE = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-------");

    private final Path directory;
    private final Path file;
    /** The last load that decoded to FOUND, reused only for the same bytes (decision 0815). */
    private volatile Decoded last;

    /** A store in {@code directory} (created on first save). */
    public FilePolicyStore(Path directory) {
        this.directory = Objects.requireNonNull(directory, "directory").toAbsolutePath();
        this.file = this.directory.resolve(FILE_NAME);
    }

    /** The policy file's path. */
    public Path file() {
        return file;
    }

    @Override
    public PolicyLoad load() {
        Optional<Diagnostic> unsafe = DirectoryPlacement.check(directory, "policy directory");
        if (unsafe.isPresent()) {
            // Someone else could have put this file here, or could swap it at any time (decision 0520).
            return PolicyLoad.unusable(
                    ErrorCode.DATA_DIRECTORY_UNSAFE, unsafe.get().message());
        }
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return PolicyLoad.absent();
        } catch (IOException | RuntimeException e) {
            return PolicyLoad.unusable(ErrorCode.POLICY_IO, "the policy file cannot be examined");
        }
        if (attributes.isSymbolicLink()) {
            return PolicyLoad.unusable(ErrorCode.POLICY_CORRUPT, "the policy file is a symbolic link");
        }
        if (!attributes.isRegularFile()) {
            return PolicyLoad.unusable(ErrorCode.POLICY_CORRUPT, "the policy file is not a regular file");
        }
        if (attributes.size() > PolicyCodec.MAX_BYTES) {
            return PolicyLoad.unusable(
                    ErrorCode.POLICY_CORRUPT, "the policy file exceeds " + PolicyCodec.MAX_BYTES + " bytes");
        }
        if (writableByOthers()) {
            return PolicyLoad.unusable(ErrorCode.POLICY_CORRUPT, "the policy file is writable by group or others");
        }
        byte[] bytes;
        try {
            bytes = readBounded(attributes.size());
        } catch (NoSuchFileException e) {
            return PolicyLoad.absent();
        } catch (IOException | RuntimeException e) {
            return PolicyLoad.unusable(ErrorCode.POLICY_IO, "the policy file cannot be read");
        }
        if (bytes == null) {
            return PolicyLoad.unusable(
                    ErrorCode.POLICY_CORRUPT, "the policy file exceeds " + PolicyCodec.MAX_BYTES + " bytes");
        }
        // The decode is a pure function of the bytes just read: the same bytes give the same verdict, so
        // the last accepted one is reused when, and only when, the bytes are equal byte for byte
        // (decision 0815). The file is still examined and read in full on every load.
        Decoded kept = last;
        if (kept != null && Arrays.equals(kept.bytes(), bytes)) {
            return kept.load();
        }
        PolicyLoad load = PolicyCodec.decode(bytes);
        if (load.status() == PolicyLoad.Status.FOUND) {
            last = new Decoded(bytes, load);
        }
        return load;
    }

    /** The bytes of the last load that decoded to FOUND, and that load (immutable). */
    private record Decoded(byte[] bytes, PolicyLoad load) {}

    private boolean writableByOthers() {
        PosixFileAttributeView view =
                Files.getFileAttributeView(file, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
        if (view == null) {
            return false;
        }
        try {
            Set<PosixFilePermission> mode = view.readAttributes().permissions();
            return mode.contains(PosixFilePermission.GROUP_WRITE) || mode.contains(PosixFilePermission.OTHERS_WRITE);
        } catch (IOException e) {
            return true;
        }
    }

    /**
     * Reads at most MAX_BYTES + 1 bytes without following links; null when over the bound. The buffer
     * starts at the size just examined (plus one byte, to see a file that grew) and grows, never past
     * the bound, when the file turns out longer: a small policy no longer costs a 1 MiB allocation.
     */
    private byte[] readBounded(long sizeHint) throws IOException {
        int limit = PolicyCodec.MAX_BYTES + 1;
        try (SeekableByteChannel channel =
                Files.newByteChannel(file, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))) {
            byte[] buf = new byte[(int) Math.min(limit, Math.max(0, sizeHint) + 1)];
            int n = 0;
            while (true) {
                if (n == buf.length) {
                    if (buf.length == limit) {
                        return null;
                    }
                    buf = Arrays.copyOf(buf, (int) Math.min(limit, 2L * buf.length));
                }
                int r = channel.read(ByteBuffer.wrap(buf, n, buf.length - n));
                if (r < 0) {
                    break;
                }
                n += r;
            }
            return Arrays.copyOf(buf, n);
        }
    }

    @Override
    public void replace(PolicySettings settings) throws IOException {
        Objects.requireNonNull(settings, "settings");
        byte[] bytes = PolicyCodec.encode(settings);
        Optional<Diagnostic> unsafe = DirectoryPlacement.check(directory, "policy directory");
        if (unsafe.isPresent()) {
            throw new IOException(
                    ErrorCode.DATA_DIRECTORY_UNSAFE + ": " + unsafe.get().message());
        }
        boolean posix = ensureDirectory();
        Path temp = directory.resolve("." + FILE_NAME + "." + UUID.randomUUID() + ".tmp");
        try {
            FileAttribute<?>[] attrs = posix
                    ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(FILE_MODE)}
                    : new FileAttribute<?>[0];
            try (FileChannel channel = FileChannel.open(
                    temp,
                    Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                    attrs)) {
                ByteBuffer buffer = ByteBuffer.wrap(bytes);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(true);
            }
            if (posix) {
                Files.setPosixFilePermissions(temp, FILE_MODE);
            }
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
            forceDirectory();
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** Creates the directory 0700 if needed, refuses a link, sets 0700; returns whether POSIX. */
    private boolean ensureDirectory() throws IOException {
        boolean posix = directory.getFileSystem().supportedFileAttributeViews().contains("posix");
        if (!Files.exists(directory, LinkOption.NOFOLLOW_LINKS)) {
            try {
                if (posix) {
                    Files.createDirectories(directory, PosixFilePermissions.asFileAttribute(DIR_MODE));
                } else {
                    Files.createDirectories(directory);
                }
            } catch (FileAlreadyExistsException e) {
                // raced with another creator; examined below
            }
        }
        BasicFileAttributes attributes =
                Files.readAttributes(directory, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!attributes.isDirectory()) {
            throw new IOException("the policy directory is not a directory (or is a link)");
        }
        if (posix) {
            PosixFileAttributes current =
                    Files.readAttributes(directory, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!current.permissions().equals(DIR_MODE)) {
                Files.setPosixFilePermissions(directory, DIR_MODE);
            }
        }
        return posix;
    }

    private void forceDirectory() throws IOException {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            // Some platforms cannot open a directory for fsync; the rename itself is atomic there.
            if (directory.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                throw e;
            }
        }
    }
}
