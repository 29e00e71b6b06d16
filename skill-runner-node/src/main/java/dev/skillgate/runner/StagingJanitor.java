package dev.skillgate.runner;

import dev.skillgate.model.RunId;
import dev.skillgate.runner.internal.OwnerRecord;
import dev.skillgate.runner.internal.ProcessLiveness;
import dev.skillgate.runner.internal.ProcessLiveness.Liveness;
import dev.skillgate.runner.internal.SecureTree;
import dev.skillgate.runner.internal.Staging;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apiguardian.api.API;

/**
 * Removes staging directories left behind by runs whose owner is provably dead (a JVM that was
 * killed, a supervisor that vanished), and reports everything it keeps.
 *
 * <p>A directory is removed only if all of these hold: it is a real directory (not a link) named
 * {@code <32 hex attempt>-<run id>}; it holds exactly the staging layout ({@code owner},
 * {@code bundle/}, {@code home/}, {@code tmp/}, optionally {@code owner.tmp}), with no link in place
 * of any of them; its ownership record parses strictly and names the same attempt, run id and
 * directory identity (file key); every recorded owner (the process that staged it and, if recorded,
 * the supervisor) is provably dead — its pid is gone or now belongs to a process with another start
 * time; and, on Linux, no running process mentions the directory in its environment or command line
 * (a hint, not a proof: a portable-supervisor script can outlive its JVM). Removal goes through
 * {@link SecureDirectoryStream}, never follows a link, and is bounded.
 *
 * <p>Everything else — unknown names or layouts, possibly-live or unknown owners, a directory whose
 * identity changed, platforms without secure directory streams — is retained and reported, never
 * swept recursively. Call {@link #sweep()} when the host starts, or {@link #sweep(RemovalApproval)}
 * when each removal must first be recorded (the engine records an audited resolution).
 */
@API(status = API.Status.INTERNAL, since = "0.1.0")
public final class StagingJanitor {

    /** Most run directories examined per sweep. */
    public static final int MAX_DIRECTORIES = 10_000;

    private static final LinkOption NOFOLLOW = LinkOption.NOFOLLOW_LINKS;
    private static final Set<String> LAYOUT =
            Set.of(Staging.OWNER, Staging.OWNER_TMP, Staging.BUNDLE, Staging.HOME, Staging.TMP);

    private final Path dataDirectory;

    private StagingJanitor(Path dataDirectory) {
        this.dataDirectory = dataDirectory;
    }

    /** A janitor for the staging directories under {@code dataDirectory/staging}. */
    public static StagingJanitor forDataDirectory(Path dataDirectory) {
        Objects.requireNonNull(dataDirectory, "dataDirectory");
        if (!dataDirectory.isAbsolute()) {
            throw new IllegalArgumentException("the data directory must be absolute");
        }
        return new StagingJanitor(dataDirectory);
    }

    /** Why a directory was kept. */
    public enum Reason {
        /** Not a staging directory this library recognises (name, layout, link, malformed record). */
        UNRECOGNISED,
        /** A recorded owner is running. */
        OWNER_ALIVE,
        /** Whether a recorded owner is running cannot be proven. */
        OWNER_UNKNOWN,
        /** A running process mentions the directory (Linux {@code /proc} hint). */
        PROCESS_REFERENCES,
        /** The directory is not the one the record was written for. */
        IDENTITY_CHANGED,
        /** Removal started but could not finish (bounds, permissions, identity change mid-way). */
        REMOVAL_FAILED,
        /** The platform offers no secure (link-safe) directory removal. */
        UNSUPPORTED,
        /** Every owner was proven dead, but the caller's {@link RemovalApproval} declined the removal. */
        DECLINED
    }

    /**
     * What the janitor proved about one staging directory immediately before removing it: the
     * directory is the one its ownership record was written for, every recorded owner is dead (pid
     * gone, or reused by a process with another start token), and no running process mentions it.
     *
     * @param directory the run directory
     * @param run the run id from the record (equal to the directory name's)
     * @param attempt the attempt token (32 lowercase hex; the directory name's prefix)
     * @param stagerPid the pid of the process that staged it
     * @param stagerStartToken that process's start-time token
     * @param supervisor the supervisor recorded as owner, when one recorded itself
     */
    public record OwnersDead(
            Path directory,
            RunId run,
            String attempt,
            long stagerPid,
            String stagerStartToken,
            Optional<SupervisorIdentity> supervisor) {
        public OwnersDead {
            Objects.requireNonNull(directory, "directory");
            Objects.requireNonNull(run, "run");
            Objects.requireNonNull(attempt, "attempt");
            Objects.requireNonNull(stagerStartToken, "stagerStartToken");
            Objects.requireNonNull(supervisor, "supervisor");
        }
    }

    /**
     * Decides, after the proof and immediately before removal, whether one directory may be removed
     * (e.g. only after the caller has durably recorded the proof). Returning false keeps it
     * ({@link Reason#DECLINED}); an exception counts as false.
     */
    @FunctionalInterface
    public interface RemovalApproval {
        /** Whether to remove the directory {@code proof} describes. */
        boolean approve(OwnersDead proof);
    }

    /**
     * A directory that was kept.
     *
     * @param directory its path
     * @param reason why
     * @param detail a short, input-free explanation
     */
    public record Retained(Path directory, Reason reason, String detail) {
        public Retained {
            Objects.requireNonNull(directory, "directory");
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(detail, "detail");
        }
    }

    /**
     * What one sweep did.
     *
     * @param removed directories removed
     * @param retained directories kept, with reasons
     */
    public record Report(List<Path> removed, List<Retained> retained) {
        public Report {
            removed = List.copyOf(removed);
            retained = List.copyOf(retained);
        }
    }

    /** Examines every entry of the staging root once. Never throws for an expected outcome. */
    public Report sweep() {
        return sweep(proof -> true);
    }

    /**
     * As {@link #sweep()}, but asks {@code approval} before removing each directory whose owners
     * were proven dead; a directory it declines is kept and reported as {@link Reason#DECLINED}.
     */
    public Report sweep(RemovalApproval approval) {
        Objects.requireNonNull(approval, "approval");
        Path root = dataDirectory.resolve(Staging.STAGING);
        List<Path> removed = new ArrayList<>();
        List<Retained> retained = new ArrayList<>();
        BasicFileAttributes rootAttrs;
        try {
            rootAttrs = Files.readAttributes(root, BasicFileAttributes.class, NOFOLLOW);
        } catch (NoSuchFileException e) {
            return new Report(removed, retained);
        } catch (IOException e) {
            retained.add(new Retained(root, Reason.UNRECOGNISED, "the staging root cannot be examined"));
            return new Report(removed, retained);
        }
        if (!rootAttrs.isDirectory()) {
            retained.add(new Retained(root, Reason.UNRECOGNISED, "the staging root is not a real directory"));
            return new Report(removed, retained);
        }
        try {
            Optional<SecureDirectoryStream<Path>> opened = SecureTree.open(root);
            if (opened.isEmpty()) {
                try (DirectoryStream<Path> ds = Files.newDirectoryStream(root)) {
                    for (Path p : ds) {
                        retained.add(new Retained(p, Reason.UNSUPPORTED, "no secure directory removal here"));
                    }
                }
                return new Report(removed, retained);
            }
            try (SecureDirectoryStream<Path> sds = opened.get()) {
                List<Path> names = new ArrayList<>();
                for (Path entry : sds) {
                    if (names.size() >= MAX_DIRECTORIES) {
                        break;
                    }
                    names.add(entry.getFileName());
                }
                List<Path> candidates = new ArrayList<>();
                List<String> keys = new ArrayList<>();
                List<OwnersDead> proofs = new ArrayList<>();
                for (Path name : names) {
                    Path full = root.resolve(name);
                    Examined ex = examine(sds, name);
                    if (ex.retained != null) {
                        retained.add(new Retained(full, ex.retained, ex.detail));
                    } else {
                        candidates.add(name);
                        keys.add(ex.key);
                        proofs.add(ex.proof(full));
                    }
                }
                List<Boolean> referenced = referencedByProcesses(root, candidates);
                for (int i = 0; i < candidates.size(); i++) {
                    Path full = root.resolve(candidates.get(i));
                    if (referenced.get(i)) {
                        retained.add(new Retained(
                                full, Reason.PROCESS_REFERENCES, "a running process mentions this directory"));
                        continue;
                    }
                    if (!approved(approval, proofs.get(i))) {
                        retained.add(new Retained(full, Reason.DECLINED, "the caller declined the removal"));
                        continue;
                    }
                    String key = keys.get(i);
                    Optional<String> problem = SecureTree.delete(
                            sds, candidates.get(i), key.equals("none") ? Optional.empty() : Optional.of(key));
                    if (problem.isPresent()) {
                        retained.add(new Retained(full, Reason.REMOVAL_FAILED, problem.get()));
                    } else {
                        removed.add(full);
                    }
                }
            }
        } catch (IOException e) {
            retained.add(new Retained(root, Reason.REMOVAL_FAILED, "the staging root could not be read"));
        }
        return new Report(removed, retained);
    }

    private static boolean approved(RemovalApproval approval, OwnersDead proof) {
        try {
            return approval.approve(proof);
        } catch (RuntimeException e) {
            return false;
        }
    }

    private record Examined(Reason retained, String detail, String key, OwnerRecord record) {
        OwnersDead proof(Path directory) {
            return new OwnersDead(
                    directory,
                    record.runId(),
                    record.attempt(),
                    record.stager().pid(),
                    record.stager().startToken(),
                    record.supervisor());
        }
    }

    private static Examined keep(Reason reason, String detail) {
        return new Examined(reason, detail, null, null);
    }

    private static Examined examine(SecureDirectoryStream<Path> root, Path name) {
        try {
            BasicFileAttributes attrs = root.getFileAttributeView(name, BasicFileAttributeView.class, NOFOLLOW)
                    .readAttributes();
            if (!attrs.isDirectory()) {
                return keep(Reason.UNRECOGNISED, "not a directory (a link or a file)");
            }
            Optional<String[]> parsed = Staging.parseRunDirName(name.toString());
            if (parsed.isEmpty()) {
                return keep(Reason.UNRECOGNISED, "not a staging directory name");
            }
            try (SecureDirectoryStream<Path> run = root.newDirectoryStream(name, NOFOLLOW)) {
                Object key = run.getFileAttributeView(BasicFileAttributeView.class)
                        .readAttributes()
                        .fileKey();
                if (!Objects.equals(key, attrs.fileKey())) {
                    return keep(Reason.IDENTITY_CHANGED, "the directory changed while it was examined");
                }
                int count = 0;
                boolean hasOwner = false;
                for (Path entry : run) {
                    String n = entry.getFileName().toString();
                    if (++count > LAYOUT.size() || !LAYOUT.contains(n)) {
                        return keep(Reason.UNRECOGNISED, "unexpected entry in the run directory");
                    }
                    BasicFileAttributes a = run.getFileAttributeView(
                                    entry.getFileName(), BasicFileAttributeView.class, NOFOLLOW)
                            .readAttributes();
                    boolean isFileEntry = n.equals(Staging.OWNER) || n.equals(Staging.OWNER_TMP);
                    if (isFileEntry ? !a.isRegularFile() : !a.isDirectory()) {
                        return keep(Reason.UNRECOGNISED, "a layout entry has the wrong type or is a link");
                    }
                    hasOwner |= n.equals(Staging.OWNER);
                }
                if (!hasOwner) {
                    return keep(Reason.UNRECOGNISED, "no ownership record");
                }
                Optional<OwnerRecord> record = OwnerRecord.parse(readOwner(run));
                if (record.isEmpty()) {
                    return keep(Reason.UNRECOGNISED, "malformed ownership record");
                }
                OwnerRecord r = record.get();
                String keyText = SecureTree.fileKey(root, name);
                if (!r.attempt().equals(parsed.get()[0]) || !r.runId().value().equals(parsed.get()[1])) {
                    return keep(Reason.IDENTITY_CHANGED, "the record names another directory");
                }
                if (!r.directoryKey().equals("none") && !r.directoryKey().equals(keyText)) {
                    return keep(Reason.IDENTITY_CHANGED, "the directory is not the one the record was written for");
                }
                List<Liveness> owners = new ArrayList<>();
                owners.add(ProcessLiveness.of(r.stager().pid(), r.stager().startToken()));
                r.supervisor().ifPresent(s -> owners.add(ProcessLiveness.of(s.pid(), s.startTimeToken())));
                if (owners.contains(Liveness.ALIVE)) {
                    return keep(Reason.OWNER_ALIVE, "a recorded owner is running");
                }
                if (owners.contains(Liveness.UNKNOWN)) {
                    return keep(Reason.OWNER_UNKNOWN, "a recorded owner's state cannot be proven");
                }
                return new Examined(null, "", r.directoryKey(), r);
            }
        } catch (IOException | RuntimeException e) {
            return keep(
                    Reason.UNRECOGNISED, "cannot be examined: " + e.getClass().getSimpleName());
        }
    }

    private static byte[] readOwner(SecureDirectoryStream<Path> run) throws IOException {
        try (SeekableByteChannel ch =
                run.newByteChannel(Path.of(Staging.OWNER), Set.of(StandardOpenOption.READ, NOFOLLOW))) {
            ByteBuffer buf = ByteBuffer.allocate(OwnerRecord.MAX_BYTES + 1);
            while (buf.hasRemaining() && ch.read(buf) >= 0) {
                // Bounded read.
            }
            byte[] out = new byte[buf.position()];
            buf.flip().get(out);
            return out;
        }
    }

    /** For each candidate: does any other running process mention its path (environment or argv)? */
    private static List<Boolean> referencedByProcesses(Path root, List<Path> candidates) {
        List<Boolean> out = new ArrayList<>();
        candidates.forEach(c -> out.add(false));
        Path proc = Path.of("/proc");
        if (candidates.isEmpty() || !Files.isReadable(proc.resolve("self/environ"))) {
            return out;
        }
        List<String> needles = new ArrayList<>();
        for (Path c : candidates) {
            byte[] utf8 = root.resolve(c).toString().getBytes(StandardCharsets.UTF_8);
            needles.add(new String(utf8, StandardCharsets.ISO_8859_1));
        }
        long self = ProcessHandle.current().pid();
        try (DirectoryStream<Path> ds =
                Files.newDirectoryStream(proc, p -> p.getFileName().toString().matches("[0-9]{1,10}"))) {
            for (Path pidDir : ds) {
                if (pidDir.getFileName().toString().equals(Long.toString(self))) {
                    continue;
                }
                String haystack = read(pidDir.resolve("environ")) + "\0" + read(pidDir.resolve("cmdline"));
                for (int i = 0; i < needles.size(); i++) {
                    if (!out.get(i) && haystack.contains(needles.get(i))) {
                        out.set(i, true);
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // A hint only: an unreadable /proc leaves the decision to the owner check.
        }
        return out;
    }

    private static String read(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return new String(in.readNBytes(256 * 1024), StandardCharsets.ISO_8859_1);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
