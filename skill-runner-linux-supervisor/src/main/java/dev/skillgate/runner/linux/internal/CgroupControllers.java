package dev.skillgate.runner.linux.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Which cgroup v2 controllers the host's delegated directory lists in {@code cgroup.controllers}:
 * a prediction for the capabilities and the approval text only. The helper decides per launch, in
 * the run's own child cgroup, and refuses ({@code REQUIRE}) or reports what it could not apply.
 *
 * @param delegated whether the host named a directory at all
 * @param memory {@code memory} listed
 * @param pids {@code pids} listed
 * @param cpu {@code cpu} listed
 */
public record CgroupControllers(boolean delegated, boolean memory, boolean pids, boolean cpu) {
    private static final int MAX_BYTES = 4096;

    /** Reads {@code <dir>/cgroup.controllers} once (bounded, no link followed); nothing listed on any error. */
    public static CgroupControllers of(Optional<Path> dir) {
        if (dir.isEmpty()) {
            return new CgroupControllers(false, false, false, false);
        }
        List<String> names = List.of();
        Path f = dir.get().resolve("cgroup.controllers");
        if (Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
            try (InputStream in = Files.newInputStream(f, LinkOption.NOFOLLOW_LINKS)) {
                String text = new String(in.readNBytes(MAX_BYTES), StandardCharsets.US_ASCII);
                names = Arrays.asList(text.trim().split("\\s+"));
            } catch (IOException e) {
                names = List.of();
            }
        }
        return new CgroupControllers(true, names.contains("memory"), names.contains("pids"), names.contains("cpu"));
    }

    /** For the capabilities detail: the directory and what it offers, or that none was delegated. */
    static String describe(Optional<Path> dir) {
        CgroupControllers c = of(dir);
        if (!c.delegated()) {
            return "no delegated cgroup (memory, pids, cpu not enforced)";
        }
        return "cgroup " + dir.get() + " (memory " + yes(c.memory()) + ", pids " + yes(c.pids()) + ", cpu "
                + yes(c.cpu()) + ")";
    }

    private static String yes(boolean b) {
        return b ? "yes" : "no";
    }
}
