package dev.skillgate.benchmarks;

import dev.skillgate.benchmarks.corpus.Bundles;
import dev.skillgate.fixtures.TestNodeBinary;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The host facts the process harnesses share: the {@code node} the README names (the
 * {@code skillgate.test.node} property, else {@code PATH}; found once, then pinned by its real path),
 * its exact version for pinning, and removal of harness trees that contain the
 * runner's read-only staging directories.
 */
public final class NodeHost {
    /** The Node binary every harness pins and the bare baseline starts. */
    public static final Path NODE = TestNodeBinary.require();

    private NodeHost() {}

    /** {@code node --version} as printed (e.g. {@code v20.20.2}), run with an empty environment. */
    public static String version() throws IOException {
        ProcessBuilder pb = new ProcessBuilder(NODE.toString(), "--version");
        pb.environment().clear();
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        p.getOutputStream().close();
        String v = new String(p.getInputStream().readNBytes(64), StandardCharsets.UTF_8).strip();
        try {
            if (p.waitFor() != 0 || v.isEmpty()) {
                throw new IOException("node --version failed");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        return v;
    }

    /**
     * Deletes a harness tree: read-only directories (staged bundles are 0500) are made writable by
     * their owner first; links are deleted, never followed.
     */
    public static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        List<Path> dirs;
        try (Stream<Path> walk = Files.walk(root)) {
            dirs = walk.filter(p -> Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS))
                    .toList();
        }
        for (Path d : dirs) {
            d.toFile().setWritable(true, true);
            d.toFile().setExecutable(true, true);
        }
        Bundles.deleteTree(root);
    }
}
