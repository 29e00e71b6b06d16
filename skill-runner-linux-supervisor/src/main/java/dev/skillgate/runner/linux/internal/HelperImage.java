package dev.skillgate.runner.linux.internal;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Sha256Digest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The extracted helper, opened once; what the JVM hashes, starts and checks is that one open file,
 * never a path looked up twice (decision 0500, docs/supervision.md "The helper that runs is the
 * helper that was verified").
 *
 * <ol>
 *   <li>Open the helper read-only without following a link ({@code O_NOFOLLOW}), as a
 *       {@link FileChannel}. Its descriptor number {@code n} is found by setting a random 40-bit
 *       file offset through the channel and looking for that offset in {@code /proc/self/fdinfo}:
 *       the offset belongs to the open file description, so the descriptor found is this
 *       channel's (or a duplicate of it, which names the same open file).
 *   <li>Stat the open file through {@code /proc/<jvm>/fd/<n>} (the kernel resolves that link to
 *       the open file, so this is {@code fstat}): a regular file of the private directory's owner,
 *       writable by nobody else, within the size bound. Its identity is device, inode, size,
 *       modification and status-change time.
 *   <li>SHA-256 of the bytes read through the channel must be the digest shipped in the jar.
 *   <li>Start the helper by the path {@code /proc/<jvm>/fd/<n>}: {@code execve} resolves that link
 *       to the inode this JVM holds open, so renaming, linking or symlinking another file over the
 *       helper's name, at any moment, changes nothing that runs.
 *   <li>After the start: the identity is unchanged (no write, truncate, {@code chmod} or
 *       {@code utimensat} touched the inode between step 2 and the {@code exec}: each moves the
 *       status-change time, which user space cannot set back); the bytes hash again to the
 *       digest (the inode is now executing, so the kernel refuses writes to it: what is read is
 *       what runs); {@code /proc/<helper>/exe} is this device and inode and the helper is still
 *       alive (it did not {@code exec} something else).
 *   <li>Seal: one byte tells the helper that it was verified; it makes itself non-dumpable and only
 *       then reads its request.
 * </ol>
 *
 * <p><b>A live witness instead of the two hashes</b> (decision 0838). While any process executes an
 * inode, the kernel refuses to open it for writing ({@code ETXTBSY}: the executable of a live
 * {@code mm} is write-denied, and a file already open for writing, also through a shared mapping,
 * makes the {@code exec} fail the same way). So if a helper started and verified earlier (the
 * <em>witness</em>) still runs the inode, with {@code /proc/<witness>/exe} read while the witness is
 * unreaped, before step 3 and again after step 4, the inode has been write-denied without a gap from
 * the witness's own verification until after the new {@code exec}: its bytes are still the ones that
 * verification hashed. Steps 3 and 5 then compare the open file's identity with the witness's and
 * check the witness again instead of hashing; everything else (steps 1, 2, 4, 6, the check of
 * {@code /proc/<helper>/exe}, the identity after the start) is unchanged, and if the witness is gone,
 * runs another inode or the identity differs, the bytes are hashed as above. The chain starts at a
 * full hash: only a helper that passed this whole check becomes a witness.
 *
 * <p>Any mismatch is {@code SUPERVISOR_TAMPERED}: the started process is killed before it is sent
 * anything, so nothing it says is believed and it never sees a request. What this does not cover:
 * a same-user process can still ptrace a dumpable process of the user (the JVM, and the helper
 * between its {@code exec} and the seal) where the kernel allows it, and a file system that lies
 * about timestamps or content (FUSE, network file systems) is trusted for what it reports.
 */
final class HelperImage {
    private HelperImage() {}

    private static final int MAX_BINARY = 16 * 1024 * 1024;
    /** Random offsets below 2^40 (1 TiB): every Linux file system accepts them on a regular file. */
    private static final long TOKEN_BASE = 1L << 32;

    private static final long TOKEN_SPAN = (1L << 40) - TOKEN_BASE;
    private static final int FDINFO_HEAD = 64;
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String ATTRIBUTES = "unix:dev,ino,mode,uid,size,lastModifiedTime,ctime";
    /** Longer than a kernel clock tick (at most 10 ms at HZ=100), with margin. */
    static final Duration SETTLE = Duration.ofMillis(25);

    /** The outcome of {@link #start}. */
    sealed interface Start permits Started, Refused {}

    /**
     * A helper process verified to run the shipped bytes, and sealed; {@code identity} is the file it
     * was verified to run (decision 0838: while it lives, it keeps that inode write-denied).
     */
    record Started(Process process, Identity identity) implements Start {
        Started {
            Objects.requireNonNull(process, "process");
            Objects.requireNonNull(identity, "identity");
        }
    }

    /** Live verified helpers that may vouch for the helper file's bytes (decision 0838). */
    interface Witnesses {
        /** A helper started and verified earlier, possibly no longer alive (checked on use). */
        Optional<Started> any();

        /** Records a helper that passed the whole check. */
        void add(Started started);

        /** No witnesses: every start hashes. */
        Witnesses NONE = new Witnesses() {
            @Override
            public Optional<Started> any() {
                return Optional.empty();
            }

            @Override
            public void add(Started started) {}
        };
    }

    /** Nothing usable was started (any process that was started has been killed), and why. */
    record Refused(HelperInstaller.Unavailable reason) implements Start {
        Refused {
            Objects.requireNonNull(reason, "reason");
        }

        String describe() {
            return reason.describe();
        }
    }

    /** Device, inode, size and the two times, as stat reports them for the open file. */
    record Identity(long dev, long ino, long size, FileTime mtime, FileTime ctime) {}

    /**
     * Verifies the installed helper and starts it with {@code arguments} through {@code launcher},
     * bound to the verified inode as described above; on success the helper has been sealed.
     */
    static Start start(HelperInstaller.Installed installed, HelperLauncher launcher, List<String> arguments) {
        return start(installed, launcher, arguments, Witnesses.NONE);
    }

    /**
     * As {@link #start(HelperInstaller.Installed, HelperLauncher, List)}; a live witness from
     * {@code witnesses} replaces the two hashes where it still runs the same inode (see the class
     * comment), and the helper started is added to {@code witnesses}.
     */
    static Start start(
            HelperInstaller.Installed installed, HelperLauncher launcher, List<String> arguments, Witnesses witnesses) {
        // A launcher that does not start the given file (tests) gets no witness: the argument needs
        // the new process's executable to be the verified inode.
        Optional<Started> witness = launcher.startsTheGivenFile() ? witnesses.any() : Optional.empty();
        try (Opened opened = open(installed, witness)) {
            if (opened.refusal.isPresent()) {
                return new Refused(opened.refusal.get());
            }
            Process p;
            try {
                p = launcher.start(opened.execPath(), arguments);
            } catch (IOException e) {
                Optional<HelperInstaller.Unavailable> changed = opened.recheck(installed);
                if (changed.isPresent()) {
                    return new Refused(changed.get());
                }
                if (String.valueOf(e.getMessage()).contains("error=26,")) {
                    // ETXTBSY: someone holds the helper open for writing at the moment of exec.
                    return new Refused(tampered("the helper file is held open for writing by another process"));
                }
                return new Refused(new HelperInstaller.Unavailable(
                        ErrorCode.SUPERVISOR_UNAVAILABLE, "the helper could not be started"));
            }
            // Order matters: the process's executable first, then the bytes, then the file's identity
            // last, so that a write that restores the genuine bytes after a tampered image left the
            // inode is still seen (docs/supervision.md, "The helper that runs is the helper that was verified").
            Optional<HelperInstaller.Unavailable> problem =
                    launcher.startsTheGivenFile() ? runsInode(p, opened.identity) : Optional.empty();
            if (problem.isEmpty()) {
                problem = opened.recheck(installed);
            }
            if (problem.isEmpty()) {
                problem = seal(p);
            }
            if (problem.isPresent()) {
                kill(p);
                return new Refused(problem.get());
            }
            Started started = new Started(p, opened.identity);
            witnesses.add(started);
            return started;
        }
    }

    /**
     * Checks the installed helper at rest without starting it (same open, stat and hash as
     * {@link #start}); empty when it is intact.
     */
    static Optional<HelperInstaller.Unavailable> checkAtRest(HelperInstaller.Installed installed) {
        return checkAtRest(installed, Optional.empty());
    }

    /**
     * As {@link #checkAtRest(HelperInstaller.Installed)}; where {@code witness} still runs the file
     * found at rest, with the identity it was verified with, that replaces the hash (decision 0838).
     */
    static Optional<HelperInstaller.Unavailable> checkAtRest(
            HelperInstaller.Installed installed, Optional<Started> witness) {
        try (Opened opened = open(installed, witness)) {
            return opened.refusal;
        }
    }

    /** How many times the helper's bytes were hashed in this JVM (for tests and benchmarks). */
    static long hashes() {
        return HASHES.get();
    }

    /** How many times the calling thread hashed the helper's bytes (for tests: unaffected by others). */
    static long hashesOnThisThread() {
        return THREAD_HASHES.get()[0];
    }

    private static final AtomicLong HASHES = new AtomicLong();
    private static final ThreadLocal<long[]> THREAD_HASHES = ThreadLocal.withInitial(() -> new long[1]);

    // ------------------------------------------------------------------------------------------

    /** The open helper and what was found about it; closes the channel. */
    private static final class Opened implements AutoCloseable {
        final FileChannel channel;
        final String jvm;
        final int fd;
        final Identity identity;
        final Optional<HelperInstaller.Unavailable> refusal;
        /** The witness that stood in for the hash of step 3, if one did. */
        final Optional<Started> witness;

        Opened(
                FileChannel channel,
                String jvm,
                int fd,
                Identity identity,
                Optional<HelperInstaller.Unavailable> r,
                Optional<Started> witness) {
            this.channel = channel;
            this.jvm = jvm;
            this.fd = fd;
            this.identity = identity;
            this.refusal = r;
            this.witness = witness;
        }

        static Opened refused(FileChannel channel, HelperInstaller.Unavailable why) {
            return new Opened(channel, "", -1, null, Optional.of(why), Optional.empty());
        }

        Path execPath() {
            return Path.of("/proc", jvm, "fd", Integer.toString(fd));
        }

        /** The same open file still has the bytes, then the identity, that were verified. */
        Optional<HelperInstaller.Unavailable> recheck(HelperInstaller.Installed installed) {
            try {
                // The witness still runs the inode: write-denied without a gap since before step 3,
                // so the bytes the new process was started from are the ones the witness vouched for.
                boolean vouched = witness.isPresent() && stillRuns(witness.get(), identity);
                if (!vouched && !installed.digest().matches(hash(channel))) {
                    return Optional.of(tampered("the started helper's bytes differ from the shipped ones"));
                }
                Identity now = identityOf(readAttributes(execPath()));
                if (!now.equals(identity)) {
                    return Optional.of(tampered("the helper file changed between its verification and its start"));
                }
                return Optional.empty();
            } catch (IOException | RuntimeException e) {
                return Optional.of(tampered("the helper file could not be re-read after its start"));
            }
        }

        @Override
        public void close() {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException e) {
                    // nothing was written through it
                }
            }
        }
    }

    /**
     * Opens and verifies the helper; if its ctime is within {@link #SETTLE} of now, waits that long
     * once and opens it again, so that the status-change time later compared lies in an earlier
     * clock tick than the check and any later write must move it, also on a file system with coarse
     * timestamps (the "racily clean" rule of decision 0332, at tick scale).
     */
    private static Opened open(HelperInstaller.Installed installed, Optional<Started> witness) {
        Opened first = openOnce(installed, witness);
        if (first.refusal.isPresent() || !recentlyChanged(first.identity)) {
            return first;
        }
        first.close();
        try {
            Thread.sleep(SETTLE.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return openOnce(installed, witness);
    }

    static boolean recentlyChanged(Identity identity) {
        return identity.ctime().toInstant().isAfter(Instant.now().minus(SETTLE));
    }

    private static Opened openOnce(HelperInstaller.Installed installed, Optional<Started> witness) {
        Path file = installed.binary();
        HelperInstaller.DirectoryCheck dir = HelperInstaller.checkDirectory(file.getParent());
        if (dir.refusal().isPresent()) {
            return Opened.refused(null, dir.refusal().get());
        }
        FileChannel ch;
        try {
            // Only narrows: opening a FIFO put in its place would block. What is trusted is the
            // fstat of the open file below, not this lstat.
            int atRest = (Integer) Files.getAttribute(file, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            if ((atRest & 0170000) != 0100000) {
                return Opened.refused(null, tampered("the helper is not a private regular file"));
            }
            ch = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return Opened.refused(null, tampered("the extracted helper is missing"));
        } catch (IOException e) {
            // ELOOP for a symbolic link put in its place, EACCES for a file made unreadable.
            return Opened.refused(null, tampered("the helper is not a private regular file"));
        }
        try {
            String jvm = Files.readSymbolicLink(Path.of("/proc/self")).toString();
            int fd = descriptorOf(ch, jvm, installed.realPath());
            if (fd < 0) {
                return Opened.refused(
                        ch,
                        new HelperInstaller.Unavailable(
                                ErrorCode.SUPERVISOR_UNAVAILABLE, "the helper's descriptor was not found in /proc"));
            }
            Path self = Path.of("/proc", jvm, "fd", Integer.toString(fd));
            Map<String, Object> attrs = readAttributes(self);
            int mode = (Integer) attrs.get("mode");
            if ((mode & 0170000) != 0100000
                    || (mode & 0022) != 0
                    || ((Integer) attrs.get("uid")).intValue() != dir.owner()) {
                return Opened.refused(ch, tampered("the helper is not a private regular file"));
            }
            Identity identity = identityOf(attrs);
            if (identity.size() > MAX_BINARY) {
                return Opened.refused(ch, tampered("the helper has the wrong size"));
            }
            // The same inode, unchanged since a live witness was verified to run it: its bytes are
            // write-denied and still the verified ones (decision 0838). Otherwise hash them.
            Optional<Started> vouching = witness.filter(w -> w.identity().equals(identity) && stillRuns(w, identity));
            if (vouching.isEmpty() && !installed.digest().matches(hash(ch))) {
                return Opened.refused(ch, tampered("the extracted helper's SHA-256 differs from the shipped one"));
            }
            return new Opened(ch, jvm, fd, identity, Optional.empty(), vouching);
        } catch (IOException | RuntimeException e) {
            return Opened.refused(
                    ch, new HelperInstaller.Unavailable(ErrorCode.SUPERVISOR_UNAVAILABLE, "the helper cannot be read"));
        }
    }

    /**
     * The number of the descriptor behind {@code ch}: the one whose {@code fdinfo} shows the random
     * offset just set through {@code ch}. Entries whose link names the helper are looked at first;
     * if the file was renamed meanwhile, every entry is. Exactly one match is required.
     */
    static int descriptorOf(FileChannel ch, String jvm, Path expectedName) throws IOException {
        long token = TOKEN_BASE + (RANDOM.nextLong() >>> 1) % TOKEN_SPAN;
        ch.position(token);
        String wanted = "pos:\t" + token + "\n";
        Path fds = Path.of("/proc", jvm, "fd");
        int found = scan(fds, jvm, wanted, expectedName.toString());
        return found >= 0 ? found : scan(fds, jvm, wanted, null);
    }

    private static int scan(Path fds, String jvm, String wanted, String nameFilter) throws IOException {
        int found = -1;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(fds)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (nameFilter != null) {
                    try {
                        if (!Files.readSymbolicLink(entry).toString().equals(nameFilter)) {
                            continue;
                        }
                    } catch (IOException e) {
                        continue; // closed meanwhile
                    }
                }
                if (fdinfoStartsWith(Path.of("/proc", jvm, "fdinfo", name), wanted)) {
                    if (found >= 0) {
                        return -1; // two descriptors with this offset: refuse to guess
                    }
                    found = Integer.parseInt(name);
                }
            }
        }
        return found;
    }

    private static boolean fdinfoStartsWith(Path fdinfo, String wanted) {
        try (InputStream in = Files.newInputStream(fdinfo)) {
            byte[] head = in.readNBytes(FDINFO_HEAD);
            return new String(head, StandardCharsets.US_ASCII).startsWith(wanted);
        } catch (IOException e) {
            return false;
        }
    }

    private static Map<String, Object> readAttributes(Path link) throws IOException {
        // Follows the /proc magic link: the attributes of the open file, as fstat reports them.
        return Files.readAttributes(link, ATTRIBUTES);
    }

    private static Identity identityOf(Map<String, Object> attrs) {
        return new Identity(
                (Long) attrs.get("dev"),
                (Long) attrs.get("ino"),
                (Long) attrs.get("size"),
                (FileTime) attrs.get("lastModifiedTime"),
                (FileTime) attrs.get("ctime"));
    }

    /** SHA-256 of the whole file, read through {@code ch} with positional reads. */
    static byte[] hash(FileChannel ch) throws IOException {
        HASHES.incrementAndGet();
        THREAD_HASHES.get()[0]++;
        MessageDigest md = Sha256Digest.newMessageDigest();
        ByteBuffer buf = ByteBuffer.allocate(256 * 1024);
        long pos = 0;
        while (true) {
            int n = ch.read(buf, pos);
            if (n < 0) {
                break;
            }
            pos += n;
            if (pos > MAX_BINARY) {
                throw new IOException("the helper has the wrong size");
            }
            buf.flip();
            md.update(buf);
            buf.clear();
        }
        return md.digest();
    }

    /**
     * The witness is unreaped and its executable is still the inode of {@code identity}: read
     * {@code /proc/<pid>/exe} (it resolves only while the process has its memory, which holds the
     * inode write-denied), then check the process was not reaped meanwhile, so the pid was the
     * witness's throughout. A process leaves its memory once, at exit, and the helper never
     * {@code exec}s itself, so two such checks bracket a time in which the inode stayed write-denied.
     */
    static boolean stillRuns(Started witness, Identity identity) {
        // Only on a kernel seen to write-deny executables in this JVM (decision 0848).
        return WriteDenyProbe.holds()
                && witness.identity().dev() == identity.dev()
                && witness.identity().ino() == identity.ino()
                && witness.process().isAlive()
                && runsInode(witness.process(), identity).isEmpty();
    }

    /** The started process runs exactly the verified inode (kernel's word: {@code /proc/<pid>/exe}). */
    private static Optional<HelperInstaller.Unavailable> runsInode(Process p, Identity identity) {
        try {
            Map<String, Object> exe =
                    Files.readAttributes(Path.of("/proc", Long.toString(p.pid()), "exe"), "unix:dev,ino");
            if ((Long) exe.get("dev") != identity.dev() || (Long) exe.get("ino") != identity.ino()) {
                return Optional.of(tampered("the started helper does not run the verified file"));
            }
        } catch (IOException | RuntimeException e) {
            if (!p.isAlive()) {
                return Optional.of(new HelperInstaller.Unavailable(
                        ErrorCode.SUPERVISOR_UNAVAILABLE, "the helper ended before it could be verified"));
            }
            return Optional.of(tampered("the started helper's executable cannot be inspected"));
        }
        // Alive after the read: the pid was ours throughout (an unreaped child's pid is not reused).
        if (!p.isAlive()) {
            return Optional.of(new HelperInstaller.Unavailable(
                    ErrorCode.SUPERVISOR_UNAVAILABLE, "the helper ended before it could be verified"));
        }
        return Optional.empty();
    }

    private static Optional<HelperInstaller.Unavailable> seal(Process p) {
        try {
            OutputStream in = p.getOutputStream();
            in.write(Wire.SEAL_VERIFIED);
            in.flush();
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of(new HelperInstaller.Unavailable(
                    ErrorCode.SUPERVISOR_UNAVAILABLE, "the helper ended before it could be verified"));
        }
    }

    private static void kill(Process p) {
        p.destroyForcibly();
        try {
            p.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static HelperInstaller.Unavailable tampered(String detail) {
        return new HelperInstaller.Unavailable(ErrorCode.SUPERVISOR_TAMPERED, detail);
    }
}
