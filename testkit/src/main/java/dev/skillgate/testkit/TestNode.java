package dev.skillgate.testkit;

import dev.skillgate.fixtures.TestNodeBinary;
import dev.skillgate.runner.NodeRuntime;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apiguardian.api.API;

/**
 * Finds the Node binary for tests, the way the README says, and pins it.
 *
 * <p>The binary is the system property {@value #PROPERTY} when set (an absolute path), else the first
 * executable {@code node} in a {@code PATH} directory (what {@code command -v node} finds), taken by
 * its real path; a property that names no usable binary is never replaced by the {@code PATH} one.
 * The lookup happens once, at test set-up; from then on the absolute path is pinned, exactly as a
 * host pins it. Its version is asked once, with an empty environment. For tests only: a production
 * host pins a known binary and version, and ideally the binary's digest. See {@link TestNodeBinary}.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class TestNode {
    /** The system property naming the Node binary for tests. */
    public static final String PROPERTY = TestNodeBinary.PROPERTY;

    private TestNode() {}

    /** The binary, when one is configured or found. */
    public static Optional<Path> binary() {
        return TestNodeBinary.find();
    }

    /** Whether a usable Node binary is available (for {@code assumeTrue}). */
    public static boolean available() {
        return binary().flatMap(TestNode::version).isPresent();
    }

    /** The binary pinned at the version it reports; {@link IllegalStateException} when there is none. */
    public static NodeRuntime runtime() {
        Path node = TestNodeBinary.require();
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
