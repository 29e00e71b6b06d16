package dev.skillgate.engine;

import dev.skillgate.fixtures.TestNodeBinary;
import dev.skillgate.runner.NodeRuntime;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Test helpers: the real node, hostile test roots, skill bundles on disk, /proc survivor scans. */
final class Support {
    private Support() {}

    static Path node() {
        return TestNodeBinary.require();
    }

    static String nodeVersion() {
        try {
            ProcessBuilder pb = new ProcessBuilder(node().toString(), "--version");
            pb.environment().clear();
            Process p = pb.start();
            p.getOutputStream().close();
            String v = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            p.waitFor();
            return v;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    static NodeRuntime runtime() {
        return NodeRuntime.pinned(node(), nodeVersion());
    }

    static String newMarker() {
        return "sgeng-" + UUID.randomUUID().toString().substring(0, 12);
    }

    /** A fresh directory whose path has spaces and shell metacharacters, tagged with {@code marker}. */
    static Path hostileRoot(Path base, String marker) throws IOException {
        return Files.createDirectories(base.resolve("sg $(echo pwned) 'q' ;&| " + marker + " " + UUID.randomUUID()));
    }

    /** The repository's examples directory (tests run from the module directory). */
    static Path examples() {
        return Path.of("..", "examples", "skills").toAbsolutePath().normalize();
    }

    /** Copies a skill directory (regular files and directories only). */
    static Path copySkill(Path from, Path toParent) throws IOException {
        Path target = toParent.resolve(from.getFileName().toString());
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Files.createDirectories(target.resolve(from.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.copy(file, target.resolve(from.relativize(file).toString()));
                return FileVisitResult.CONTINUE;
            }
        });
        return target;
    }

    /** Writes a file, creating parents. */
    static Path write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        return Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    /** Pids of processes (other than this JVM) that mention {@code marker} in their environment or command line. */
    static List<Long> survivors(String marker) {
        List<Long> out = new ArrayList<>();
        long self = ProcessHandle.current().pid();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(
                Path.of("/proc"), p -> p.getFileName().toString().matches("[0-9]+"))) {
            for (Path dir : ds) {
                long pid = Long.parseLong(dir.getFileName().toString());
                if (pid != self
                        && (read(dir.resolve("environ")) + "\0" + read(dir.resolve("cmdline"))).contains(marker)) {
                    out.add(pid);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    /** A class's tree: {@code base}, and below its hostile root {@code skills/} (with hello-world) and {@code ws/}. */
    record HelloWorldRoot(Path base, Path skills, Path workspace) {}

    /** A new {@link HelloWorldRoot} in a temporary directory named by {@code prefix}. */
    static HelloWorldRoot helloWorldRoot(String prefix, String marker) throws IOException {
        Path base = Files.createTempDirectory(prefix);
        Path root = hostileRoot(base, marker);
        Path skills = Files.createDirectories(root.resolve("skills"));
        Path workspace = Files.createDirectories(root.resolve("ws"));
        copySkill(examples().resolve("hello-world"), skills);
        return new HelloWorldRoot(base, skills, workspace);
    }

    /**
     * One test's directories, under the class's hostile root: {@code skills/} and {@code work space}
     * exist (empty), {@code data dir} does not (the engine creates it). The spaces are deliberate.
     */
    record TestDirs(Path skills, Path data, Path workspace) {}

    /** Fresh {@link TestDirs} in a new directory below {@link #hostileRoot}{@code (base, marker)}. */
    static TestDirs freshDirs(Path base, String marker) throws IOException {
        Path t = Files.createTempDirectory(hostileRoot(base, marker), "t ");
        return new TestDirs(
                Files.createDirectories(t.resolve("skills")),
                t.resolve("data dir"),
                Files.createDirectories(t.resolve("work space")));
    }

    /**
     * The end of every live test class: kills and reports any process that still carries {@code
     * marker}, deletes {@code base}, and fails when there was a survivor.
     */
    static void assertNoSurvivors(String marker, Path base) throws IOException {
        List<Long> survivors = killSurvivors(marker);
        deleteTree(base);
        org.assertj.core.api.Assertions.assertThat(survivors)
                .as("processes left behind")
                .isEmpty();
    }

    /** Kills survivors (hygiene) and returns them, so the test can fail. */
    static List<Long> killSurvivors(String marker) {
        List<Long> found = survivors(marker);
        found.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
        return found;
    }

    private static String read(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return new String(in.readNBytes(1 << 20), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** Deletes a test tree, making read-only directories writable first; never follows links. */
    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                Files.delete(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
