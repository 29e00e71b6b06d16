package dev.skillgate.runner.internal;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Limits;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import dev.skillgate.model.shared.DirectoryPlacement;
import dev.skillgate.runner.SupervisorIdentity;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Private, run-owned staging of captured bytes (SPEC §10 step 2).
 *
 * <pre>
 * &lt;data dir&gt;/staging/                      0700
 * &lt;data dir&gt;/staging/&lt;attempt&gt;-&lt;run id&gt;/   0700  the run directory
 *     owner                                 0600  {@link OwnerRecord}, outside the bundle (durable before spawn)
 *     bundle/                               0500  the captured files, 0400, dirs 0500
 *     home/                                 0700  HOME of the script
 *     tmp/                                  0700  TMPDIR of the script
 * </pre>
 *
 * The permissions keep other users out and make accidental writes fail; they do not stop the host
 * user (or root), which is why the staged bytes are re-hashed immediately before spawn.
 */
public final class Staging {

    /** The staging root's name under the data directory. */
    public static final String STAGING = "staging";

    /** The ownership record's name in a run directory. */
    public static final String OWNER = "owner";

    /** The temporary name used while rewriting the ownership record. */
    public static final String OWNER_TMP = "owner.tmp";

    /** The staged bundle's name in a run directory. */
    public static final String BUNDLE = "bundle";

    /** The script's HOME in a run directory. */
    public static final String HOME = "home";

    /** The script's TMPDIR in a run directory. */
    public static final String TMP = "tmp";

    /** A run directory's name: 32 hex digits of attempt, a dash, the run id. */
    public static final Pattern RUN_DIR = Pattern.compile("([0-9a-f]{32})-([A-Za-z0-9._:-]{1,128})");

    static final FileAttribute<Set<PosixFilePermission>> DIR_0700 =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));
    static final FileAttribute<Set<PosixFilePermission>> FILE_0600 =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
    static final Set<PosixFilePermission> PERM_0700 = PosixFilePermissions.fromString("rwx------");
    static final Set<PosixFilePermission> PERM_0500 = PosixFilePermissions.fromString("r-x------");
    static final Set<PosixFilePermission> PERM_0400 = PosixFilePermissions.fromString("r--------");
    static final Set<PosixFilePermission> PERM_0600 = PosixFilePermissions.fromString("rw-------");

    private static final LinkOption NOFOLLOW = LinkOption.NOFOLLOW_LINKS;

    private Staging() {}

    /** Parses a run directory name into (attempt, run id), or empty. */
    public static Optional<String[]> parseRunDirName(String name) {
        Matcher m = RUN_DIR.matcher(name);
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of(new String[] {m.group(1), m.group(2)});
    }

    /**
     * Ensures {@code <dataDir>/staging} exists as a private real directory and returns it. Before
     * anything is created, and again once the directories exist, the data directory and the staging
     * root must pass {@link DirectoryPlacement}: no directory on their path may be changeable by
     * another user or group (decision 0520).
     *
     * @throws StagingException DATA_DIRECTORY_UNSAFE when another user could change them;
     *     STAGING_FAILED if the root is a link, not a directory, or accessible to others
     */
    public static Path stagingRoot(Path dataDir) throws StagingException {
        refuseUnsafe(dataDir, "data directory");
        try {
            if (!Files.exists(dataDir)) {
                Files.createDirectories(dataDir, DIR_0700);
                refuseUnsafe(dataDir, "data directory");
            }
            Path root = dataDir.resolve(STAGING);
            try {
                Files.createDirectory(root, DIR_0700);
                Files.setPosixFilePermissions(root, PERM_0700);
            } catch (FileAlreadyExistsException e) {
                // Checked below.
            }
            BasicFileAttributes attrs = Files.readAttributes(root, BasicFileAttributes.class, NOFOLLOW);
            if (!attrs.isDirectory() || attrs.isSymbolicLink()) {
                throw new StagingException(ErrorCode.STAGING_FAILED, "the staging root is not a real directory");
            }
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(root, NOFOLLOW);
            if (!PERM_0700.containsAll(perms)) {
                throw new StagingException(ErrorCode.STAGING_FAILED, "the staging root is accessible to other users");
            }
            refuseUnsafe(root, "staging directory");
            return root;
        } catch (IOException | UnsupportedOperationException e) {
            throw new StagingException(
                    ErrorCode.STAGING_FAILED,
                    "the staging root could not be prepared: " + e.getClass().getSimpleName());
        }
    }

    private static void refuseUnsafe(Path dir, String what) throws StagingException {
        Optional<Diagnostic> unsafe = DirectoryPlacement.check(dir.toAbsolutePath(), what);
        if (unsafe.isPresent()) {
            throw new StagingException(
                    ErrorCode.DATA_DIRECTORY_UNSAFE, unsafe.get().message());
        }
    }

    /**
     * Creates a run directory, writes the ownership record (not yet durable, see {@link
     * StagedRun#recordSupervisor}), stages every file read-only and returns the staged run. On
     * failure, whatever was created is removed and the exception says why.
     */
    public static StagedRun stage(
            Path dataDir, RunId runId, Map<PortablePath, byte[]> files, OwnerRecord.Owner stager, String attempt)
            throws StagingException {
        if (!OwnerRecord.isAttempt(attempt)) {
            throw new IllegalArgumentException("malformed attempt");
        }
        Path root = stagingRoot(dataDir);
        Path runDir = root.resolve(attempt + "-" + runId.value());
        try {
            Files.createDirectory(runDir, DIR_0700);
            Files.setPosixFilePermissions(runDir, PERM_0700);
        } catch (IOException | UnsupportedOperationException e) {
            throw new StagingException(
                    ErrorCode.STAGING_FAILED,
                    "the run directory could not be created: " + e.getClass().getSimpleName());
        }
        StagedRun run;
        try {
            String key = SecureTree.fileKey(runDir);
            run = new StagedRun(root, runDir, new OwnerRecord(runId, attempt, key, stager, Optional.empty()));
            run.writeFirstOwner();
        } catch (IOException | RuntimeException e) {
            removeQuietly(root, runDir);
            throw new StagingException(
                    ErrorCode.STAGING_FAILED,
                    "the ownership record could not be written: " + e.getClass().getSimpleName());
        }
        try {
            Files.createDirectory(run.home(), DIR_0700);
            Files.createDirectory(run.tmp(), DIR_0700);
            Files.createDirectory(run.bundle(), DIR_0700);
            writeBundle(run.bundle(), files);
        } catch (IOException | RuntimeException e) {
            run.remove();
            throw new StagingException(
                    ErrorCode.STAGING_FAILED,
                    "the bundle could not be staged: " + e.getClass().getSimpleName());
        }
        return run;
    }

    private static void writeBundle(Path bundle, Map<PortablePath, byte[]> files) throws IOException {
        Set<Path> createdDirs = new LinkedHashSet<>();
        for (Map.Entry<PortablePath, byte[]> e : new TreeMap<>(files).entrySet()) {
            List<String> segments = e.getKey().segments();
            Path dir = bundle;
            for (int i = 0; i < segments.size() - 1; i++) {
                dir = dir.resolve(segments.get(i));
                if (createdDirs.add(dir)) {
                    Files.createDirectory(dir, DIR_0700);
                    Files.setPosixFilePermissions(dir, PERM_0700);
                }
            }
            Path file = e.getKey().resolveUnder(bundle);
            Set<OpenOption> options = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, NOFOLLOW);
            try (SeekableByteChannel ch = Files.newByteChannel(file, options, FILE_0600)) {
                ByteBuffer buf = ByteBuffer.wrap(e.getValue());
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
            }
            Files.setPosixFilePermissions(file, PERM_0400);
        }
        List<Path> dirs = new ArrayList<>(createdDirs);
        for (int i = dirs.size() - 1; i >= 0; i--) {
            Files.setPosixFilePermissions(dirs.get(i), PERM_0500);
        }
        Files.setPosixFilePermissions(bundle, PERM_0500);
    }

    private static void removeQuietly(Path root, Path runDir) {
        try {
            Optional<SecureDirectoryStream<Path>> sds = SecureTree.open(root);
            if (sds.isPresent()) {
                try (SecureDirectoryStream<Path> s = sds.get()) {
                    SecureTree.delete(s, runDir.getFileName(), Optional.empty());
                }
            }
        } catch (IOException e) {
            // Retained; the janitor reports it.
        }
    }

    /** A fresh random attempt token (32 lowercase hex digits). */
    public static String newAttempt() {
        byte[] b = new byte[16];
        ATTEMPTS.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    /**
     * One generator for every attempt token of this JVM (decision 0870): {@code SecureRandom} is
     * thread-safe, and a new instance per launch cost a provider look-up and a reflective constructor
     * call each time, for the same source of randomness.
     */
    private static final java.security.SecureRandom ATTEMPTS = new java.security.SecureRandom();

    /** One staged run. Thread-safe for the owner-record rewrite. */
    public static final class StagedRun {
        private final Path stagingRoot;
        private final Path runDir;
        private volatile OwnerRecord record;

        StagedRun(Path stagingRoot, Path runDir, OwnerRecord record) {
            this.stagingRoot = stagingRoot;
            this.runDir = runDir;
            this.record = record;
        }

        /** The run directory. */
        public Path runDir() {
            return runDir;
        }

        /** The staged bundle root. */
        public Path bundle() {
            return runDir.resolve(BUNDLE);
        }

        /** The script's HOME. */
        public Path home() {
            return runDir.resolve(HOME);
        }

        /** The script's TMPDIR. */
        public Path tmp() {
            return runDir.resolve(TMP);
        }

        /** The current ownership record. */
        public OwnerRecord record() {
            return record;
        }

        /** The absolute staged path of a bundle file. */
        public Path staged(PortablePath path) {
            return path.resolveUnder(bundle()).toAbsolutePath();
        }

        /**
         * Adds the supervisor's identity to the ownership record, durably: temp file, {@code fsync},
         * atomic rename, directory {@code fsync}. This is the one durable write of a launch (decision
         * 0331); it happens before the child starts, and the directory {@code fsync} also makes the
         * run directory's entries ({@code owner}, {@code bundle/}, {@code home/}, {@code tmp/}) durable.
         */
        public synchronized void recordSupervisor(SupervisorIdentity identity) throws IOException {
            OwnerRecord next;
            try {
                next = record.withSupervisor(identity);
            } catch (IllegalArgumentException e) {
                throw new IOException("the supervisor identity cannot be recorded: " + e.getMessage(), e);
            }
            writeOwner(next);
            record = next;
        }

        /**
         * Writes the first record (stager only) straight to {@code owner}, without {@code fsync}
         * (decision 0331). It is there for the janitor if this JVM dies before the launch (the kernel
         * keeps what was written); after a power loss before {@link #recordSupervisor} it may be
         * missing or short, and the janitor then keeps the directory as unrecognised. No child has
         * started by then.
         */
        synchronized void writeFirstOwner() throws IOException {
            Set<OpenOption> options = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, NOFOLLOW);
            try (FileChannel ch = FileChannel.open(runDir.resolve(OWNER), options, FILE_0600)) {
                ByteBuffer buf = ByteBuffer.wrap(record.format());
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
            }
        }

        synchronized void writeOwner(OwnerRecord r) throws IOException {
            Path tmpFile = runDir.resolve(OWNER_TMP);
            Files.deleteIfExists(tmpFile);
            Set<OpenOption> options = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, NOFOLLOW);
            try (FileChannel ch = FileChannel.open(tmpFile, options, FILE_0600)) {
                ByteBuffer buf = ByteBuffer.wrap(r.format());
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true);
            }
            Files.move(
                    tmpFile,
                    runDir.resolve(OWNER),
                    StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
            try (FileChannel dir = FileChannel.open(runDir, StandardOpenOption.READ)) {
                dir.force(true);
            }
        }

        /**
         * Re-reads every staged file (no links followed, bounded) and compares the framed revision
         * with {@code expected}; an extra, missing, changed, linked or special file is tampering.
         *
         * @return empty if the staged bytes are exactly the expected revision
         */
        public Optional<Diagnostic> verify(Revision expected, int expectedFiles) {
            Map<PortablePath, byte[]> read = new HashMap<>();
            String[] problem = {null};
            Path bundle = bundle();
            try {
                Files.walkFileTree(
                        bundle,
                        EnumSet.noneOf(java.nio.file.FileVisitOption.class),
                        SecureTree.MAX_DEPTH,
                        new SimpleFileVisitor<>() {
                            @Override
                            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                                String rel = relative(bundle, file);
                                if (!attrs.isRegularFile() || attrs.size() > Limits.FILE_BYTES) {
                                    problem[0] = rel;
                                    return FileVisitResult.TERMINATE;
                                }
                                if (read.size() >= expectedFiles) {
                                    problem[0] = rel;
                                    return FileVisitResult.TERMINATE;
                                }
                                PortablePath pp;
                                try {
                                    pp = PortablePath.of(rel);
                                } catch (InvalidValueException e) {
                                    problem[0] = "";
                                    return FileVisitResult.TERMINATE;
                                }
                                read.put(pp, readBounded(file, attrs.size()));
                                return FileVisitResult.CONTINUE;
                            }

                            @Override
                            public FileVisitResult visitFileFailed(Path file, IOException exc) {
                                problem[0] = relative(bundle, file);
                                return FileVisitResult.TERMINATE;
                            }
                        });
            } catch (IOException | RuntimeException e) {
                return Optional.of(tampered(""));
            }
            if (problem[0] != null) {
                return Optional.of(tampered(problem[0]));
            }
            if (read.size() != expectedFiles || !Revision.compute(read).equals(expected)) {
                return Optional.of(tampered(""));
            }
            return Optional.empty();
        }

        /**
         * Removes the run directory through {@link SecureTree}, checking it is still the directory
         * that was created.
         *
         * @return empty when removed, else why it was retained
         */
        public Optional<String> remove() {
            try {
                Optional<SecureDirectoryStream<Path>> sds = SecureTree.open(stagingRoot);
                if (sds.isEmpty()) {
                    return Optional.of("this platform offers no secure directory removal");
                }
                try (SecureDirectoryStream<Path> s = sds.get()) {
                    String key = record.directoryKey();
                    return SecureTree.delete(
                            s, runDir.getFileName(), key.equals("none") ? Optional.empty() : Optional.of(key));
                }
            } catch (IOException e) {
                return Optional.of(
                        "could not open the staging root: " + e.getClass().getSimpleName());
            }
        }

        private static String relative(Path bundle, Path file) {
            List<String> parts = new ArrayList<>();
            for (Path p : bundle.relativize(file)) {
                parts.add(p.toString());
            }
            return String.join("/", parts);
        }

        private static byte[] readBounded(Path file, long expectedSize) throws IOException {
            try (SeekableByteChannel ch = Files.newByteChannel(file, Set.of(StandardOpenOption.READ, NOFOLLOW))) {
                ByteBuffer buf = ByteBuffer.allocate((int) Math.min(expectedSize, Limits.FILE_BYTES) + 1);
                while (buf.hasRemaining() && ch.read(buf) >= 0) {
                    // Read until EOF or one byte past the bound.
                }
                if (!buf.hasRemaining()) {
                    throw new IOException("staged file changed size while it was read");
                }
                byte[] out = new byte[buf.position()];
                buf.flip().get(out);
                return out;
            }
        }

        private static Diagnostic tampered(String location) {
            return Diagnostic.error(
                    ErrorCode.STAGING_TAMPERED, location, "a staged file differs from the captured revision");
        }
    }
}
