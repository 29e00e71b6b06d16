package dev.skillgate.inspect.internal;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * An open directory through which entries are looked at and opened without ever following a link.
 *
 * <p>Where the platform offers {@link SecureDirectoryStream} (Linux), every look and open is relative
 * to the open directory's descriptor ({@code fstatat}/{@code openat} with {@code O_NOFOLLOW}), so a
 * directory swapped for a link after it was checked cannot redirect a read. Elsewhere a path-based
 * fallback checks each step with {@code lstat} and opens with {@code NOFOLLOW_LINKS}, which leaves a
 * window between check and open for intermediate directories.
 *
 * <p>Callers must check an entry's type with {@link #stat} before {@link #openDir} or {@link
 * #openFile}: opening a FIFO for reading would block, so FIFOs are refused by their type and never
 * opened. A FIFO swapped in between the check and the open is a residual race (Java offers no
 * {@code O_NONBLOCK}); it is documented in {@code docs/agent-skills.md}.
 */
public abstract class Dir implements Closeable {
    private static final Set<OpenOption> READ_NOFOLLOW = Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);

    /** Opens {@code path}, which the caller has checked with {@code lstat} to be a directory. */
    public static Dir open(Path path) throws IOException {
        DirectoryStream<Path> stream = Files.newDirectoryStream(path);
        if (stream instanceof SecureDirectoryStream<Path> secure) {
            return new Secure(secure, path);
        }
        stream.close();
        return new ByPath(path);
    }

    /** The path this directory was opened at (for messages and fallbacks only). */
    public abstract Path path();

    /** Attributes of the entry {@code name}, not following a link; {@link NoSuchFileException} if absent. */
    public final BasicFileAttributes stat(String name) throws IOException {
        return stat(Name.of(name));
    }

    /**
     * {@link #stat(String)} for a name checked once by {@link Name#of}: a file that is looked at,
     * opened and looked at again costs one name check and one {@code Path} instead of three.
     */
    public abstract BasicFileAttributes stat(Name name) throws IOException;

    /** Attributes of this open directory itself. */
    public abstract BasicFileAttributes self() throws IOException;

    /** Opens the child directory {@code name}, refusing a link. */
    public abstract Dir openDir(String name) throws IOException;

    /** Opens the regular file {@code name} for reading, refusing a link. */
    public final SeekableByteChannel openFile(String name) throws IOException {
        return openFile(Name.of(name));
    }

    /** {@link #openFile(String)} for a name checked once by {@link Name#of}. */
    public abstract SeekableByteChannel openFile(Name name) throws IOException;

    /**
     * Up to {@code max + 1} entry names (more than {@code max} means the directory holds more than the
     * bound); {@code .} and {@code ..} are never listed. Can be called once.
     */
    public abstract List<String> list(int max) throws IOException;

    /**
     * One directory entry's name, checked once: not empty, no {@code /}, not {@code .} or {@code
     * ..}, a valid path on this platform. Only {@link #of} makes one, so a {@code Name} is always a
     * single segment that {@link #stat(Name)} and {@link #openFile(Name)} resolve relative to their
     * directory (never an absolute path, never a walk up).
     */
    public static final class Name {
        private final Path path;

        private Name(Path path) {
            this.path = path;
        }

        /** The checked name; {@link NoSuchFileException} for anything that is not one plain segment. */
        public static Name of(String name) throws NoSuchFileException {
            return new Name(name(name));
        }

        Path path() {
            return path;
        }

        @Override
        public String toString() {
            return path.toString();
        }
    }

    static Path name(String name) throws NoSuchFileException {
        if (name.isEmpty() || name.indexOf('/') >= 0 || name.equals(".") || name.equals("..")) {
            throw new NoSuchFileException(name);
        }
        try {
            return Path.of(name);
        } catch (InvalidPathException e) {
            throw new NoSuchFileException(name);
        }
    }

    private static final class Secure extends Dir {
        private final SecureDirectoryStream<Path> stream;
        private final Path path;

        Secure(SecureDirectoryStream<Path> stream, Path path) {
            this.stream = stream;
            this.path = path;
        }

        @Override
        public Path path() {
            return path;
        }

        @Override
        public BasicFileAttributes stat(Name name) throws IOException {
            return stream.getFileAttributeView(name.path(), BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                    .readAttributes();
        }

        @Override
        public BasicFileAttributes self() throws IOException {
            return stream.getFileAttributeView(BasicFileAttributeView.class).readAttributes();
        }

        @Override
        public Dir openDir(String name) throws IOException {
            return new Secure(stream.newDirectoryStream(name(name), LinkOption.NOFOLLOW_LINKS), path.resolve(name));
        }

        @Override
        public SeekableByteChannel openFile(Name name) throws IOException {
            return stream.newByteChannel(name.path(), READ_NOFOLLOW);
        }

        @Override
        public List<String> list(int max) throws IOException {
            return collect(stream.iterator(), max);
        }

        @Override
        public void close() throws IOException {
            stream.close();
        }
    }

    private static final class ByPath extends Dir {
        private final Path path;

        ByPath(Path path) {
            this.path = path;
        }

        @Override
        public Path path() {
            return path;
        }

        @Override
        public BasicFileAttributes stat(Name name) throws IOException {
            return Files.readAttributes(
                    path.resolve(name.path()), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        }

        @Override
        public BasicFileAttributes self() throws IOException {
            return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        }

        @Override
        public Dir openDir(String name) throws IOException {
            Path child = path.resolve(name(name));
            BasicFileAttributes attrs =
                    Files.readAttributes(child, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!attrs.isDirectory()) {
                throw new java.nio.file.NotDirectoryException(name);
            }
            return new ByPath(child);
        }

        @Override
        public SeekableByteChannel openFile(Name name) throws IOException {
            return Files.newByteChannel(path.resolve(name.path()), READ_NOFOLLOW);
        }

        @Override
        public List<String> list(int max) throws IOException {
            try (DirectoryStream<Path> stream = Files.newDirectoryStream(path)) {
                return collect(stream.iterator(), max);
            }
        }

        @Override
        public void close() {}
    }

    private static List<String> collect(Iterator<Path> it, int max) throws IOException {
        List<String> names = new ArrayList<>();
        try {
            while (names.size() <= max && it.hasNext()) {
                names.add(it.next().getFileName().toString());
            }
        } catch (DirectoryIteratorException e) {
            throw e.getCause();
        }
        return names;
    }
}
