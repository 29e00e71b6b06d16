package dev.skillgate.testkit;

import dev.skillgate.runner.NodeRuntime;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Finds the Node binary for tests and pins it — never through a {@code PATH} lookup.
 *
 * <p>The binary is the system property {@value #PROPERTY} when set (an absolute path), else the first
 * of {@code /usr/bin/node} and {@code /usr/local/bin/node} that exists. Its version is asked once,
 * with an empty environment, and pinned. For tests only: a production host pins a known version and
 * ideally the binary's digest.
 */
public final class TestNode {
    /** The system property naming the Node binary for tests. */
    public static final String PROPERTY = "skillgate.test.node";

    private static final List<String> CANDIDATES = List.of("/usr/bin/node", "/usr/local/bin/node");

    private TestNode() {}

    /** The binary, when one is configured or found. */
    public static Optional<Path> binary() {
        String configured = System.getProperty(PROPERTY);
        if (configured != null && !configured.isEmpty()) {
            Path p = Path.of(configured);
            return p.isAbsolute() && Files.isRegularFile(p) ? Optional.of(p) : Optional.empty();
        }
        return CANDIDATES.stream().map(Path::of).filter(Files::isRegularFile).findFirst();
    }

    /** Whether a usable Node binary is available (for {@code assumeTrue}). */
    public static boolean available() {
        return binary().flatMap(TestNode::version).isPresent();
    }

    /** The binary pinned at the version it reports; {@link IllegalStateException} when there is none. */
    public static NodeRuntime runtime() {
        Path node = binary().orElseThrow(() ->
                new IllegalStateException("no Node binary: set -D" + PROPERTY + "=/absolute/path/to/node"));
        String v =
                version(node).orElseThrow(() -> new IllegalStateException("the Node binary did not answer --version"));
        return NodeRuntime.pinned(node, v);
    }

    /** What {@code node --version} prints, asked with an empty environment. */
    public static Optional<String> version(Path node) {
        ProcessBuilder pb = new ProcessBuilder(node.toString(), "--version");
        pb.environment().clear();
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        try {
            Process p = pb.start();
            p.getOutputStream().close();
            byte[] out;
            try (InputStream in = p.getInputStream()) {
                out = in.readNBytes(64);
            }
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.empty();
            }
            String v = new String(out, StandardCharsets.UTF_8).strip();
            return p.exitValue() == 0 && !v.isEmpty() ? Optional.of(v) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
