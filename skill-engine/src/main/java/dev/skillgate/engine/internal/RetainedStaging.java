package dev.skillgate.engine.internal;

import dev.skillgate.engine.UnresolvedExecution;
import dev.skillgate.model.Limits;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.RunId;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Lists staging directories under {@code <data>/staging} as unresolved executions, and works out the
 * revision of each retained bundle as found on disk. Reads only: nothing is removed (that is the
 * janitor's job, after proof of death), no link is followed, every read is bounded.
 */
public final class RetainedStaging {
    private static final Pattern RUN_DIR = Pattern.compile("[0-9a-f]{32}-([A-Za-z0-9._:-]{1,128})");
    private static final LinkOption NOFOLLOW = LinkOption.NOFOLLOW_LINKS;
    private static final int MAX_DIRECTORIES = 1_000;
    private static final int MAX_DEPTH = 16;

    private RetainedStaging() {}

    /** Every staging run directory, as {@link UnresolvedExecution.State#RETAINED_ON_DISK}. */
    public static List<UnresolvedExecution> list(Path dataDirectory) {
        Path root = dataDirectory.resolve("staging");
        List<UnresolvedExecution> out = new ArrayList<>();
        if (!Files.isDirectory(root, NOFOLLOW)) {
            return out;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(root)) {
            for (Path dir : ds) {
                if (out.size() >= MAX_DIRECTORIES) {
                    break;
                }
                Matcher m = RUN_DIR.matcher(dir.getFileName().toString());
                if (!m.matches()) {
                    continue;
                }
                BasicFileAttributes attrs;
                try {
                    attrs = Files.readAttributes(dir, BasicFileAttributes.class, NOFOLLOW);
                } catch (IOException e) {
                    continue;
                }
                if (!attrs.isDirectory()) {
                    continue;
                }
                Optional<RunId> run;
                try {
                    run = Optional.of(RunId.of(m.group(1)));
                } catch (RuntimeException e) {
                    run = Optional.empty();
                }
                if (run.isEmpty()) {
                    continue;
                }
                out.add(new UnresolvedExecution(
                        run.get(),
                        Optional.empty(),
                        bundleRevision(dir.resolve("bundle")),
                        Instant.ofEpochMilli(attrs.lastModifiedTime().toMillis()),
                        Optional.of(dir),
                        UnresolvedExecution.State.RETAINED_ON_DISK));
            }
        } catch (IOException e) {
            return out;
        }
        return out;
    }

    /** The revision over the regular files under {@code bundle}, or empty when anything is off. */
    public static Optional<Revision> bundleRevision(Path bundle) {
        Map<PortablePath, byte[]> files = new TreeMap<>();
        long[] total = {0};
        try {
            if (!collect(bundle, "", 0, files, total)) {
                return Optional.empty();
            }
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
        return files.isEmpty() ? Optional.empty() : Optional.of(Revision.compute(files));
    }

    private static boolean collect(Path dir, String prefix, int depth, Map<PortablePath, byte[]> files, long[] total)
            throws IOException {
        if (depth > MAX_DEPTH || !Files.isDirectory(dir, NOFOLLOW)) {
            return false;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                String rel = prefix + p.getFileName();
                BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, NOFOLLOW);
                if (a.isDirectory()) {
                    if (!collect(p, rel + "/", depth + 1, files, total)) {
                        return false;
                    }
                } else if (a.isRegularFile()) {
                    if (files.size() >= Limits.DECLARED_FILES + 3 || a.size() > Limits.FILE_BYTES) {
                        return false;
                    }
                    total[0] += a.size();
                    if (total[0] > Limits.CAPTURE_BYTES) {
                        return false;
                    }
                    try (InputStream in = Files.newInputStream(p, NOFOLLOW)) {
                        byte[] bytes = in.readNBytes(Limits.FILE_BYTES + 1);
                        if (bytes.length > Limits.FILE_BYTES) {
                            return false;
                        }
                        files.put(PortablePath.of(rel), bytes);
                    }
                } else {
                    return false;
                }
            }
        }
        return true;
    }
}
