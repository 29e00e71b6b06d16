package dev.skillgate.cli.internal;

import dev.skillgate.inspect.BoundedReader;
import dev.skillgate.inspect.FileContent;
import dev.skillgate.inspect.ReadOutcome;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import dev.skillgate.model.PortablePath;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
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
            throw new UsageException(
                    Args.notUtf8(name)
                            ? Args.missing(option + " file", name)
                            : option + " file cannot be read: " + Args.path(name));
        }
        String fileName = file.getFileName().toString();
        if (!PortablePath.isValid(fileName)) {
            throw new UsageException(
                    Args.notUtf8(name)
                            ? Args.missing(option + " file", name)
                            : option + " file name is not usable: " + Args.path(fileName));
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
        if (d.code() == ErrorCode.READ_NOT_FOUND && Args.notUtf8(name)) {
            throw new UsageException(Args.missing(option + " file", name));
        }
        throw new UsageException(option + " file cannot be used: " + d.code().name() + ": " + d.message());
    }

    /**
     * The invocation bytes of {@code --input VALUE} (decision 0637), or empty when they exceed {@link
     * Limits#INVOCATION_BYTES} (then not read further): {@code @-} reads standard input, {@code @FILE}
     * the file through {@link #read}; any other value is the argument's own bytes as the kernel passed
     * them when those are known ({@link RawArguments}), else its strict UTF-8 encoding (an unpaired
     * surrogate becomes a byte that is not UTF-8). Either way the bytes are judged exactly as a file's.
     */
    static Optional<byte[]> invocation(String value, InputStream in, RawArguments raw) throws UsageException {
        if (value.equals("@-")) {
            try {
                byte[] bytes = in.readNBytes(Limits.INVOCATION_BYTES + 1);
                return bytes.length > Limits.INVOCATION_BYTES ? Optional.empty() : Optional.of(bytes);
            } catch (IOException e) {
                throw new UsageException("--input @- could not read standard input ("
                        + e.getClass().getSimpleName() + ")");
            }
        }
        if (value.startsWith("@")) {
            return read("--input", value.substring(1), Limits.INVOCATION_BYTES);
        }
        return Optional.of(raw.known() ? raw.bytesOf(value) : strictUtf8(value));
    }

    private static byte[] strictUtf8(String text) {
        var encoder = StandardCharsets.UTF_8
                .newEncoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        try {
            ByteBuffer buffer = encoder.encode(CharBuffer.wrap(text));
            byte[] out = new byte[buffer.remaining()];
            buffer.get(out);
            return out;
        } catch (CharacterCodingException e) {
            return new byte[] {(byte) 0xFF}; // not UTF-8: the decoder reports JSON_INVALID_UTF8
        }
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
            throw new UsageException(option + " is not a usable path: " + Args.path(name));
        }
        if (!Files.exists(dir)) {
            throw new UsageException(Args.missing(option, name));
        }
        if (!Files.isDirectory(dir)) {
            throw new UsageException(option + " is not a directory: " + Args.path(name));
        }
        return dir;
    }
}
