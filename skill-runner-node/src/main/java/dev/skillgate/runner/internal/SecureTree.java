package dev.skillgate.runner.internal;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Removes a directory tree without ever following a link: every step goes through
 * {@link SecureDirectoryStream} ({@code openat}/{@code unlinkat} relative to an open directory), so a
 * directory swapped for a link mid-way cannot redirect the deletion. A link inside the tree is
 * removed as a link; its target is untouched. Bounded in depth and entries.
 *
 * <p>Where the platform offers no {@link SecureDirectoryStream} (it exists on Linux), nothing is
 * deleted and the caller retains the directory.
 */
public final class SecureTree {

    /** Deepest directory nesting removed. */
    public static final int MAX_DEPTH = 600;

    /** Most entries removed in one call. */
    public static final int MAX_ENTRIES = 100_000;

    private static final LinkOption NOFOLLOW = LinkOption.NOFOLLOW_LINKS;

    private SecureTree() {}

    /** Opens {@code dir} as a secure stream, or empty where the platform has none. */
    public static Optional<SecureDirectoryStream<Path>> open(Path dir) throws IOException {
        DirectoryStream<Path> ds = Files.newDirectoryStream(dir);
        if (ds instanceof SecureDirectoryStream<Path> sds) {
            return Optional.of(sds);
        }
        ds.close();
        return Optional.empty();
    }

    /** The file key of {@code name} inside {@code parent}, as text, without following links. */
    public static String fileKey(SecureDirectoryStream<Path> parent, Path name) throws IOException {
        return keyText(parent.getFileAttributeView(name, BasicFileAttributeView.class, NOFOLLOW)
                .readAttributes()
                .fileKey());
    }

    /** The file key of a path, as text, without following a final link; {@code none} if the platform has none. */
    public static String fileKey(Path path) throws IOException {
        return keyText(
                Files.readAttributes(path, BasicFileAttributes.class, NOFOLLOW).fileKey());
    }

    static String keyText(Object key) {
        if (key == null) {
            return "none";
        }
        String text = key.toString().replace(" ", "");
        return OwnerRecord.isDirectoryKey(text) ? text : "none";
    }

    /**
     * Deletes the entry {@code name} of {@code parent} and, if it is a directory, everything in it.
     *
     * @param expectedKey if present, the directory's file key must equal it, else nothing is deleted
     * @return empty on success, else why the tree (or part of it) was kept
     */
    public static Optional<String> delete(SecureDirectoryStream<Path> parent, Path name, Optional<String> expectedKey) {
        Objects.requireNonNull(name, "name");
        int[] budget = {MAX_ENTRIES};
        try {
            BasicFileAttributes attrs = parent.getFileAttributeView(name, BasicFileAttributeView.class, NOFOLLOW)
                    .readAttributes();
            if (expectedKey.isPresent() && !expectedKey.get().equals(keyText(attrs.fileKey()))) {
                return Optional.of("directory identity changed");
            }
            return deleteEntry(parent, name, attrs, 0, budget);
        } catch (IOException | RuntimeException e) {
            return Optional.of("could not remove: " + e.getClass().getSimpleName());
        }
    }

    private static Optional<String> deleteEntry(
            SecureDirectoryStream<Path> parent, Path name, BasicFileAttributes attrs, int depth, int[] budget)
            throws IOException {
        if (--budget[0] < 0) {
            return Optional.of("too many entries");
        }
        if (!attrs.isDirectory()) {
            parent.deleteFile(name);
            return Optional.empty();
        }
        if (depth >= MAX_DEPTH) {
            return Optional.of("too deep");
        }
        makeOwnerWritable(parent, name);
        Optional<String> problem = Optional.empty();
        try (SecureDirectoryStream<Path> child = parent.newDirectoryStream(name, NOFOLLOW)) {
            Object key = child.getFileAttributeView(BasicFileAttributeView.class)
                    .readAttributes()
                    .fileKey();
            if (!Objects.equals(key, attrs.fileKey())) {
                return Optional.of("directory identity changed");
            }
            List<Path> entries = new ArrayList<>();
            for (Path entry : child) {
                entries.add(entry.getFileName());
                if (entries.size() > budget[0]) {
                    return Optional.of("too many entries");
                }
            }
            for (Path entry : entries) {
                BasicFileAttributes a = child.getFileAttributeView(entry, BasicFileAttributeView.class, NOFOLLOW)
                        .readAttributes();
                Optional<String> p = deleteEntry(child, entry, a, depth + 1, budget);
                if (p.isPresent()) {
                    problem = p;
                    break;
                }
            }
        }
        if (problem.isPresent()) {
            return problem;
        }
        parent.deleteDirectory(name);
        return Optional.empty();
    }

    private static void makeOwnerWritable(SecureDirectoryStream<Path> parent, Path name) {
        try {
            PosixFileAttributeView view = parent.getFileAttributeView(name, PosixFileAttributeView.class, NOFOLLOW);
            if (view == null) {
                return;
            }
            var perms = view.readAttributes().permissions();
            if (!perms.containsAll(EnumSet.of(
                    PosixFilePermission.OWNER_READ,
                    PosixFilePermission.OWNER_WRITE,
                    PosixFilePermission.OWNER_EXECUTE))) {
                view.setPermissions(EnumSet.of(
                        PosixFilePermission.OWNER_READ,
                        PosixFilePermission.OWNER_WRITE,
                        PosixFilePermission.OWNER_EXECUTE));
            }
        } catch (IOException | UnsupportedOperationException e) {
            // Best effort: without the write bit the deletion below fails and the tree is retained.
        }
    }
}
