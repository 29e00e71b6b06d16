package dev.skillgate.signature.internal;

import dev.skillgate.model.ErrorCode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;

/**
 * Reads a small host file (the allowed-signers file, a signing key) without following a link at
 * the last path component, refusing anything but a regular file and never reading past a bound.
 *
 * <p>Bundle files are read by the inspect module's bounded reader, not by this class. Links in
 * parent directories are followed (the host chose the path); the check-then-open window is
 * narrowed by opening with {@code NOFOLLOW_LINKS} and comparing the file identity before and after
 * reading, but it is not an atomic snapshot.
 */
public final class BoundedFile {
    private BoundedFile() {}

    /**
     * Reads at most {@code maxBytes} bytes of {@code path}.
     *
     * @throws Refusal {@code READ_NOT_FOUND}, {@code READ_LINK}, {@code READ_NOT_REGULAR}, {@code
     *     READ_TOO_LARGE}, or {@code READ_IO} when the file changed while it was read
     * @throws IOException for other I/O faults
     */
    public static byte[] read(Path path, int maxBytes) throws Refusal, IOException {
        Objects.requireNonNull(path, "path");
        BasicFileAttributes before = attributes(path);
        checkKind(before, maxBytes);
        byte[] buffer = new byte[(int) Math.min(before.size(), maxBytes) + 1];
        try {
            int filled = fill(path, buffer, maxBytes);
            if (filled > maxBytes) {
                throw new Refusal(ErrorCode.READ_TOO_LARGE, "the file exceeds " + maxBytes + " bytes");
            }
            BasicFileAttributes after = attributes(path);
            checkKind(after, maxBytes);
            if (!Objects.equals(before.fileKey(), after.fileKey())
                    || before.size() != after.size()
                    || after.size() != filled
                    || !before.lastModifiedTime().equals(after.lastModifiedTime())) {
                throw new Refusal(ErrorCode.READ_IO, "the file changed while it was read");
            }
            return Arrays.copyOf(buffer, filled);
        } finally {
            // The scratch buffer may hold a private key (SignatureSigner); only the returned copy lives on.
            Arrays.fill(buffer, (byte) 0);
        }
    }

    private static int fill(Path path, byte[] buffer, int maxBytes) throws Refusal, IOException {
        int filled = 0;
        try (SeekableByteChannel channel =
                Files.newByteChannel(path, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))) {
            ByteBuffer target = ByteBuffer.wrap(buffer);
            while (target.hasRemaining()) {
                int read = channel.read(target);
                if (read < 0) {
                    break;
                }
                filled += read;
            }
        } catch (FileSystemException e) {
            // Swapped for a link (ELOOP) or removed after the check: report what is there now.
            checkKind(attributes(path), maxBytes);
            throw e;
        }
        return filled;
    }

    private static BasicFileAttributes attributes(Path path) throws Refusal, IOException {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw new Refusal(ErrorCode.READ_NOT_FOUND, "the file does not exist");
        }
    }

    private static void checkKind(BasicFileAttributes attributes, int maxBytes) throws Refusal {
        if (attributes.isSymbolicLink()) {
            throw new Refusal(ErrorCode.READ_LINK, "the file is a symbolic link; links are not followed");
        }
        if (!attributes.isRegularFile()) {
            throw new Refusal(ErrorCode.READ_NOT_REGULAR, "not a regular file");
        }
        if (attributes.size() > maxBytes) {
            throw new Refusal(ErrorCode.READ_TOO_LARGE, "the file exceeds " + maxBytes + " bytes");
        }
    }
}
