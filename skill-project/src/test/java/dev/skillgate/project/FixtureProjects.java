package dev.skillgate.project;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.fixtures.TestNodeBinary;
import dev.skillgate.model.RunId;
import dev.skillgate.runner.NodeRuntime;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;

/** The real fixture projects of {@code test-fixtures/projects}, copied into temporary directories. */
public final class FixtureProjects {
    /** Where the fixture projects live, relative to a module directory. */
    public static final Path ROOT = Path.of("..", "test-fixtures", "projects");

    /** Where the test-fixtures build installed the pinned TypeScript. */
    public static final Path PINNED_TYPESCRIPT =
            Path.of("..", "test-fixtures", ".pinned", "typescript", "node_modules", "typescript");

    /** The pinned TypeScript version. */
    public static final String TYPESCRIPT_VERSION = "5.9.3";

    private FixtureProjects() {}

    /** Copies fixture {@code name} into {@code target} (created) and returns it. */
    public static Path copy(String name, Path target) {
        copyTree(ROOT.resolve(name), target);
        return target;
    }

    /**
     * Copies the ts-build fixture and installs the pinned TypeScript into its {@code node_modules} the
     * way npm lays it out (the package, {@code .bin/tsc} as a relative link, the lockfile entry).
     */
    public static Path typescriptProject(Path target) {
        assertThat(PINNED_TYPESCRIPT.resolve("bin/tsc"))
                .as(
                        "the test-fixtures build installs typescript@%s into test-fixtures/.pinned (needs the npm registry once)",
                        TYPESCRIPT_VERSION)
                .isRegularFile();
        copy("ts-build", target);
        copyTree(PINNED_TYPESCRIPT, target.resolve("node_modules/typescript"));
        try {
            Files.createDirectories(target.resolve("node_modules/.bin"));
            Files.createSymbolicLink(target.resolve("node_modules/.bin/tsc"), Path.of("../typescript/bin/tsc"));
            Files.writeString(
                    target.resolve("package-lock.json"),
                    "{\n  \"name\": \"ts-build\",\n  \"version\": \"1.0.0\",\n  \"lockfileVersion\": 3,\n  \"requires\": true,\n"
                            + "  \"packages\": {\n    \"\": {\"name\": \"ts-build\", \"version\": \"1.0.0\", \"devDependencies\": {\"typescript\": \""
                            + TYPESCRIPT_VERSION + "\"}},\n    \"node_modules/typescript\": {\"version\": \""
                            + TYPESCRIPT_VERSION
                            + "\", \"dev\": true, \"license\": \"Apache-2.0\"}\n  }\n}\n",
                    StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return target;
    }

    /** The test node, pinned to its own version. */
    public static NodeRuntime node() {
        Path node = TestNodeBinary.require();
        try {
            Process p = new ProcessBuilder(node.toString(), "--version")
                    .redirectErrorStream(true)
                    .start();
            String version = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
            p.waitFor();
            return NodeRuntime.pinned(node, version);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A fresh run id. */
    public static RunId run() {
        return RunId.of("project-" + Long.toHexString(System.nanoTime()));
    }

    /** The pids of live processes whose command line holds {@code marker}. */
    public static List<Long> processesWith(String marker) {
        return ProcessHandle.allProcesses()
                .filter(p -> {
                    try {
                        byte[] cmd = Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "cmdline"));
                        return new String(cmd, StandardCharsets.UTF_8).contains(marker);
                    } catch (IOException | RuntimeException e) {
                        return false;
                    }
                })
                .map(ProcessHandle::pid)
                .toList();
    }

    private static void copyTree(Path from, Path to) {
        try {
            Files.walkFileTree(from, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                    Files.createDirectories(to.resolve(from.relativize(dir).toString()));
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    if (attrs.isRegularFile()) {
                        Files.copy(
                                file,
                                to.resolve(from.relativize(file).toString()),
                                StandardCopyOption.REPLACE_EXISTING);
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
