package dev.skillgate.cli;

import dev.skillgate.fixtures.TestNodeBinary;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs a shell command line the way a user types it — {@code bash -c}, a chosen working directory
 * and {@code PATH} — and keeps its exit code and both streams. For the launcher tests (*IT), which
 * run the real {@code bin/skillgate} of the checkout and of the unpacked distribution.
 */
final class LauncherProcess {
    /** What one command did. */
    record Result(int exit, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + stdout + "\n--- stderr\n" + stderr;
        }
    }

    private LauncherProcess() {}

    /**
     * {@code PATH} for a user who linked the launcher into {@code bin}: that directory first, then
     * the build's own {@code PATH}, then the directory of the node the tests use (so that
     * {@code $(command -v node)} finds it even when only {@code -Dskillgate.test.node} named it).
     */
    static String pathWith(Path bin) {
        String inherited = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        return bin + ":" + inherited + ":" + TestNodeBinary.require().getParent();
    }

    /**
     * The launcher's cache directory for these tests (its class-data sharing archives, decision
     * 0803), so that no test writes into the user's own {@code ~/.cache}: one private temporary
     * directory per test JVM, removed at exit.
     */
    static final Path CACHE = privateCache();

    /**
     * Runs {@code bash -c commandLine} with the given environment changes; fails after 3 minutes.
     * {@code XDG_CACHE_HOME} is {@link #CACHE} unless {@code environment} names one.
     */
    static Result bash(String commandLine, Path workingDirectory, Map<String, String> environment) {
        List<String> argv = new ArrayList<>(List.of("bash", "-c", commandLine));
        ProcessBuilder pb = new ProcessBuilder(argv).directory(workingDirectory.toFile());
        pb.environment().remove("JAVA_HOME");
        pb.environment().remove("SKILLGATE_JAVA_OPTS");
        pb.environment().remove("SKILLGATE_CDS");
        pb.environment().put("XDG_CACHE_HOME", CACHE.toString());
        pb.environment().putAll(environment);
        try {
            Process p = pb.start();
            p.getOutputStream().close();
            CompletableFuture<String> out = drain(p.getInputStream());
            CompletableFuture<String> err = drain(p.getErrorStream());
            if (!p.waitFor(3, TimeUnit.MINUTES)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                throw new AssertionError("timed out: " + commandLine);
            }
            return new Result(p.exitValue(), out.join(), err.join());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private static CompletableFuture<String> drain(InputStream in) {
        return CompletableFuture.supplyAsync(() -> {
            try (in) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    private static Path privateCache() {
        try {
            Path dir = Files.createTempDirectory("skillgate-launcher-cache"); // 0700
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir)));
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes a directory tree, making read-only directories writable first; best effort. */
    static void deleteTree(Path dir) {
        try (var walk = Files.walk(dir)) {
            List<Path> all = new ArrayList<>(walk.toList());
            java.util.Collections.reverse(all);
            for (Path p : all) {
                if (Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    p.toFile().setWritable(true, true);
                }
                Files.deleteIfExists(p);
            }
        } catch (IOException | UncheckedIOException e) {
            // a temporary directory; the next boot clears it
        }
    }

    /** Single-quotes a word for bash. */
    static String quote(Object word) {
        return "'" + word.toString().replace("'", "'\"'\"'") + "'";
    }

    /** Whether the owner may execute the file. */
    static boolean ownerExecutable(Path file) throws IOException {
        return Files.getPosixFilePermissions(file).contains(PosixFilePermission.OWNER_EXECUTE);
    }
}
