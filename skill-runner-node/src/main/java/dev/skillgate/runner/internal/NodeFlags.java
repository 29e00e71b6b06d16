package dev.skillgate.runner.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * The fixed Node flags the runner passes before the entrypoint. Chosen by the runner from the
 * verified runtime version, never by a caller or a skill. Each is documented in {@code docs/runner.md}.
 * {@code --max-old-space-size} is deliberately absent: on Node 20 it added about 20–30 ms to every
 * start-up here (measured, interleaved), more than the whole launch-overhead budget.
 */
public final class NodeFlags {

    /** Oldest supported Node major version. */
    public static final int MIN_MAJOR = 18;

    private NodeFlags() {}

    /**
     * The flags for a runtime of the given version, in order, with the module guard's flags (decision
     * 0510) before the final {@code --} when {@code guardUrl} is present and the version supports it.
     */
    public static List<String> forVersion(int major, int minor, java.util.Optional<String> guardUrl) {
        List<String> flags = new ArrayList<>(forVersion(major, minor));
        if (guardUrl.isPresent() && ModuleGuard.supports(major, minor)) {
            flags.addAll(flags.size() - 1, ModuleGuard.flags(major, minor, guardUrl.get()));
        }
        return List.copyOf(flags);
    }

    /** The fixed flags without the module guard, in order; the last is always {@code --}. */
    public static List<String> forVersion(int major, int minor) {
        if (major < MIN_MAJOR) {
            throw new IllegalArgumentException("Node " + MIN_MAJOR + " or newer is required");
        }
        List<String> flags = new ArrayList<>();
        flags.add("--no-addons");
        flags.add("--no-global-search-paths");
        flags.add("--disable-proto=delete");
        flags.add("--unhandled-rejections=strict");
        if (major > 23 || (major == 23 && minor >= 7) || (major == 22 && minor >= 14)) {
            flags.add("--disable-sigusr1");
        }
        flags.add("--");
        return List.copyOf(flags);
    }
}
