package dev.skillgate.inspect.internal;

import dev.skillgate.inspect.FileContent;
import dev.skillgate.inspect.FileIdentity;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.shared.Text;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The one implementation of bounded, link-refusing reads of bundle files. The public {@code
 * BoundedReader}, the validator and discovery all read through it.
 *
 * <p>A reader is anchored at a directory the host chose (its ancestors are the host's business) and
 * names the skill root as raw segments below the anchor. Every operation re-opens the anchor,
 * checks it is still the same directory, walks to the skill root and then to the file one segment
 * at a time without following links, checking each opened directory's identity against the look
 * that preceded it, and checks the skill root is still the directory recorded at creation.
 * Operations are synchronized; the byte budget is shared by all reads of one reader.
 */
public final class ReaderCore {
    private final Path anchor;
    private final List<String> rootSegments;
    private final Path root;
    private final long totalBudget;
    private long remaining;
    private final FileIdentity anchorIdentity;
    private final FileIdentity rootIdentity;
    private final Diagnostic rootProblem;

    private ReaderCore(
            Path anchor,
            List<String> rootSegments,
            long totalBudget,
            FileIdentity anchorIdentity,
            FileIdentity rootIdentity,
            Diagnostic rootProblem) {
        this.anchor = anchor;
        this.rootSegments = List.copyOf(rootSegments);
        Path r = anchor;
        for (String s : rootSegments) {
            r = r.resolve(s);
        }
        this.root = r;
        this.totalBudget = totalBudget;
        this.remaining = totalBudget;
        this.anchorIdentity = anchorIdentity;
        this.rootIdentity = rootIdentity;
        this.rootProblem = rootProblem;
    }

    /**
     * A reader for the skill root {@code anchor/rootSegments…}, with a total byte budget. Problems
     * with the root (missing, a link, not a directory) are kept and returned by every operation.
     */
    public static ReaderCore open(Path anchor, List<String> rootSegments, long totalBudget) {
        if (totalBudget < 0) {
            throw new IllegalArgumentException("total byte budget must not be negative");
        }
        Path absolute = anchor.toAbsolutePath().normalize();
        FileIdentity anchorId = null;
        FileIdentity rootId = null;
        Diagnostic problem = null;
        try {
            BasicFileAttributes a = lstatRoot(absolute);
            anchorId = identity(a);
            List<Dir> opened = new ArrayList<>();
            try {
                Dir dir = openAnchor(absolute);
                opened.add(dir);
                checkSame(anchorId, dir, "");
                rootId = identity(walk(dir, rootSegments, "", opened).self());
            } finally {
                new Opened(null, opened).close();
            }
        } catch (Refusal r) {
            problem = r.diagnostic();
        } catch (IOException e) {
            problem = ioProblem("", e);
        }
        return new ReaderCore(absolute, rootSegments, totalBudget, anchorId, rootId, problem);
    }

    /** The skill root as a path (anchor plus segments), absolute and normalised. */
    public Path root() {
        return root;
    }

    /** The root's identity when this reader was created, or the problem that prevented looking. */
    public synchronized Optional<FileIdentity> rootIdentity() {
        return Optional.ofNullable(rootIdentity);
    }

    /** Why the root cannot be read, if it cannot. */
    public Optional<Diagnostic> rootProblem() {
        return Optional.ofNullable(rootProblem);
    }

    public long totalBudget() {
        return totalBudget;
    }

    public synchronized long remaining() {
        return remaining;
    }

    /** The root's identity as it is now; {@code SOURCE_CHANGED} if it is no longer the same directory. */
    public synchronized FileIdentity currentRootIdentity() throws Refusal {
        try (Opened opened = openRoot()) {
            return identity(opened.root().self());
        } catch (IOException e) {
            throw new Refusal(ioProblem("", e));
        }
    }

    /**
     * Attributes of the entry at {@code path}, not following a link, or empty when nothing is there.
     * Intermediate segments must be real directories.
     */
    public synchronized Optional<BasicFileAttributes> lstat(PortablePath path) throws Refusal {
        try (Opened opened = openRoot()) {
            Dir parent = walk(opened.root(), parentSegments(path), "", opened.extra());
            try {
                return Optional.of(parent.stat(path.fileName()));
            } catch (NoSuchFileException e) {
                return Optional.empty();
            }
        } catch (IOException e) {
            throw new Refusal(ioProblem(path.value(), e));
        }
    }

    /** The current identity of the regular file at {@code path}. */
    public synchronized FileIdentity identify(PortablePath path) throws Refusal {
        try (Opened opened = openRoot()) {
            Dir parent = walk(opened.root(), parentSegments(path), "", opened.extra());
            BasicFileAttributes a = statRegular(parent, path.fileName(), path.value());
            return identity(a);
        } catch (IOException e) {
            throw new Refusal(ioProblem(path.value(), e));
        }
    }

    /**
     * Reads the regular file at {@code path}: at most {@code maxBytes}, and at most what is left of
     * the total budget; never more than one byte past the smaller bound is read.
     */
    public synchronized FileContent read(PortablePath path, int maxBytes, boolean text) throws Refusal {
        if (maxBytes < 0 || maxBytes == Integer.MAX_VALUE) {
            throw new IllegalArgumentException("per-file byte limit out of range");
        }
        String location = path.value();
        try (Opened opened = openRoot()) {
            Dir parent = walk(opened.root(), parentSegments(path), "", opened.extra());
            String name = path.fileName();
            BasicFileAttributes before = statRegular(parent, name, location);
            if (before.size() > maxBytes) {
                throw new Refusal(
                        ErrorCode.READ_TOO_LARGE,
                        location,
                        "'" + Text.excerpt(location) + "' is " + before.size() + " bytes; the limit is " + maxBytes);
            }
            if (before.size() > remaining) {
                throw totalLimit(location);
            }
            int cap = (int) Math.min(maxBytes, remaining);
            byte[] bytes;
            try (SeekableByteChannel channel = parent.openFile(name)) {
                bytes = readBounded(channel, before.size(), cap);
            } catch (IOException e) {
                if (isLoop(e)) {
                    throw new Refusal(ErrorCode.READ_LINK, location, "'" + Text.excerpt(location) + "' became a link");
                }
                throw e;
            }
            if (bytes.length > maxBytes) {
                throw new Refusal(
                        ErrorCode.READ_TOO_LARGE,
                        location,
                        "'" + Text.excerpt(location) + "' grew past the limit of " + maxBytes + " bytes");
            }
            if (bytes.length > remaining) {
                throw totalLimit(location);
            }
            BasicFileAttributes after;
            try {
                after = parent.stat(name);
            } catch (NoSuchFileException e) {
                throw changed(location);
            }
            FileIdentity id = identity(before);
            if (!id.equals(identity(after)) || bytes.length != before.size()) {
                throw changed(location);
            }
            remaining -= bytes.length;
            Optional<String> decoded = Optional.empty();
            if (text) {
                int bad = Utf8.firstInvalid(bytes, 0, bytes.length);
                if (bad >= 0) {
                    throw new Refusal(
                            ErrorCode.READ_INVALID_UTF8,
                            location,
                            "'" + Text.excerpt(location) + "' is not valid UTF-8 (byte offset " + bad + ")");
                }
                decoded = Optional.of(new String(bytes, StandardCharsets.UTF_8));
            }
            return new FileContent(path, bytes, id, decoded);
        } catch (IOException e) {
            throw new Refusal(ioProblem(location, e));
        }
    }

    /** One file a {@link #readBatch} should read: at most {@code maxBytes}, strict UTF-8 if {@code text}. */
    public record BatchRequest(PortablePath path, int maxBytes, boolean text) {}

    /** What one {@link BatchRequest} gave: the bytes and identity, or why not. */
    public sealed interface BatchResult permits BatchRead, BatchRefused {}

    /**
     * The file's bytes, in an array of exactly the file's size (the caller owns it; it is not
     * copied), and its identity before and after the read, which were equal.
     */
    public record BatchRead(byte[] bytes, FileIdentity identity) implements BatchResult {}

    /** The file was not read; {@code diagnostic} says why ({@code READ_NOT_FOUND} when absent). */
    public record BatchRefused(Diagnostic diagnostic) implements BatchResult {}

    /**
     * Reads several files under one opening of the root: each directory on the way is opened once
     * per batch, each file is typed and sized by {@code fstatat} before it is opened, read into one
     * exactly-sized array, probed for one byte past its end, and looked at again. Per-file refusals
     * are results; a change of the root or of any file while it was read ({@code SOURCE_CHANGED}) and
     * root problems are thrown, because they spoil the whole batch.
     */
    public synchronized List<BatchResult> readBatch(List<BatchRequest> requests) throws Refusal {
        return readBatch(requests, (index, result) -> {});
    }

    /** Told of each result of a {@link #readBatch} as soon as it is known, in request order. */
    @FunctionalInterface
    public interface BatchListener {
        /**
         * Result {@code index} of the batch. A {@link BatchRead}'s array is the same one the batch
         * returns; the listener must not change it. Runs on the reading thread, under the reader's
         * lock: it must be quick.
         */
        void onResult(int index, BatchResult result);
    }

    /**
     * {@link #readBatch(List)}, telling {@code listener} of each result as soon as it is known, so
     * that the caller can start on a file's bytes while the next file is read. Results given to the
     * listener before a thrown {@code SOURCE_CHANGED} are not returned: the caller owns (and should
     * clear) their arrays.
     */
    public synchronized List<BatchResult> readBatch(List<BatchRequest> requests, BatchListener listener)
            throws Refusal {
        List<BatchResult> results = new ArrayList<>(requests.size());
        try (Opened opened = openRoot()) {
            Map<String, Dir> dirs = new HashMap<>();
            ByteBuffer probe = ByteBuffer.allocate(1);
            for (BatchRequest request : requests) {
                BatchResult result;
                try {
                    Dir parent = cachedParent(opened, dirs, request.path());
                    result = readExact(parent, request, probe);
                } catch (Refusal r) {
                    if (r.diagnostic().code() == ErrorCode.SOURCE_CHANGED) {
                        throw r;
                    }
                    result = new BatchRefused(r.diagnostic());
                } catch (AccessDeniedException e) {
                    // A file this user may not read is that file's problem, reported at its path, not
                    // the root's. Every other fault (an interrupt, EIO) still fails the whole batch.
                    result = new BatchRefused(ioProblem(request.path().value(), e));
                }
                results.add(result);
                listener.onResult(results.size() - 1, result);
            }
        } catch (IOException e) {
            throw new Refusal(ioProblem("", e));
        }
        return results;
    }

    /**
     * Re-checks, under a fresh opening of the root, that every file in {@code captured} still has
     * the identity it was read with (key, size, modification time) and still holds exactly the
     * captured bytes (re-read through {@code window} and compared; nothing is
     * allocated per file), and that every path in {@code absent} is still absent. Throws {@code
     * SOURCE_CHANGED} at the first difference, and also when the root or a directory on the way has
     * gone or changed.
     */
    public synchronized void verifyBatch(
            Map<PortablePath, BatchRead> captured, List<PortablePath> absent, ByteBuffer window) throws Refusal {
        try (Opened opened = openRoot()) {
            Map<String, Dir> dirs = new HashMap<>();
            for (Map.Entry<PortablePath, BatchRead> entry : captured.entrySet()) {
                verifyCaptured(opened, dirs, entry.getKey(), entry.getValue(), window);
            }
            for (PortablePath path : absent) {
                verifyAbsent(opened, dirs, path);
            }
        } catch (Refusal r) {
            throw r.diagnostic().code() == ErrorCode.SOURCE_CHANGED ? r : changed("");
        } catch (IOException e) {
            throw changed("");
        }
    }

    /**
     * The same verification pass as {@link #verifyBatch}, shared out to the threads that {@link
     * SharedVerification#help help} with it (decision 0820). Create it only after the last read of
     * the capture has returned: every check it makes then starts after every read, which is what
     * makes a clean pass prove one moment at which every file held its captured bytes.
     */
    public SharedVerification shareVerification(Map<PortablePath, BatchRead> captured, List<PortablePath> absent) {
        return new SharedVerification(this, captured, absent);
    }

    /**
     * A verification pass (the checks of {@link #verifyBatch}, file by file) that several threads can
     * run together: each {@link #help} claims the next unchecked file or absent path until none is
     * left, under its own fresh opening of the root (so every thread re-checks the anchor's and the
     * root's identity and walks its own directory descriptors, no links followed). The first
     * difference stops every helper. {@link #finish}, called once every helper has returned, throws
     * that difference, or {@code SOURCE_CHANGED} unless every entry was checked and found equal: a
     * pass that was stopped, or that lost a helper, fails closed.
     *
     * <p>Not guaranteed: any particular split of the files between threads; one thread may do all.
     */
    public static final class SharedVerification {
        private final ReaderCore reader;
        private final PortablePath[] paths;
        private final BatchRead[] reads;
        private final int total;
        private final AtomicInteger next = new AtomicInteger();
        private final AtomicInteger checked = new AtomicInteger();
        private final AtomicReference<Refusal> failure = new AtomicReference<>();
        private volatile boolean stopped;
        private final Thread creator = Thread.currentThread();

        /** Entries checked by a thread other than the pass's creator, in this JVM; a diagnostic. */
        private static final LongAdder CHECKED_BY_HELPERS = new LongAdder();

        private SharedVerification(
                ReaderCore reader, Map<PortablePath, BatchRead> captured, List<PortablePath> absent) {
            this.reader = reader;
            this.total = captured.size() + absent.size();
            this.paths = new PortablePath[total];
            this.reads = new BatchRead[captured.size()];
            int i = 0;
            for (Map.Entry<PortablePath, BatchRead> entry : captured.entrySet()) {
                paths[i] = entry.getKey();
                reads[i] = entry.getValue();
                i++;
            }
            for (PortablePath path : absent) {
                paths[i++] = path;
            }
        }

        /**
         * Checks entries until none is left, the pass was {@link #stop stopped}, or a difference was
         * found (then recorded and every helper stops). Never throws; {@code windows} gives the
         * (direct) buffer this thread re-reads through, asked for once and only if this thread claims
         * an entry. Only reads the captured arrays.
         */
        public void help(Supplier<ByteBuffer> windows) {
            help(windows, window -> {});
        }

        /**
         * {@link #help(Supplier)}, handing the window back to {@code done} once this thread no
         * longer uses it (decision 0876: {@link VerifyWindows} keeps it for the next pass).
         */
        public void help(Supplier<ByteBuffer> windows, Consumer<ByteBuffer> done) {
            Opened opened = null;
            ByteBuffer window = null;
            Map<String, Dir> dirs = new HashMap<>();
            try {
                while (!stopped) {
                    int i = next.getAndIncrement();
                    if (i >= total) {
                        break;
                    }
                    if (opened == null) {
                        window = windows.get(); // only once this thread has claimed an entry
                        opened = reader.openRoot();
                    }
                    if (i < reads.length) {
                        verifyCaptured(opened, dirs, paths[i], reads[i], window);
                    } else {
                        verifyAbsent(opened, dirs, paths[i]);
                    }
                    checked.incrementAndGet();
                    if (Thread.currentThread() != creator) {
                        CHECKED_BY_HELPERS.increment();
                    }
                }
            } catch (Refusal r) {
                fail(r.diagnostic().code() == ErrorCode.SOURCE_CHANGED ? r : changed(""));
            } catch (IOException | RuntimeException e) {
                fail(changed(""));
            } finally {
                if (opened != null) {
                    try {
                        opened.close();
                    } catch (IOException e) {
                        fail(changed(""));
                    }
                }
                if (window != null) {
                    done.accept(window);
                }
            }
        }

        /**
         * How many entries, in this JVM so far, were checked by a thread other than the one that
         * created their pass (a capture's hash worker); for tests and benchmarks.
         */
        public static long checkedByHelpers() {
            return CHECKED_BY_HELPERS.sum();
        }

        /** Stops every helper before its next entry; the pass then fails in {@link #finish}. */
        public void stop() {
            stopped = true;
        }

        /** Whether a helper has found a difference (or failed) so far. */
        public boolean failed() {
            return failure.get() != null;
        }

        /**
         * Once every helper has returned: normal return only when every entry was checked and found
         * as captured; otherwise the first difference, or {@code SOURCE_CHANGED} at the root.
         */
        public void finish() throws Refusal {
            Refusal first = failure.get();
            if (first != null) {
                throw first;
            }
            if (stopped || checked.get() != total) {
                throw changed("");
            }
        }

        private void fail(Refusal r) {
            failure.compareAndSet(null, r);
            stopped = true;
        }
    }

    /** One captured file of a verification pass: identity, every byte, one probe past the end, identity. */
    private static void verifyCaptured(
            Opened opened, Map<String, Dir> dirs, PortablePath path, BatchRead read, ByteBuffer window) throws Refusal {
        try {
            Dir parent = cachedParent(opened, dirs, path);
            String location = path.value();
            Dir.Name name = entryName(path.fileName(), location); // checked once, used three times
            BasicFileAttributes a = statRegular(parent, name, location);
            if (!identity(a).equals(read.identity())) {
                throw changed(location);
            }
            try (SeekableByteChannel channel = parent.openFile(name)) {
                if (!sameContent(channel, read.bytes(), window)) {
                    throw changed(location);
                }
            }
            // The first look equals the captured identity, so a second look equal to the first
            // (compared field by field, at least as strictly as identity().equals) equals it too.
            if (!sameLook(a, parent.stat(name))) {
                throw changed(location);
            }
        } catch (Refusal r) {
            throw r.diagnostic().code() == ErrorCode.SOURCE_CHANGED ? r : changed(path.value());
        } catch (IOException e) {
            throw changed(path.value());
        }
    }

    /** One path of a verification pass that was absent at capture and must still be. */
    private static void verifyAbsent(Opened opened, Map<String, Dir> dirs, PortablePath path) throws Refusal {
        try {
            Dir parent = cachedParent(opened, dirs, path);
            parent.stat(path.fileName());
            throw changed(path.value());
        } catch (NoSuchFileException e) {
            // still absent, as when it was looked for
        } catch (Refusal r) {
            if (r.diagnostic().code() != ErrorCode.READ_NOT_FOUND) {
                throw changed(path.value());
            }
        } catch (IOException e) {
            throw changed(path.value());
        }
    }

    private static Dir cachedParent(Opened opened, Map<String, Dir> dirs, PortablePath path)
            throws Refusal, IOException {
        String value = path.value();
        int slash = value.lastIndexOf('/');
        if (slash < 0) {
            return opened.root();
        }
        // The directory was opened (and its identity checked) for an earlier file of this batch:
        // the same descriptor, found without splitting the path again.
        Dir known = dirs.get(value.substring(0, slash));
        if (known != null) {
            return known;
        }
        Dir dir = opened.root();
        List<String> segments = parentSegments(path);
        StringBuilder key = new StringBuilder();
        for (String segment : segments) {
            String prefix = key.toString();
            if (key.length() > 0) {
                key.append('/');
            }
            key.append(segment);
            Dir cached = dirs.get(key.toString());
            if (cached == null) {
                cached = walk(dir, List.of(segment), prefix, opened.extra());
                dirs.put(key.toString(), cached);
            }
            dir = cached;
        }
        return dir;
    }

    private BatchRead readExact(Dir parent, BatchRequest request, ByteBuffer probe) throws Refusal, IOException {
        PortablePath path = request.path();
        String location = path.value();
        Dir.Name name = entryName(path.fileName(), location); // checked once, used three times
        BasicFileAttributes before = statRegular(parent, name, location);
        if (before.size() > request.maxBytes()) {
            throw new Refusal(
                    ErrorCode.READ_TOO_LARGE,
                    location,
                    "'" + Text.excerpt(location) + "' is " + before.size() + " bytes; the limit is "
                            + request.maxBytes());
        }
        if (before.size() > remaining) {
            throw totalLimit(location);
        }
        byte[] bytes = new byte[(int) before.size()];
        try (SeekableByteChannel channel = parent.openFile(name)) {
            ByteBuffer target = ByteBuffer.wrap(bytes);
            while (target.hasRemaining()) {
                if (channel.read(target) < 0) {
                    throw changed(location);
                }
            }
            probe.clear();
            if (channel.read(probe) > 0) {
                throw changed(location);
            }
        } catch (IOException e) {
            if (isLoop(e)) {
                throw new Refusal(ErrorCode.READ_LINK, location, "'" + Text.excerpt(location) + "' became a link");
            }
            throw e;
        }
        BasicFileAttributes after;
        try {
            after = parent.stat(name);
        } catch (NoSuchFileException e) {
            throw changed(location);
        }
        if (!sameLook(before, after)) {
            throw changed(location);
        }
        FileIdentity id = identity(before);
        if (request.text()) {
            int bad = Utf8.firstInvalid(bytes, 0, bytes.length);
            if (bad >= 0) {
                throw new Refusal(
                        ErrorCode.READ_INVALID_UTF8,
                        location,
                        "'" + Text.excerpt(location) + "' is not valid UTF-8 (byte offset " + bad + ")");
            }
        }
        remaining -= bytes.length;
        return new BatchRead(bytes, id);
    }

    /**
     * Whether {@code channel} holds exactly {@code expected}, read through {@code window}. A direct
     * window saves the JDK's copy from its own direct buffer into a heap array; the comparison is
     * {@link ByteBuffer#mismatch}, which is vectorised.
     */
    private static boolean sameContent(SeekableByteChannel channel, byte[] expected, ByteBuffer window)
            throws IOException {
        int offset = 0;
        while (true) {
            window.clear();
            if (expected.length - offset < window.capacity()) {
                // One byte more than what is left, to see a file that grew.
                window.limit(Math.min(window.capacity(), expected.length - offset + 1));
            }
            int n = channel.read(window);
            if (n < 0) {
                return offset == expected.length;
            }
            if (offset + n > expected.length) {
                return false;
            }
            window.flip();
            if (ByteBuffer.wrap(expected, offset, n).mismatch(window) >= 0) {
                return false;
            }
            offset += n;
        }
    }

    /**
     * Reads at most {@code cap + 1} bytes from {@code channel}: enough to tell "fits" from "too
     * large" without ever reading further.
     */
    public static byte[] readBounded(ReadableByteChannel channel, long expectedSize, int cap) throws IOException {
        long limit = (long) cap + 1;
        int initial = (int) Math.max(1, Math.min(limit, Math.max(0, expectedSize) + 1));
        ByteBuffer buffer = ByteBuffer.allocate(initial);
        while (true) {
            if (!buffer.hasRemaining()) {
                if (buffer.capacity() >= limit) {
                    break;
                }
                int grown = (int) Math.min(limit, Math.max(8192L, (long) buffer.capacity() * 2));
                ByteBuffer bigger = ByteBuffer.allocate(grown);
                buffer.flip();
                bigger.put(buffer);
                buffer = bigger;
            }
            int n = channel.read(buffer);
            if (n < 0) {
                break;
            }
        }
        return Arrays.copyOf(buffer.array(), buffer.position());
    }

    private record Opened(Dir root, List<Dir> extra) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            IOException first = null;
            for (int i = extra.size() - 1; i >= 0; i--) {
                try {
                    extra.get(i).close();
                } catch (IOException e) {
                    first = first == null ? e : first;
                }
            }
            if (first != null) {
                throw first;
            }
        }
    }

    /** Opens the anchor, walks to the skill root and checks both are the directories recorded. */
    private Opened openRoot() throws Refusal, IOException {
        if (rootProblem != null) {
            throw new Refusal(rootProblem);
        }
        List<Dir> opened = new ArrayList<>();
        boolean ok = false;
        try {
            BasicFileAttributes a = lstatRoot(anchor);
            if (!identity(a).sameFileAs(anchorIdentity)
                    && !anchorIdentity.fileKey().equals("none")) {
                throw changed("");
            }
            Dir dir = openAnchor(anchor);
            opened.add(dir);
            checkSame(anchorIdentity, dir, "");
            Dir skillRoot = walk(dir, rootSegments, "", opened);
            FileIdentity now = identity(skillRoot.self());
            if (!now.sameFileAs(rootIdentity) && !rootIdentity.fileKey().equals("none")) {
                throw changed("");
            }
            ok = true;
            return new Opened(skillRoot, opened);
        } finally {
            if (!ok) {
                new Opened(null, opened).close();
            }
        }
    }

    /**
     * Opens the anchor directory that {@link #lstatRoot} just looked at. If it went away or was
     * replaced in between, that is reported like the look would have reported it, not as an I/O
     * fault.
     */
    private static Dir openAnchor(Path path) throws Refusal, IOException {
        try {
            return Dir.open(path);
        } catch (NoSuchFileException e) {
            throw new Refusal(ErrorCode.READ_NOT_FOUND, "", "the skill root does not exist");
        } catch (NotDirectoryException e) {
            throw new Refusal(ErrorCode.READ_NOT_REGULAR, "", "the skill root is not a directory");
        } catch (IOException e) {
            if (isLoop(e)) {
                throw new Refusal(ErrorCode.READ_LINK, "", "the skill root became a symbolic link");
            }
            throw e;
        }
    }

    private static BasicFileAttributes lstatRoot(Path path) throws Refusal, IOException {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw new Refusal(ErrorCode.READ_NOT_FOUND, "", "the skill root does not exist");
        }
        if (a.isSymbolicLink()) {
            throw new Refusal(ErrorCode.READ_LINK, "", "the skill root is a symbolic link; links are never followed");
        }
        if (!a.isDirectory()) {
            throw new Refusal(ErrorCode.READ_NOT_REGULAR, "", "the skill root is not a directory");
        }
        return a;
    }

    /** Walks {@code segments} below {@code start}, adding every opened directory to {@code opened}. */
    private static Dir walk(Dir start, List<String> segments, String prefix, List<Dir> opened)
            throws Refusal, IOException {
        Dir dir = start;
        StringBuilder location = new StringBuilder(prefix);
        for (String segment : segments) {
            if (location.length() > 0) {
                location.append('/');
            }
            location.append(segment);
            String where = location.toString();
            BasicFileAttributes a;
            try {
                a = dir.stat(segment);
            } catch (NoSuchFileException e) {
                throw new Refusal(ErrorCode.READ_NOT_FOUND, where, "'" + Text.excerpt(where) + "' does not exist");
            }
            if (a.isSymbolicLink()) {
                throw new Refusal(
                        ErrorCode.READ_LINK,
                        where,
                        "'" + Text.excerpt(where) + "' is a symbolic link; links are never followed");
            }
            if (!a.isDirectory()) {
                throw new Refusal(
                        ErrorCode.READ_NOT_REGULAR, where, "'" + Text.excerpt(where) + "' is not a directory");
            }
            Dir child;
            try {
                child = dir.openDir(segment);
            } catch (IOException e) {
                if (isLoop(e)) {
                    throw new Refusal(ErrorCode.READ_LINK, where, "'" + Text.excerpt(where) + "' became a link");
                }
                if (e instanceof NoSuchFileException || e instanceof NotDirectoryException) {
                    throw changed(where);
                }
                throw e;
            }
            opened.add(child);
            checkSame(identity(a), child, where);
            dir = child;
        }
        return dir;
    }

    private static void checkSame(FileIdentity looked, Dir opened, String location) throws Refusal, IOException {
        FileIdentity now = identity(opened.self());
        if (!looked.fileKey().equals("none") && !looked.sameFileAs(now)) {
            throw changed(location);
        }
    }

    private static BasicFileAttributes statRegular(Dir parent, String name, String location)
            throws Refusal, IOException {
        return statRegular(parent, entryName(name, location), location);
    }

    /**
     * A checked entry name; a name that cannot be one (which {@link Dir#stat(String)} reports as
     * absent) is {@code READ_NOT_FOUND}, as that look would have reported it.
     */
    private static Dir.Name entryName(String name, String location) throws Refusal {
        try {
            return Dir.Name.of(name);
        } catch (NoSuchFileException e) {
            throw new Refusal(ErrorCode.READ_NOT_FOUND, location, "'" + Text.excerpt(location) + "' does not exist");
        }
    }

    /**
     * Whether two looks at one name saw the same file: equal file keys ({@code equals} of the keys
     * themselves, device and inode on Linux), sizes and modification times. At least as strict as
     * comparing their {@link #identity identities} (equal keys have equal texts), without building
     * the key texts and instants for every look (decision 0843).
     */
    static boolean sameLook(BasicFileAttributes a, BasicFileAttributes b) {
        return a.size() == b.size()
                && Objects.equals(a.fileKey(), b.fileKey())
                && a.lastModifiedTime().equals(b.lastModifiedTime());
    }

    private static BasicFileAttributes statRegular(Dir parent, Dir.Name name, String location)
            throws Refusal, IOException {
        BasicFileAttributes a;
        try {
            a = parent.stat(name);
        } catch (NoSuchFileException e) {
            throw new Refusal(ErrorCode.READ_NOT_FOUND, location, "'" + Text.excerpt(location) + "' does not exist");
        }
        if (a.isSymbolicLink()) {
            throw new Refusal(
                    ErrorCode.READ_LINK,
                    location,
                    "'" + Text.excerpt(location) + "' is a symbolic link; links are never followed");
        }
        if (!a.isRegularFile()) {
            String kind = a.isDirectory() ? "a directory" : "a FIFO, socket or device";
            throw new Refusal(
                    ErrorCode.READ_NOT_REGULAR,
                    location,
                    "'" + Text.excerpt(location) + "' is " + kind + ", not a regular file; it was not opened");
        }
        return a;
    }

    private static List<String> parentSegments(PortablePath path) {
        List<String> segments = path.segments();
        return segments.subList(0, segments.size() - 1);
    }

    /** The identity of a file from its attributes. */
    public static FileIdentity identity(BasicFileAttributes a) {
        Object key = a.fileKey();
        String text = key == null ? "none" : key.toString();
        return new FileIdentity(
                text.isEmpty() ? "none" : text,
                Math.max(0, a.size()),
                a.lastModifiedTime().toInstant());
    }

    /**
     * Whether an open failed because the entry is (now) a link: {@code O_NOFOLLOW} gives {@code
     * ELOOP}, which the JDK reports as a {@link FileSystemException} from path-based opens and as a
     * plain {@link IOException} from {@code SecureDirectoryStream} opens.
     */
    private static boolean isLoop(IOException e) {
        String reason = e instanceof FileSystemException fse ? fse.getReason() : e.getMessage();
        return reason != null && (reason.contains("symbolic link") || reason.contains("NOFOLLOW"));
    }

    private static Refusal changed(String location) {
        return new Refusal(
                ErrorCode.SOURCE_CHANGED,
                location,
                (location.isEmpty() ? "the skill root" : "'" + Text.excerpt(location) + "'")
                        + " changed while it was being read");
    }

    private static Refusal totalLimit(String location) {
        return new Refusal(
                ErrorCode.READ_TOTAL_LIMIT,
                location,
                "reading '" + Text.excerpt(location) + "' would exceed the total byte budget");
    }

    static Diagnostic ioProblem(String location, IOException e) {
        String reason = e instanceof FileSystemException fse && fse.getReason() != null
                ? fse.getReason()
                : e.getClass().getSimpleName();
        return Diagnostic.error(
                ErrorCode.READ_IO,
                location,
                (location.isEmpty() ? "the skill root" : "'" + Text.excerpt(location) + "'") + " could not be read: "
                        + Text.excerpt(reason));
    }
}
