package dev.skillgate.cli.internal;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.DirectoryPlacement;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
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

    /** Whether this process runs as root (uid 0), as far as it can tell. */
    static boolean runningAsRoot() {
        try {
            Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            return Integer.valueOf(0).equals(uid);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }
}
