package dev.skillgate.runner.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * The fixed Node flags the runner passes before the entrypoint. Chosen by the runner from the
 * verified runtime version, never by a caller or a skill. Each is documented in {@code docs/runner.md}.
 */
public final class NodeFlags {

    /** Oldest supported Node major version. */
    public static final int MIN_MAJOR = 18;

    /** The V8 old-space ceiling, MiB. */
    public static final int MAX_OLD_SPACE_MB = 512;

    private NodeFlags() {}

    /** The flags for a runtime of the given version, in order; the last is always {@code --}. */
    public static List<String> forVersion(int major, int minor) {
        if (major < MIN_MAJOR) {
            throw new IllegalArgumentException("Node " + MIN_MAJOR + " or newer is required");
        }
        List<String> flags = new ArrayList<>();
        flags.add("--no-addons");
        flags.add("--no-global-search-paths");
        flags.add("--disable-proto=delete");
        flags.add("--unhandled-rejections=strict");
        flags.add("--max-old-space-size=" + MAX_OLD_SPACE_MB);
        if (major > 23 || (major == 23 && minor >= 7) || (major == 22 && minor >= 14)) {
            flags.add("--disable-sigusr1");
        }
        flags.add("--");
        return List.copyOf(flags);
    }
}
