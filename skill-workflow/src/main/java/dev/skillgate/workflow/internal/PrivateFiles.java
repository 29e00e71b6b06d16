package dev.skillgate.workflow.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.UUID;

/**
 * Private directories and files: 0700/0600, links never followed, atomic replacement with fsync of
 * the file and the directory, bounded reads. The same steps as the policy file and the audit head.
 * Not API.
 */
public final class PrivateFiles {
    static final Set<PosixFilePermission> DIR_MODE = PosixFilePermissions.fromString("rwx------");
    static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-------");

    private PrivateFiles() {}

    static boolean posix(Path p) {
        return p.getFileSystem().supportedFileAttributeViews().contains("posix");
    }

    static FileAttribute<?>[] fileAttributes(Path p) {
        return posix(p)
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(FILE_MODE)}
                : new FileAttribute<?>[0];
    }

    /** Creates {@code dir} 0700 when missing; refuses a link or a non-directory; sets it to 0700. */
    public static void ensureDirectory(Path dir) throws IOException {
        boolean posix = posix(dir);
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            try {
                if (posix) {
                    Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(DIR_MODE));
                } else {
                    Files.createDirectories(dir);
                }
            } catch (FileAlreadyExistsException e) {
                // raced with another creator; examined below
            }
        }
        BasicFileAttributes a = Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!a.isDirectory()) {
            throw new IOException("not a directory (or a link): " + dir.getFileName());
        }
        if (posix) {
            PosixFileAttributes p = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!p.permissions().equals(DIR_MODE)) {
                Files.setPosixFilePermissions(dir, DIR_MODE);
            }
        }
    }

    /** Whether a regular, unlinked file is readable or writable by group or others. */
    static boolean sharedWithOthers(Path file) throws IOException {
        if (!posix(file)) {
            return false;
        }
        Set<PosixFilePermission> mode = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                .permissions();
        return mode.contains(PosixFilePermission.GROUP_READ)
                || mode.contains(PosixFilePermission.GROUP_WRITE)
                || mode.contains(PosixFilePermission.OTHERS_READ)
                || mode.contains(PosixFilePermission.OTHERS_WRITE);
    }

    /**
     * Reads at most {@code max} bytes of a regular file without following links.
     *
     * @return the bytes, or {@code null} when the file is longer than {@code max}
     * @throws java.nio.file.NoSuchFileException when it does not exist
     * @throws IOException when it is a link or not a regular file, or cannot be read
     */
    static byte[] readBounded(Path file, int max) throws IOException {
        BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!a.isRegularFile()) {
            throw new IOException("not a regular file (or a link): " + file.getFileName());
        }
        try (SeekableByteChannel ch =
                Files.newByteChannel(file, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))) {
            ByteBuffer buffer = ByteBuffer.allocate((int) Math.min((long) max + 1, Math.max(a.size() + 1, 1)));
            while (buffer.hasRemaining()) {
                if (ch.read(buffer) < 0) {
                    break;
                }
                if (!buffer.hasRemaining() && buffer.capacity() <= max) {
                    ByteBuffer bigger = ByteBuffer.allocate((int) Math.min((long) max + 1, buffer.capacity() * 2L));
                    buffer.flip();
                    bigger.put(buffer);
                    buffer = bigger;
                }
            }
            if (buffer.position() > max) {
                return null;
            }
            byte[] out = new byte[buffer.position()];
            buffer.flip();
            buffer.get(out);
            return out;
        }
    }

    /** Replaces {@code file} atomically with {@code bytes}: temp 0600, write, force, rename, force dir. */
    static void replaceAtomically(Path file, byte[] bytes) throws IOException {
        Path dir = file.getParent();
        Path temp = dir.resolve("." + file.getFileName() + "." + UUID.randomUUID() + ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(
                    temp,
                    Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                    fileAttributes(temp))) {
                writeFully(ch, ByteBuffer.wrap(bytes));
                ch.force(true);
            }
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
            forceDirectory(dir);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    static void writeFully(FileChannel ch, ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            ch.write(buffer);
        }
    }

    static void forceDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            if (posix(dir)) {
                throw e;
            }
        }
    }
}
