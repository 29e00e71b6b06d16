package dev.skillgate.cli.internal;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.UUID;

/**
 * Files a command writes ({@code --out FILE}): created {@code 0600} through an explicit attribute,
 * written to a fresh temporary file in the same directory, fsynced, then moved onto the name. Without
 * {@code force} an existing name is never replaced (the temporary file is hard-linked to the name,
 * which fails when the name exists); with it, only a regular file is replaced, never a link or a
 * directory. The directory is fsynced afterwards.
 */
final class OutputFiles {
    private OutputFiles() {}

    /** The absolute path named by {@code name} for {@code option}, whose parent directory must exist. */
    static Path target(String option, String name) throws UsageException {
        if (name.isEmpty()) {
            throw new UsageException(option + " needs a file name");
        }
        Path file;
        try {
            file = Path.of(name).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw new UsageException(option + " is not a usable path: " + Args.path(name));
        }
        Path parent = file.getParent();
        if (parent == null || file.getFileName() == null) {
            throw new UsageException(option + " must name a file");
        }
        if (!Files.isDirectory(parent)) {
            throw new UsageException(option + "'s directory does not exist: " + Args.path(parent.toString()));
        }
        return file;
    }

    /**
     * Writes {@code bytes} as {@code target}.
     *
     * @return why nothing was written: the name is taken ({@code AUDIT_OUTPUT_EXISTS}), or is a link
     *     or not a regular file ({@code READ_LINK}, {@code READ_NOT_REGULAR}); empty when written
     * @throws IOException when the directory cannot be written
     */
    static Optional<Diagnostic> write(Path target, byte[] bytes, boolean force) throws IOException {
        Optional<Diagnostic> taken = occupied(target, force);
        if (taken.isPresent()) {
            return taken;
        }
        Path dir = target.getParent();
        Path temp = dir.resolve("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(
                    temp,
                    java.util.Set.of(
                            StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
                ByteBuffer buffer = ByteBuffer.wrap(bytes);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(true);
            }
            if (force) {
                taken = occupied(target, true);
                if (taken.isPresent()) {
                    return taken;
                }
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
            } else {
                try {
                    Files.createLink(target, temp); // link(2): fails when the name exists, never replaces
                } catch (FileAlreadyExistsException e) {
                    return occupied(target, false);
                }
            }
            try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
                directory.force(true);
            }
            return Optional.empty();
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    private static Optional<Diagnostic> occupied(Path target, boolean force) throws IOException {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(target, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        if (a.isSymbolicLink()) {
            return Optional.of(Diagnostic.error(
                    ErrorCode.READ_LINK, "--out", "the output name is a symbolic link; it is never written through"));
        }
        if (!a.isRegularFile()) {
            return Optional.of(Diagnostic.error(
                    ErrorCode.READ_NOT_REGULAR, "--out", "the output name is taken by something not a file"));
        }
        if (!force) {
            return Optional.of(Diagnostic.error(
                    ErrorCode.AUDIT_OUTPUT_EXISTS, "--out", "the output file exists; pass --force to replace it"));
        }
        return Optional.empty();
    }
}
