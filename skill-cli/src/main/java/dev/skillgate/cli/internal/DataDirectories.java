package dev.skillgate.cli.internal;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.shared.DirectoryPlacement;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Where {@code skillgate run} keeps its private state (decision 0522), and the placement rule it
 * applies before anything runs (decision 0520).
 *
 * <p>The default is a new directory {@code run-<random>} in {@code $XDG_STATE_HOME/skillgate}, or
 * {@code ~/.local/state/skillgate} when {@code XDG_STATE_HOME} is unset, empty or relative (the XDG
 * Base Directory rule) — never under {@code /tmp}, where another user may already have planted
 * directories on the path Node searches for {@code node_modules}. Missing directories are created
 * {@code 0700}. Every data directory, the default or {@code --data-dir}, must pass {@link
 * DirectoryPlacement} before a file is created in it and again once it exists.
 */
final class DataDirectories {
    private static final Set<PosixFilePermission> PRIVATE = PosixFilePermissions.fromString("rwx------");

    private DataDirectories() {}

    /**
     * The directory the default run directories go in: {@code $XDG_STATE_HOME/skillgate}, else
     * {@code $HOME/.local/state/skillgate}, else {@code <user.home>/.local/state/skillgate}; empty
     * when none of these is an absolute path.
     */
    static Optional<Path> defaultParent(Map<String, String> env, String userHome) {
        Optional<Path> xdg = absolute(env.get("XDG_STATE_HOME"));
        if (xdg.isPresent()) {
            return Optional.of(xdg.get().resolve("skillgate"));
        }
        Optional<Path> home = absolute(env.get("HOME")).or(() -> absolute(userHome));
        return home.map(h -> h.resolve(".local").resolve("state").resolve("skillgate"));
    }

    private static Optional<Path> absolute(String value) {
        if (value == null || value.isEmpty()) {
            return Optional.empty();
        }
        try {
            Path p = Path.of(value);
            return p.isAbsolute() ? Optional.of(p.normalize()) : Optional.empty();
        } catch (InvalidPathException e) {
            return Optional.empty();
        }
    }

    /** Why another user could change {@code dir} (or a directory on its path); empty when none can. */
    static Optional<Diagnostic> unsafe(Path dir) {
        return DirectoryPlacement.check(dir, "data directory");
    }

    /**
     * Creates a new private run directory in {@code parent} (creating {@code parent} {@code 0700}
     * when missing), checking placement before and after.
     *
     * @return the new directory, or why it could not be made safely
     */
    static Created createRun(Path parent) {
        Optional<Diagnostic> before = unsafe(parent);
        if (before.isPresent()) {
            return new Created(Optional.empty(), before, Optional.empty());
        }
        try {
            if (!Files.isDirectory(parent, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(parent, attribute());
            }
            Optional<Diagnostic> after = unsafe(parent);
            if (after.isPresent()) {
                return new Created(Optional.empty(), after, Optional.empty());
            }
            Path run = Files.createTempDirectory(parent, "run-", attribute());
            return new Created(Optional.of(run), Optional.empty(), Optional.empty());
        } catch (IOException | UnsupportedOperationException e) {
            String reason = e instanceof java.nio.file.FileSystemException fse && fse.getReason() != null
                    ? fse.getReason()
                    : e.getClass().getSimpleName();
            return new Created(Optional.empty(), Optional.empty(), Optional.of(reason));
        }
    }

    private static FileAttribute<Set<PosixFilePermission>> attribute() {
        return PosixFilePermissions.asFileAttribute(PRIVATE);
    }

    /**
     * The outcome of {@link #createRun}: the directory, or the placement problem, or the I/O reason.
     */
    record Created(Optional<Path> directory, Optional<Diagnostic> unsafe, Optional<String> failure) {}

    /**
     * The mount point of the file system that holds {@code dir} (or its nearest existing ancestor)
     * when that file system is mounted {@code noexec}: the supervisor helper is installed in the data
     * directory and executed from there, so it cannot run (decision 0638). Read from {@code
     * /proc/self/mountinfo}; empty when it is not noexec or cannot be told.
     */
    static Optional<String> noexecMount(Path dir) {
        Path existing = dir.toAbsolutePath().normalize();
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return Optional.empty();
        }
        String real;
        try {
            real = existing.toRealPath().toString();
        } catch (IOException e) {
            return Optional.empty();
        }
        java.util.List<String> lines;
        try {
            lines = Files.readAllLines(Path.of("/proc/self/mountinfo"), java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
        return noexecMount(real, lines);
    }

    /** {@link #noexecMount(Path)} over the lines of a {@code mountinfo} file, for a real path. */
    static Optional<String> noexecMount(String realPath, java.util.List<String> mountinfo) {
        String best = null;
        boolean noexec = false;
        for (String line : mountinfo) {
            String[] f = line.split(" ");
            if (f.length < 6) {
                continue;
            }
            String point = unescape(f[4]);
            boolean covers = realPath.equals(point)
                    || point.equals("/")
                    || realPath.startsWith(point.endsWith("/") ? point : point + "/");
            // Later lines mount over earlier ones: the last covering mount of the longest point wins.
            if (covers && (best == null || point.length() >= best.length())) {
                best = point;
                noexec = java.util.Arrays.asList(f[5].split(",")).contains("noexec");
            }
        }
        return best != null && noexec ? Optional.of(best) : Optional.empty();
    }

    /** mountinfo escapes space, tab, newline and backslash as octal {@code \ooo}. */
    private static String unescape(String field) {
        StringBuilder out = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\'
                    && i + 3 < field.length()
                    && field.substring(i + 1, i + 4).matches("[0-7]{3}")) {
                out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    /** Whether this process runs as root (uid 0), as far as it can tell. */
    static boolean runningAsRoot() {
        try {
            Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            return Integer.valueOf(0).equals(uid);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    /** Removes a temporary data directory, never following a link; what cannot be removed stays. */
    static void deleteQuietly(Path root) {
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) throws IOException {
                    if (attrs.isSymbolicLink()) {
                        return FileVisitResult.SKIP_SUBTREE;
                    }
                    Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwx------"));
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
                    Files.delete(f);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException exc) throws IOException {
                    Files.delete(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException | UnsupportedOperationException e) {
            // A temporary directory left behind is not an error of the run.
        }
    }
}
