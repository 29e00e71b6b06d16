package dev.skillgate.runner;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.RuntimeIdentity;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.shared.Text;
import dev.skillgate.runner.internal.NodeFlags;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apiguardian.api.API;

/**
 * A pinned Node runtime: an absolute binary path, the exact version string it must print, and
 * optionally the SHA-256 of the binary. Never looked up on {@code PATH}.
 *
 * <p>{@link #pinned} resolves the real path once (a configured {@code /usr/bin/node} is often a
 * link); from then on only that real path is used, and it must not itself be a link. {@link #verify}
 * runs before every launch: a regular file, not writable by group or others, executable; the exact
 * version from {@code <node> --version} run with an empty environment (bounded output, 10 s
 * timeout); and, when pinned, the digest of the file's bytes read through an open channel.
 *
 * <p>The version and the digest are properties of the file's bytes, so they are established once per
 * file identity (decision 0332): after a full check that passed, this runtime remembers the file's
 * {@code (device, inode, size, mtime, ctime, mode, owner)}, read without following links, and a later
 * {@link #verify} whose {@code lstat} shows exactly that identity reuses the answer instead of hashing
 * and starting the binary again. Any write, truncation, rename over the path, {@code chmod} or {@code
 * utimensat} moves ctime, which user space cannot set back, so a changed file always gets the full
 * check. An identity is only remembered when the file had not changed for {@link #SETTLE} before the
 * check began (timestamps are coarse; the same rule as git's "racily clean" index entries), and only
 * when it did not change during the check. Where the platform offers no inode or ctime (no {@code
 * unix} attribute view), every verification is a full one. A binary the running user owns and may
 * write (owner-write bit; not root) on a file system other than ext2/3/4, xfs or btrfs (tmpfs, FUSE,
 * network, overlay) never has its identity remembered: stores through a shared mapping there change
 * its bytes without moving ctime (decision 0828), so every verification of it is a full one (a
 * pinned digest re-hashes the file each time; make the binary read-only to keep the fast path).
 *
 * <p>Not guaranteed: that the bytes hashed are the bytes later executed — a supervisor that starts
 * the binary by path (the portable one) leaves a window in which the file can be replaced; the Linux
 * supervisor executes the file descriptor it hashed. The version string is a misconfiguration check,
 * not an identity: a hostile binary can print anything, which is why the digest exists. The JDK's
 * launcher runs a file without an executable header through {@code /bin/sh}; pin the digest. Like the
 * digest, the remembered identity covers the executable file only, not the shared libraries it loads
 * (a distribution's {@code libnode.so}); it cannot detect a clock set back by root or a raw write to
 * the block device.
 */
@API(status = API.Status.STABLE, since = "0.1.0")
public final class NodeRuntime {

    /** How long {@code --version} may take. */
    public static final Duration VERSION_TIMEOUT = Duration.ofSeconds(10);

    /** Most bytes of {@code --version} output read. */
    static final int VERSION_OUTPUT_BYTES = 64;

    private static final Pattern VERSION = Pattern.compile("v?([0-9]{1,4})\\.([0-9]{1,4})\\.([0-9]{1,4}).*");

    /**
     * How long a file must have been unchanged (by its ctime) before its check began for its
     * identity to be remembered.
     */
    public static final Duration SETTLE = Duration.ofSeconds(2);

    /** This process's effective uid where {@code /proc/self} tells it (Linux); read once. */
    private static final Optional<Integer> EFFECTIVE_UID = effectiveUid();

    private final RuntimeIdentity identity;
    private final Duration settle;
    private final Optional<Integer> runningUid;
    private final AtomicReference<Remembered> remembered = new AtomicReference<>();
    private final AtomicLong fullChecks = new AtomicLong();

    private NodeRuntime(RuntimeIdentity identity, Duration settle, Optional<Integer> runningUid) {
        this.identity = identity;
        this.settle = settle;
        this.runningUid = runningUid;
    }

    /** A full check that passed, and the identity of the file it examined. */
    private record Remembered(FileStamp stamp, Verified verified) {}

    /** What identifies a file's bytes without reading them: no write, rename or chmod keeps all of it. */
    record FileStamp(long device, long inode, long size, FileTime mtime, FileTime ctime, int mode, int owner) {

        /** The stamp of {@code file} (not following a link), or empty where the platform has no such view. */
        static Optional<FileStamp> of(Path file) {
            try {
                Map<String, Object> a = Files.readAttributes(
                        file, "unix:dev,ino,size,lastModifiedTime,ctime,mode,uid", LinkOption.NOFOLLOW_LINKS);
                return Optional.of(new FileStamp(
                        (Long) a.get("dev"),
                        (Long) a.get("ino"),
                        (Long) a.get("size"),
                        (FileTime) a.get("lastModifiedTime"),
                        (FileTime) a.get("ctime"),
                        (Integer) a.get("mode"),
                        (Integer) a.get("uid")));
            } catch (IOException | RuntimeException e) {
                // No unix view (UnsupportedOperationException, IllegalArgumentException), an attribute missing
                // (NullPointerException, ClassCastException) or the file gone: nothing to remember by.
                return Optional.empty();
            }
        }
    }

    /** Pins a runtime by absolute path and exact version (as {@code node --version} prints it, e.g. {@code v20.20.2}). */
    public static NodeRuntime pinned(Path absolutePath, String expectedVersion) {
        return pin(absolutePath, expectedVersion, Optional.empty());
    }

    /** Pins a runtime by absolute path, exact version and the SHA-256 of the binary. */
    public static NodeRuntime pinned(Path absolutePath, String expectedVersion, Sha256Digest sha256) {
        return pin(absolutePath, expectedVersion, Optional.of(Objects.requireNonNull(sha256, "sha256")));
    }

    private static NodeRuntime pin(Path path, String version, Optional<Sha256Digest> digest) {
        return pin(path, version, digest, SETTLE);
    }

    /** As {@link #pinned}, with another settle time (tests use a short one to exercise the identity rule). */
    static NodeRuntime pin(Path path, String version, Optional<Sha256Digest> digest, Duration settle) {
        return pin(path, version, digest, settle, EFFECTIVE_UID);
    }

    /**
     * As {@link #pin(Path, String, Optional, Duration)}, judging "writable by the running user" for
     * {@code runningUid} instead of this process's effective uid (tests run as root, for whom the rule
     * does not apply; empty: unknown).
     */
    static NodeRuntime pin(
            Path path, String version, Optional<Sha256Digest> digest, Duration settle, Optional<Integer> runningUid) {
        Objects.requireNonNull(path, "absolutePath");
        Objects.requireNonNull(version, "expectedVersion");
        // Validates absoluteness and the version's shape (InvalidValueException with RUNTIME_* codes).
        new RuntimeIdentity(path, version, digest);
        Path real;
        try {
            real = path.toRealPath();
        } catch (IOException e) {
            // Missing now: kept as given; verify() reports RUNTIME_UNAVAILABLE and never follows a link there.
            real = path.normalize();
        }
        return new NodeRuntime(new RuntimeIdentity(real, version, digest), settle, runningUid);
    }

    /** The pinned identity; its executable is the real path resolved at pinning time. */
    public RuntimeIdentity identity() {
        return identity;
    }

    /** The real path that is verified and started. */
    public Path executable() {
        return identity.executable();
    }

    /** The outcome of {@link #verify()}. */
    public sealed interface Verification permits Verified, Refused {}

    /**
     * The runtime answered as pinned.
     *
     * @param identity the verified identity
     * @param major the major version, for the runner's flag choice
     * @param minor the minor version
     */
    public record Verified(RuntimeIdentity identity, int major, int minor) implements Verification {
        public Verified {
            Objects.requireNonNull(identity, "identity");
        }

        /** The verified version string. */
        public String version() {
            return identity.version();
        }
    }

    /**
     * The runtime must not be used.
     *
     * @param reason {@code RUNTIME_UNAVAILABLE} or {@code RUNTIME_MISMATCH}
     */
    public record Refused(Diagnostic reason) implements Verification {
        public Refused {
            Objects.requireNonNull(reason, "reason");
        }
    }

    /**
     * Verifies the runtime now: the path checks every time, the digest and the version by file
     * identity (see the class comment). Never throws for an expected outcome.
     */
    public Verification verify() {
        Instant checkStarted = Instant.now();
        Path exe = identity.executable();
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(exe, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return unavailable("the pinned Node binary does not exist");
        } catch (IOException e) {
            return unavailable(
                    "the pinned Node binary cannot be examined: " + e.getClass().getSimpleName());
        }
        if (attrs.isSymbolicLink()) {
            return unavailable("the pinned Node path is now a link; links are not followed after pinning");
        }
        if (!attrs.isRegularFile()) {
            return unavailable("the pinned Node path is not a regular file");
        }
        try {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(exe, LinkOption.NOFOLLOW_LINKS);
            if (perms.contains(PosixFilePermission.GROUP_WRITE) || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
                return unavailable("the pinned Node binary is writable by other users");
            }
        } catch (IOException | UnsupportedOperationException e) {
            // No POSIX permissions on this file system: nothing to check.
        }
        if (!Files.isExecutable(exe)) {
            return unavailable("the pinned Node binary is not executable");
        }
        // A binary the running user may rewrite is checked in full every time unless it lives on a file
        // system whose write faults stamp ctime: on tmpfs (and unknown ones) stores through a shared
        // mapping change its bytes without moving ctime (decision 0828).
        Optional<FileStamp> before =
                FileStamp.of(exe).filter(s -> !rewritableByRunningUser(s) || timesMoveOnEveryNewWriter(exe, s));
        Remembered known = remembered.get();
        if (known != null && before.isPresent() && known.stamp().equals(before.get())) {
            return known.verified();
        }
        remembered.set(null);
        Verification full = verifyContent(exe);
        if (full instanceof Verified ok
                && before.isPresent()
                && before.get().ctime().toInstant().isBefore(checkStarted.minus(settle))
                && before.equals(FileStamp.of(exe))) {
            remembered.set(new Remembered(before.get(), ok));
        }
        return full;
    }

    /**
     * Whether the running user may write the file's bytes without first changing its mode (a {@code
     * chmod} moves ctime): the owner-write bit is set and the file is theirs. Group and other write are
     * refused before this is asked (an ACL granting write shows as the group bit). Root is outside the
     * threat model (it can rewrite any file, or the JVM itself), so a root process keeps the identity
     * rule; an unknown uid counts as the owner's.
     */
    private boolean rewritableByRunningUser(FileStamp stamp) {
        if ((stamp.mode() & 0200) == 0) {
            return false;
        }
        if (runningUid.isEmpty()) {
            return true;
        }
        int me = runningUid.get();
        return me != 0 && stamp.owner() == me;
    }

    /**
     * File systems whose write fault on a shared mapping stamps the file's times ({@code page_mkwrite}
     * calls {@code file_update_time}); with {@code execve} refused while any writer exists
     * ({@code ETXTBSY}), a remembered identity there proves that every later writer moved ctime
     * (decision 0828). tmpfs and every type not named here (FUSE, network, overlay, unknown) do not
     * qualify: a binary the user may write on them is checked in full each time.
     */
    private static final Set<String> TIMES_MOVE_ON_WRITE_FAULT = Set.of("ext2", "ext3", "ext4", "xfs", "btrfs");

    /** The file store type per device, for {@link #timesMoveOnEveryNewWriter}; a device keeps its type while mounted. */
    private final ConcurrentHashMap<Long, Boolean> storeStampsWriters = new ConcurrentHashMap<>();

    private boolean timesMoveOnEveryNewWriter(Path exe, FileStamp stamp) {
        Boolean known = storeStampsWriters.get(stamp.device());
        if (known != null) {
            return known;
        }
        boolean stamps;
        try {
            stamps = TIMES_MOVE_ON_WRITE_FAULT.contains(Files.getFileStore(exe).type());
        } catch (IOException | RuntimeException e) {
            return false; // unknown: the full check every time
        }
        if (storeStampsWriters.size() < 64) {
            storeStampsWriters.put(stamp.device(), stamps);
        }
        return stamps;
    }

    private static Optional<Integer> effectiveUid() {
        // /proc/self is owned by the process's effective uid on Linux.
        try {
            Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            return uid instanceof Integer i ? Optional.of(i) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** How many full checks (digest when pinned, {@code --version}) this runtime has run; for tests and benchmarks. */
    long fullChecks() {
        return fullChecks.get();
    }

    private Verification verifyContent(Path exe) {
        fullChecks.incrementAndGet();
        if (identity.binaryDigest().isPresent()) {
            Optional<byte[]> actual = hash(exe);
            if (actual.isEmpty()) {
                return unavailable("the pinned Node binary could not be read");
            }
            if (!identity.binaryDigest().get().matches(actual.get())) {
                return mismatch("the Node binary's SHA-256 differs from the pinned digest");
            }
        }
        return checkVersion(exe);
    }

    private Verification checkVersion(Path exe) {
        Answer answer = askVersion(exe);
        return answer.refused().isPresent() ? answer.refused().get() : judge(answer.out(), answer.exit());
    }

    /**
     * What {@code <exe> --version} answered: the first bytes of its standard output (at most one
     * more than {@link #VERSION_OUTPUT_BYTES}) and its exit status, or why there is no answer.
     */
    private record Answer(Optional<Refused> refused, byte[] out, int exit) {}

    /** Runs {@code exe --version} with an empty environment, bounded output and timeout. */
    private static Answer askVersion(Path exe) {
        ProcessBuilder pb = new ProcessBuilder(exe.toString(), "--version");
        pb.environment().clear();
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.redirectInput(ProcessBuilder.Redirect.PIPE);
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            return refusedAnswer(unavailable(
                    "the pinned Node binary does not run: " + e.getClass().getSimpleName()));
        }
        try {
            p.getOutputStream().close();
            // Read the first bytes and discard the rest on another thread, so a chatty binary can never block on a
            // full pipe while we wait for it to exit.
            byte[][] head = {new byte[0]};
            InputStream stdout = p.getInputStream();
            Thread reader = new Thread(
                    () -> {
                        try (InputStream in = stdout) {
                            byte[] first = in.readNBytes(VERSION_OUTPUT_BYTES + 1);
                            synchronized (head) {
                                head[0] = first;
                            }
                            in.transferTo(java.io.OutputStream.nullOutputStream());
                        } catch (IOException e) {
                            // What was read stays; an empty answer fails the comparison below.
                        }
                    },
                    "skillgate-node-version");
            reader.setDaemon(true);
            reader.start();
            if (!p.waitFor(VERSION_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                return refusedAnswer(unavailable("the pinned Node binary did not answer --version in time"));
            }
            reader.join(VERSION_TIMEOUT.toMillis());
            byte[] out;
            synchronized (head) {
                out = head[0];
            }
            return new Answer(Optional.empty(), out, p.exitValue());
        } catch (IOException e) {
            p.destroyForcibly();
            return refusedAnswer(unavailable("the pinned Node binary's --version could not be read"));
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            return refusedAnswer(unavailable("interrupted while verifying the Node binary"));
        }
    }

    private static Answer refusedAnswer(Refused why) {
        return new Answer(Optional.of(why), new byte[0], -1);
    }

    /** Whether an answer to {@code --version} is this runtime's pinned version, as {@link #verify} requires. */
    private Verification judge(byte[] out, int exit) {
        if (exit != 0) {
            return unavailable("the pinned Node binary failed --version (exit " + exit + ")");
        }
        String text = new String(out, StandardCharsets.UTF_8);
        if (out.length > VERSION_OUTPUT_BYTES || !text.endsWith("\n")) {
            return mismatch("the Node binary printed an unexpected version: '" + Text.excerpt(text) + "'");
        }
        String version = text.substring(0, text.length() - 1);
        if (!version.equals(identity.version())) {
            return mismatch("the Node binary reports '" + Text.excerpt(version) + "', pinned '"
                    + Text.excerpt(identity.version()) + "'");
        }
        Matcher m = VERSION.matcher(version);
        if (!m.matches()) {
            return mismatch("the Node version cannot be read");
        }
        int major = Integer.parseInt(m.group(1));
        int minor = Integer.parseInt(m.group(2));
        if (major < NodeFlags.MIN_MAJOR) {
            return unavailable("Node " + NodeFlags.MIN_MAJOR + " or newer is required");
        }
        return new Verified(identity, major, minor);
    }

    /**
     * Asks the binary its version once and pins the answer (decision 0826): {@code <real path>
     * --version} with an empty environment, at most 64 bytes, 10 s, exit 0, the output stripped of
     * surrounding white space and not empty; then {@link #pinned(Path, String)} with that version.
     * That one answer is also this runtime's first full check (what {@link #verify} would have
     * concluded from it, so the first {@code verify} does not start the binary again), remembered
     * under exactly the identity rule of the class comment: only when the file's identity was
     * settled before the question and unchanged after it. Otherwise the first {@code verify} runs
     * the full check as for any pinned runtime. Nothing about the binary is trusted beyond what
     * {@code verify} trusts: the same path checks run on every {@code verify}.
     *
     * @return the pinned runtime; empty when the binary gave no usable answer
     * @throws dev.skillgate.model.InvalidValueException if the answer is not a version ({@code RUNTIME_*} codes), or
     *     the path is not absolute
     */
    public static Optional<NodeRuntime> askAndPin(Path absolutePath) {
        return askAndPin(absolutePath, SETTLE);
    }

    /** As {@link #askAndPin(Path)}, with another settle time (tests). */
    static Optional<NodeRuntime> askAndPin(Path absolutePath, Duration settle) {
        Objects.requireNonNull(absolutePath, "absolutePath");
        if (!absolutePath.isAbsolute()) {
            // The same refusal as pinned(): RuntimeIdentity rejects a relative path.
            new RuntimeIdentity(absolutePath, "v0.0.0", Optional.empty());
        }
        Path real;
        try {
            real = absolutePath.toRealPath();
        } catch (IOException e) {
            return Optional.empty();
        }
        Instant asked = Instant.now();
        Optional<FileStamp> before = FileStamp.of(real);
        Answer answer = askVersion(real);
        if (answer.refused().isPresent() || answer.exit() != 0 || answer.out().length > VERSION_OUTPUT_BYTES) {
            return Optional.empty();
        }
        String version = new String(answer.out(), StandardCharsets.UTF_8).strip();
        if (version.isEmpty()) {
            return Optional.empty();
        }
        NodeRuntime runtime = pin(absolutePath, version, Optional.empty(), settle);
        if (runtime.executable().equals(real)
                && before.isPresent()
                && before.get().ctime().toInstant().isBefore(asked.minus(settle))
                && before.equals(FileStamp.of(real))
                && runtime.judge(answer.out(), answer.exit()) instanceof Verified ok) {
            runtime.fullChecks.incrementAndGet();
            runtime.remembered.set(new Remembered(before.get(), ok));
        }
        return Optional.of(runtime);
    }

    private static Optional<byte[]> hash(Path exe) {
        MessageDigest md = Sha256Digest.newMessageDigest();
        try (FileChannel ch = FileChannel.open(exe, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
            while (ch.read(buf) >= 0) {
                buf.flip();
                md.update(buf);
                buf.clear();
            }
            return Optional.of(md.digest());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static Refused unavailable(String message) {
        return new Refused(Diagnostic.error(ErrorCode.RUNTIME_UNAVAILABLE, "", message));
    }

    private static Refused mismatch(String message) {
        return new Refused(Diagnostic.error(ErrorCode.RUNTIME_MISMATCH, "", message));
    }

    @Override
    public String toString() {
        return "NodeRuntime[" + identity.executable() + ", " + identity.version()
                + identity.binaryDigest().map(d -> ", " + d).orElse("") + "]";
    }
}
