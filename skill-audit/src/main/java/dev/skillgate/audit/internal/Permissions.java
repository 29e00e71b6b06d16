package dev.skillgate.audit.internal;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Ownership and mode checks for the audit directory and its files (directory 0700, files 0600).
 * Group/other write access or a foreign owner means integrity cannot be vouched for; group/other
 * read or execute bits are tightened by the writer and reported.
 */
final class Permissions {
    static final Set<PosixFilePermission> DIR_MODE = PosixFilePermissions.fromString("rwx------");
    static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> WRITE_BITS =
            EnumSet.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);
    private static final Optional<Integer> CURRENT_UID = currentUid();

    private Permissions() {}

    /** The outcome of checking one path. */
    record Check(boolean fatal, List<Diagnostic> diagnostics) {
        static final Check OK = new Check(false, List.of());
    }

    static FileAttribute<Set<PosixFilePermission>> dirAttribute() {
        return PosixFilePermissions.asFileAttribute(DIR_MODE);
    }

    static FileAttribute<Set<PosixFilePermission>> fileAttribute() {
        return PosixFilePermissions.asFileAttribute(FILE_MODE);
    }

    static boolean posix(Path p) {
        return p.getFileSystem().supportedFileAttributeViews().contains("posix");
    }

    /**
     * Checks {@code path} (never following links).
     *
     * @param tighten whether to remove group/other read and execute bits (the writer does; readers
     *     only report)
     */
    static Check check(Path path, boolean directory, boolean tighten, String name) throws IOException {
        if (!posix(path)) {
            return new Check(
                    false,
                    List.of(Diagnostic.warning(
                            ErrorCode.AUDIT_PERMISSIONS, name, "the file system has no POSIX permissions to check")));
        }
        Optional<Integer> owner = uid(path);
        if (owner.isPresent() && CURRENT_UID.isPresent() && !owner.get().equals(CURRENT_UID.get())) {
            return new Check(
                    true,
                    List.of(Diagnostic.error(
                            ErrorCode.AUDIT_PERMISSIONS,
                            name,
                            "owned by another user (uid " + owner.get() + "); its integrity cannot be vouched for")));
        }
        Set<PosixFilePermission> mode = Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS);
        Set<PosixFilePermission> wanted = directory ? DIR_MODE : FILE_MODE;
        if (mode.stream().anyMatch(WRITE_BITS::contains)) {
            return new Check(
                    true,
                    List.of(Diagnostic.error(
                            ErrorCode.AUDIT_PERMISSIONS,
                            name,
                            "writable by group or others (" + PosixFilePermissions.toString(mode)
                                    + "); its integrity cannot be vouched for")));
        }
        Set<PosixFilePermission> extra = EnumSet.noneOf(PosixFilePermission.class);
        extra.addAll(mode);
        extra.removeAll(wanted);
        if (extra.isEmpty()) {
            return Check.OK;
        }
        if (tighten) {
            Set<PosixFilePermission> tightened = EnumSet.noneOf(PosixFilePermission.class);
            tightened.addAll(mode);
            tightened.retainAll(wanted);
            Files.setPosixFilePermissions(path, tightened);
            return new Check(
                    false,
                    List.of(Diagnostic.warning(
                            ErrorCode.AUDIT_PERMISSIONS,
                            name,
                            "permissions " + PosixFilePermissions.toString(mode) + " were tightened to "
                                    + PosixFilePermissions.toString(tightened))));
        }
        return new Check(
                false,
                List.of(Diagnostic.warning(
                        ErrorCode.AUDIT_PERMISSIONS,
                        name,
                        "permissions " + PosixFilePermissions.toString(mode) + " are wider than "
                                + PosixFilePermissions.toString(wanted))));
    }

    private static Optional<Integer> uid(Path p) {
        try {
            return Optional.of((Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            return Optional.empty();
        }
    }

    private static Optional<Integer> currentUid() {
        // /proc/self is owned by the process's effective uid on Linux; elsewhere ownership is not checked.
        Path self = Path.of("/proc/self");
        try {
            if (Files.isDirectory(self)) {
                return Optional.of((Integer) Files.getAttribute(self, "unix:uid"));
            }
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }
}
