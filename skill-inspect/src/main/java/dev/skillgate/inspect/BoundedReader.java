package dev.skillgate.inspect;

import dev.skillgate.inspect.internal.ReaderCore;
import dev.skillgate.inspect.internal.Refusal;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.PortablePath;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * The one way Skillgate reads bundle files: bounded, link-refusing, regular files only.
 *
 * <p>A reader is bound to one skill root and one total byte budget shared by all its reads. Each
 * read resolves a {@link PortablePath} relative to the skill root (never to the process working
 * directory), walks it one segment at a time without following links (a symbolic link anywhere
 * below the root, including an intermediate directory, is refused), refuses directories, FIFOs,
 * sockets and devices by their type <em>without opening them</em>, refuses a file whose size is
 * over the per-file limit or the remaining budget without reading it, and otherwise reads at most
 * one byte past the smaller bound, so a file that grows while it is read is caught without reading
 * it all. Text reads decode strict UTF-8. Every success records the file's {@link FileIdentity},
 * and the file is looked at again after reading: a different identity or size is reported as
 * {@code SOURCE_CHANGED}. The skill root's own identity is recorded when the reader is created and
 * checked on every read.
 *
 * <p>Guarantees end there. The reader does not take a snapshot: a file can change after it was
 * read (re-check with {@link #identify}). The skill root's ancestors are not checked (the host chose
 * the root). On platforms without {@code SecureDirectoryStream} an intermediate directory swapped
 * for a link between its check and the open is not caught; on Linux it is. A FIFO swapped in
 * between the type check and the open would block the reading thread (Java has no non-blocking
 * open). Reading never executes anything. Methods are thread-safe; the budget is shared.
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class BoundedReader {
    private final ReaderCore core;

    private BoundedReader(ReaderCore core) {
        this.core = core;
    }

    /**
     * A reader for the skill directory {@code skillRoot} with a total budget of {@code
     * totalByteBudget} bytes across all reads. A relative root is resolved against the working
     * directory once, now. Problems with the root itself (missing, a link, not a directory) are
     * returned by every read. A negative budget is a programming error ({@link
     * IllegalArgumentException}).
     */
    public static BoundedReader forRoot(Path skillRoot, long totalByteBudget) {
        return new BoundedReader(ReaderCore.open(skillRoot, List.of(), totalByteBudget));
    }

    /** Wraps an implementation reader (for discovery, which anchors readers at a discovery root). */
    static BoundedReader of(ReaderCore core) {
        return new BoundedReader(core);
    }

    /** The skill root, absolute and normalised. */
    public Path root() {
        return core.root();
    }

    /** The total budget this reader was created with, in bytes. */
    public long totalBudget() {
        return core.totalBudget();
    }

    /** The bytes still available to reads of this reader. */
    public long remainingBudget() {
        return core.remaining();
    }

    /**
     * Reads the file at {@code path} as bytes, at most {@code maxBytes} (0 to {@code
     * Integer.MAX_VALUE - 1}; anything else is a programming error, {@link IllegalArgumentException}).
     */
    public ReadOutcome<FileContent> readBytes(PortablePath path, int maxBytes) {
        return read(path, maxBytes, false);
    }

    /** Reads the file at {@code path} as strict UTF-8 text, at most {@code maxBytes} bytes. */
    public ReadOutcome<FileContent> readText(PortablePath path, int maxBytes) {
        return read(path, maxBytes, true);
    }

    /**
     * Reads the file at the relative path {@code relativePath} as bytes. An invalid path (absolute,
     * traversal, backslash, control characters…) is a failure with its {@code PATH_*} code.
     */
    public ReadOutcome<FileContent> readBytes(String relativePath, int maxBytes) {
        return parse(relativePath).map(p -> readBytes(p, maxBytes)).orElseGet(() -> pathFailure(relativePath));
    }

    /** Reads the file at the relative path {@code relativePath} as strict UTF-8 text. */
    public ReadOutcome<FileContent> readText(String relativePath, int maxBytes) {
        return parse(relativePath).map(p -> readText(p, maxBytes)).orElseGet(() -> pathFailure(relativePath));
    }

    /** The current identity of the regular file at {@code path}, without reading it. */
    public ReadOutcome<FileIdentity> identify(PortablePath path) {
        try {
            return ReadOutcome.success(core.identify(path));
        } catch (Refusal r) {
            return ReadOutcome.failure(r.diagnostic());
        }
    }

    /** The skill root's identity recorded when this reader was created. */
    public ReadOutcome<FileIdentity> rootIdentity() {
        Optional<FileIdentity> id = core.rootIdentity();
        if (id.isPresent()) {
            return ReadOutcome.success(id.get());
        }
        return ReadOutcome.failure(core.rootProblem().orElseThrow());
    }

    /** The skill root's identity now; {@code SOURCE_CHANGED} if it is no longer the same directory. */
    public ReadOutcome<FileIdentity> currentRootIdentity() {
        try {
            return ReadOutcome.success(core.currentRootIdentity());
        } catch (Refusal r) {
            return ReadOutcome.failure(r.diagnostic());
        }
    }

    private ReadOutcome<FileContent> read(PortablePath path, int maxBytes, boolean text) {
        try {
            return ReadOutcome.success(core.read(path, maxBytes, text));
        } catch (Refusal r) {
            return ReadOutcome.failure(r.diagnostic());
        }
    }

    private static Optional<PortablePath> parse(String relativePath) {
        return PortablePath.isValid(relativePath) ? Optional.of(PortablePath.of(relativePath)) : Optional.empty();
    }

    private static ReadOutcome<FileContent> pathFailure(String relativePath) {
        try {
            PortablePath.of(relativePath);
            throw new IllegalStateException("path unexpectedly valid");
        } catch (InvalidValueException e) {
            Diagnostic d = e.toDiagnostic("");
            return ReadOutcome.failure(d);
        }
    }

    @Override
    public String toString() {
        return "BoundedReader[" + core.root() + "]";
    }
}
