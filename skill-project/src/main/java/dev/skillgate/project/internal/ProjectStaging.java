package dev.skillgate.project.internal;

import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.shared.DirectoryPlacement;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The private staging of one project job under {@code DATA_DIR/projects/<attempt>-<run>}: {@code
 * project/} (the snapshot, files 0400 and directories 0500, with only the declared output directory
 * writable), {@code home/} and {@code tmp/} (0700). Links are never created, followed or staged; the
 * {@code .bin} links are not staged at all.
 */
public final class ProjectStaging {
    private static final Set<PosixFilePermission> P700 = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> P500 = PosixFilePermissions.fromString("r-x------");
    private static final Set<PosixFilePermission> P400 = PosixFilePermissions.fromString("r--------");
    private static final FileAttribute<Set<PosixFilePermission>> DIR = PosixFilePermissions.asFileAttribute(P700);
    private static final FileAttribute<Set<PosixFilePermission>> FILE =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
    private static final LinkOption NOFOLLOW = LinkOption.NOFOLLOW_LINKS;

    private final Path runDir;
    private final PortablePath output;

    private ProjectStaging(Path runDir, PortablePath output) {
        this.runDir = runDir;
        this.output = output;
    }

    /** The run directory. */
    public Path runDir() {
        return runDir;
    }

    /** The staged project (the steps' working directory). */
    public Path project() {
        return runDir.resolve("project");
    }

    /** The job-local HOME. */
    public Path home() {
        return runDir.resolve("home");
    }

    /** The job-local TMPDIR. */
    public Path tmp() {
        return runDir.resolve("tmp");
    }

    /** The staged output directory. */
    public Path outputDirectory() {
        return output.resolveUnder(project());
    }

    /**
     * Stages {@code files} privately.
     *
     * @throws IOException when staging fails (whatever was created is removed) or the data directory
     *     is unsafe (its message starts with {@code DATA_DIRECTORY_UNSAFE:})
     */
    public static ProjectStaging stage(Path dataDir, String runId, Map<PortablePath, byte[]> files, PortablePath output)
            throws IOException {
        Files.createDirectories(dataDir, DIR);
        Optional<dev.skillgate.model.Diagnostic> unsafe =
                DirectoryPlacement.check(dataDir.toAbsolutePath(), "data directory");
        if (unsafe.isPresent()) {
            throw new IOException("DATA_DIRECTORY_UNSAFE: " + unsafe.get().message());
        }
        Path root = dataDir.resolve("projects");
        if (!Files.isDirectory(root, NOFOLLOW)) {
            Files.createDirectory(root, DIR);
        }
        if (Files.isSymbolicLink(root) || !P700.containsAll(Files.getPosixFilePermissions(root, NOFOLLOW))) {
            throw new IOException("DATA_DIRECTORY_UNSAFE: the project staging root is a link or shared");
        }
        byte[] token = new byte[16];
        new java.security.SecureRandom().nextBytes(token);
        Path runDir = root.resolve(HexFormat.of().formatHex(token) + "-" + runId);
        Files.createDirectory(runDir, DIR);
        ProjectStaging staging = new ProjectStaging(runDir, output);
        try {
            Files.createDirectory(staging.home(), DIR);
            Files.createDirectory(staging.tmp(), DIR);
            Path project = staging.project();
            Files.createDirectory(project, DIR);
            List<Path> dirs = new ArrayList<>();
            for (Map.Entry<PortablePath, byte[]> e : new TreeMap<>(files).entrySet()) {
                List<String> segs = e.getKey().segments();
                Path dir = project;
                for (int i = 0; i < segs.size() - 1; i++) {
                    dir = dir.resolve(segs.get(i));
                    if (!Files.isDirectory(dir, NOFOLLOW)) {
                        Files.createDirectory(dir, DIR);
                        dirs.add(dir);
                    }
                }
                Path file = e.getKey().resolveUnder(project);
                Set<OpenOption> options = Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, NOFOLLOW);
                try (SeekableByteChannel ch = Files.newByteChannel(file, options, FILE)) {
                    ByteBuffer buf = ByteBuffer.wrap(e.getValue());
                    while (buf.hasRemaining()) {
                        ch.write(buf);
                    }
                }
                Files.setPosixFilePermissions(file, P400);
            }
            // The output directory: the one writable place in the project (created with its parents).
            Path out = staging.outputDirectory();
            Path dir = project;
            for (String seg : output.segments()) {
                dir = dir.resolve(seg);
                if (!Files.isDirectory(dir, NOFOLLOW)) {
                    Files.createDirectory(dir, DIR);
                    if (!dir.equals(out)) {
                        dirs.add(dir);
                    }
                }
            }
            for (int i = dirs.size() - 1; i >= 0; i--) {
                Files.setPosixFilePermissions(dirs.get(i), P500);
            }
            Files.setPosixFilePermissions(project, P500);
        } catch (IOException | RuntimeException e) {
            staging.remove();
            throw e instanceof IOException io ? io : new IOException(e);
        }
        return staging;
    }

    /**
     * Re-reads every staged input (everything outside the output directory, no link followed) and
     * compares it with {@code expected}: a changed, extra, missing, linked or special file is tampering.
     *
     * @return empty when the staged inputs are exactly {@code expected}, else where they differ
     */
    public Optional<String> verifyInputs(Revision expected, long maxBytes) {
        Map<PortablePath, byte[]> read = new HashMap<>();
        Path project = project();
        Path out = outputDirectory();
        String[] problem = {null};
        long[] total = {0};
        try {
            Files.walkFileTree(
                    project, EnumSet.noneOf(java.nio.file.FileVisitOption.class), 128, new SimpleFileVisitor<>() {
                        @Override
                        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                            return dir.equals(out) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                            String rel = relative(project, file);
                            total[0] += attrs.size();
                            if (!attrs.isRegularFile() || total[0] > maxBytes || !PortablePath.isValid(rel)) {
                                problem[0] = rel;
                                return FileVisitResult.TERMINATE;
                            }
                            read.put(PortablePath.of(rel), readBounded(file, attrs.size()));
                            return FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult visitFileFailed(Path file, IOException exc) {
                            problem[0] = relative(project, file);
                            return FileVisitResult.TERMINATE;
                        }
                    });
        } catch (IOException | RuntimeException e) {
            return Optional.of("");
        }
        if (problem[0] != null) {
            return Optional.of(problem[0]);
        }
        return Revision.compute(read).equals(expected) ? Optional.empty() : Optional.of("");
    }

    /**
     * Checks what the build left in the output directory: regular files and directories only, at most
     * {@code maxFiles} files and {@code maxBytes} bytes, and every path of {@code required} present as a
     * regular file.
     *
     * @return empty when the output is acceptable, else why not
     */
    public Optional<String> validateOutput(List<PortablePath> required, int maxFiles, long maxBytes) {
        Path project = project();
        Path out = outputDirectory();
        List<String> found = new ArrayList<>();
        String[] problem = {null};
        long[] total = {0};
        try {
            if (!Files.isDirectory(out, NOFOLLOW)) {
                return Optional.of("the output directory is gone or replaced");
            }
            Files.walkFileTree(out, EnumSet.noneOf(java.nio.file.FileVisitOption.class), 64, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    String rel = relative(project, file);
                    total[0] += attrs.size();
                    if (!attrs.isRegularFile()) {
                        problem[0] = "'" + rel + "' is a link or a special file";
                    } else if (found.size() >= maxFiles || total[0] > maxBytes) {
                        problem[0] = "the build left more than " + maxFiles + " files or " + maxBytes + " bytes";
                    }
                    found.add(rel);
                    return problem[0] == null ? FileVisitResult.CONTINUE : FileVisitResult.TERMINATE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException exc) {
                    problem[0] = "'" + relative(project, file) + "' cannot be read";
                    return FileVisitResult.TERMINATE;
                }
            });
        } catch (IOException e) {
            return Optional.of("the output directory cannot be walked");
        }
        if (problem[0] != null) {
            return Optional.of(problem[0]);
        }
        for (PortablePath p : required) {
            if (!found.contains(p.value())) {
                return Optional.of("the build did not leave the test '" + p.value() + "'");
            }
        }
        return Optional.empty();
    }

    /**
     * Removes the run directory, never following a link.
     *
     * @return empty when removed, else why it was kept
     */
    public Optional<String> remove() {
        try {
            Files.walkFileTree(
                    runDir, EnumSet.noneOf(java.nio.file.FileVisitOption.class), 256, new SimpleFileVisitor<>() {
                        @Override
                        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
                                throws IOException {
                            Files.setPosixFilePermissions(dir, P700);
                            return FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                            Files.delete(file);
                            return FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                            if (exc != null) {
                                throw exc;
                            }
                            Files.delete(dir);
                            return FileVisitResult.CONTINUE;
                        }
                    });
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of("the staging directory could not be removed: "
                    + e.getClass().getSimpleName());
        }
    }

    private static String relative(Path root, Path file) {
        List<String> parts = new ArrayList<>();
        for (Path p : root.relativize(file)) {
            parts.add(p.toString());
        }
        return String.join("/", parts);
    }

    private static byte[] readBounded(Path file, long expectedSize) throws IOException {
        try (SeekableByteChannel ch = Files.newByteChannel(file, Set.of(StandardOpenOption.READ, NOFOLLOW))) {
            ByteBuffer buf = ByteBuffer.allocate((int) Math.min(expectedSize, Integer.MAX_VALUE - 16) + 1);
            while (buf.hasRemaining() && ch.read(buf) >= 0) {
                // Until EOF or one byte past the size seen.
            }
            if (!buf.hasRemaining()) {
                throw new IOException("a staged file grew while it was read");
            }
            byte[] out = new byte[buf.position()];
            buf.flip().get(out);
            return out;
        }
    }
}
