package dev.skillgate.audit.internal;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.shared.DirectoryPlacement;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The audit directory and its files: their names, the placement and permission checks, and the
 * few ways a file is opened or created. Nothing here follows a symbolic link: every open passes
 * {@link LinkOption#NOFOLLOW_LINKS} and every new file is created {@code 0600} with {@code
 * CREATE_NEW}. It decides nothing about the log's contents.
 *
 * <p>One instance per engine; the worker thread alone calls the instance methods.
 */
final class AuditDirectory {
    static final String LOG = "audit.log";
    static final String HEAD = "audit.head";
    static final String LOCK = "audit.lock";
    static final String HEAD_TMP = "audit.head.tmp";
    static final String REPAIR_TMP = "audit.log.repair";
    static final String TORN_PREFIX = "audit.log.torn-";
    static final String EVIDENCE_PREFIX = "audit.corrupt-";

    static final OpenOption[] READ_NOFOLLOW = {StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS};

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss.SSS'Z'").withZone(ZoneOffset.UTC);

    private final Path dir;
    /** Why the audit directory itself cannot be vouched for (its mode or owner), or null. */
    private String problem;

    AuditDirectory(Path dir) {
        this.dir = dir;
    }

    /** The audit directory (absolute, normalised). */
    Path dir() {
        return dir;
    }

    /** A file in the audit directory. */
    Path resolve(String name) {
        return dir.resolve(name);
    }

    /**
     * The StrictModes check of the directory that holds the audit directory (the data directory):
     * no other user or group may be able to change it or any directory on its path. The audit
     * directory itself is checked by {@link Permissions} ({@code AUDIT_PERMISSIONS}).
     */
    Optional<Diagnostic> placement() {
        Path parent = dir.toAbsolutePath().normalize().getParent();
        return parent == null ? Optional.empty() : DirectoryPlacement.check(parent, "directory holding the audit log");
    }

    /**
     * Checks the audit directory and, when {@code create}, creates it ({@code 0700}) and tightens its
     * mode. Returns a fatal reason, or null; records non-fatal findings in {@code notes} and a mode
     * or owner the log cannot be vouched for in {@link #problem()}.
     */
    String prepare(List<Diagnostic> notes, boolean create) throws IOException {
        if (Files.isSymbolicLink(dir)) {
            return "the audit directory is a symbolic link";
        }
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            if (!create) {
                return null;
            }
            Path parent = dir.getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            if (Permissions.posix(dir)) {
                Files.createDirectory(dir, Permissions.dirAttribute());
            } else {
                Files.createDirectory(dir);
            }
        }
        BasicFileAttributes a = Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!a.isDirectory()) {
            return "the audit directory is not a directory";
        }
        Permissions.Check c = Permissions.check(dir, true, create, "audit directory");
        if (c.fatal()) {
            problem = "the audit directory is " + c.diagnostics().get(0).message();
        } else {
            notes.addAll(c.diagnostics());
        }
        return null;
    }

    /** Why the audit directory cannot be vouched for, or null (see {@link #prepare}). */
    String problem() {
        return problem;
    }

    /** Resets the audit directory to {@code 0700} after a repair decided to keep it. */
    void restoreMode() throws IOException {
        if (problem != null) {
            Files.setPosixFilePermissions(dir, Permissions.DIR_MODE);
            problem = null;
        }
    }

    /** What identifies the directory for the in-JVM writer registry: its file key, else its real path. */
    Object key() throws IOException {
        Object key = Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                .fileKey();
        return key != null ? key : dir.toRealPath(LinkOption.NOFOLLOW_LINKS).toString();
    }

    /**
     * A problem found while checking the file {@code name}; null when the file is fine or absent.
     * Sets {@code permissionFault[0]} when the problem is its mode or owner.
     */
    String checkFile(String name, boolean tighten, List<Diagnostic> notes, boolean[] permissionFault)
            throws IOException {
        Path p = dir.resolve(name);
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (a.isSymbolicLink()) {
            return name + " is a symbolic link";
        }
        if (!a.isRegularFile()) {
            return name + " is not a regular file";
        }
        Permissions.Check c = Permissions.check(p, false, tighten, name);
        if (c.fatal()) {
            permissionFault[0] = true;
            return name + " is " + c.diagnostics().get(0).message();
        }
        notes.addAll(c.diagnostics());
        return null;
    }

    /** Opens the log for reading and writing; fails when the file was replaced while it was opened. */
    static FileChannel openForWriting(Path logP) throws IOException {
        Object before = Files.readAttributes(logP, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                .fileKey();
        FileChannel ch =
                FileChannel.open(logP, StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
        Object after = Files.readAttributes(logP, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                .fileKey();
        if (before != null && !before.equals(after)) {
            ch.close();
            throw new IOException("the log file was replaced while it was opened");
        }
        return ch;
    }

    /** Creates a new {@code 0600} file (never an existing one), readable too when {@code readable}. */
    static FileChannel create(Path p, boolean readable) throws IOException {
        Set<OpenOption> options = readable
                ? Set.of(
                        StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.READ,
                        StandardOpenOption.WRITE,
                        LinkOption.NOFOLLOW_LINKS)
                : Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
        return Permissions.posix(p)
                ? FileChannel.open(p, options, Permissions.fileAttribute())
                : FileChannel.open(p, options);
    }

    /** At most {@code max} bytes of {@code p}. */
    static byte[] readBounded(Path p, int max) throws IOException {
        try (InputStream in = Files.newInputStream(p, READ_NOFOLLOW)) {
            return in.readNBytes(max);
        }
    }

    /**
     * Whether {@code p} exists (a link counts, as itself). Only "no such file" means absent: a path
     * that cannot be looked up (permission denied, a parent that is not a directory) throws, so a
     * log that is merely unreachable is never reported as no log at all.
     */
    static boolean present(Path p) throws IOException {
        try {
            Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return true;
        } catch (NoSuchFileException e) {
            // Newer JDKs report ENOTDIR as "no such file" too: absent only when the nearest existing
            // ancestor is a directory (a loop over the path's ancestors, bounded by its depth).
            for (Path ancestor = p.toAbsolutePath().getParent(); ancestor != null; ancestor = ancestor.getParent()) {
                if (Files.exists(ancestor)) {
                    if (!Files.isDirectory(ancestor)) {
                        throw new NotDirectoryException(ancestor.toString());
                    }
                    return false;
                }
            }
            return false;
        }
    }

    /** The SHA-256 of {@code p} when it is a regular file (streamed, never followed). */
    static Optional<Sha256Digest> digestIfRegular(Path p) throws IOException {
        if (!Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        MessageDigest md = Sha256Digest.newMessageDigest();
        try (InputStream in = Files.newInputStream(p, READ_NOFOLLOW)) {
            byte[] buf = new byte[1 << 16];
            int n;
            while ((n = in.read(buf)) > 0) {
                md.update(buf, 0, n);
            }
        }
        return Optional.of(Sha256Digest.of(md.digest()));
    }

    /** A new random log id. */
    static byte[] newLogId() {
        byte[] logId = new byte[Frames.LOG_ID_SIZE];
        RANDOM.nextBytes(logId);
        return logId;
    }

    /** {@code at} in UTC to the millisecond, as file names carry it ({@code yyyyMMddTHHmmss.SSSZ}). */
    static String timestamp(Instant at) {
        return STAMP.format(at);
    }

    /** {@code bytes} random bytes in lowercase hex. */
    static String randomHex(int bytes) {
        byte[] b = new byte[bytes];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
