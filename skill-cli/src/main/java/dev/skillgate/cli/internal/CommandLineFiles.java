package dev.skillgate.cli.internal;

import dev.skillgate.inspect.BoundedReader;
import dev.skillgate.inspect.FileContent;
import dev.skillgate.inspect.ReadOutcome;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.PortablePath;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Files and directories named on the command line. A file is read through the bounded reader: a
 * regular file only, the file itself never followed as a link, never opened when it is a FIFO or a
 * device (which would block), never read past its bound. Its parent directories are resolved: the
 * caller chose the path.
 */
final class CommandLineFiles {
    private CommandLineFiles() {}

    /**
     * The bytes of the file {@code name} given to {@code option}, or empty when it is larger than
     * {@code max} bytes (it is then not read).
     *
     * @throws UsageException when the file does not exist, is a link, is not a regular file or
     *     cannot be named (exit 2, with its {@code READ_*} code)
     */
    static Optional<byte[]> read(String option, String name, int max) throws UsageException {
        if (name.isEmpty()) {
            throw new UsageException(option + " needs a file name");
        }
        Path file;
        Path parent;
        try {
            file = Path.of(name).toAbsolutePath().normalize();
            Path p = file.getParent();
            if (p == null || file.getFileName() == null) {
                throw new UsageException(option + " must name a file");
            }
            parent = p.toRealPath();
        } catch (InvalidPathException | IOException e) {
            throw new UsageException(option + " file cannot be read: " + Args.printable(name));
        }
        String fileName = file.getFileName().toString();
        if (!PortablePath.isValid(fileName)) {
            throw new UsageException(option + " file name is not usable: " + Args.printable(fileName));
        }
        BoundedReader reader = BoundedReader.forRoot(parent, max);
        ReadOutcome<FileContent> read = reader.readBytes(PortablePath.of(fileName), max);
        if (read.value().isPresent()) {
            return Optional.of(read.value().get().bytes());
        }
        Diagnostic d = read.diagnostic().orElseThrow();
        if (d.code() == ErrorCode.READ_TOO_LARGE) {
            return Optional.empty();
        }
        throw new UsageException(option + " file cannot be used: " + d.code().name() + ": " + d.message());
    }

    /**
     * The directory {@code name} given to {@code option}, which must exist and be a directory (a link
     * to one is the caller's choice and is resolved later by whoever uses it).
     */
    static Path existingDirectory(String option, String name) throws UsageException {
        if (name.isEmpty()) {
            throw new UsageException(option + " must not be empty");
        }
        Path dir;
        try {
            dir = Path.of(name).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw new UsageException(option + " is not a usable path: " + Args.printable(name));
        }
        if (!Files.exists(dir)) {
            throw new UsageException(option + " does not exist: " + Args.printable(name));
        }
        if (!Files.isDirectory(dir)) {
            throw new UsageException(option + " is not a directory: " + Args.printable(name));
        }
        return dir;
    }
}
