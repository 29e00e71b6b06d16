package dev.skillgate.inspect;

import dev.skillgate.inspect.internal.Walker;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Finds skills under several roots, inertly.
 *
 * <p><b>Precedence:</b> roots are searched in the order given; when two loadable skills share a
 * name, the first found wins (an earlier root, or earlier in one root's walk order: depth-first,
 * entries in code point order of their names) and the other is reported as a {@link
 * ShadowedSkill}. <b>What counts:</b> a directory holding a file named exactly {@code SKILL.md};
 * failing that, {@code skill.md} (reported); with {@link DiscoveryOptions#legacyFlatFiles()}, a
 * {@code NAME.md} file directly in a root that starts with {@code ---} (a non-portable legacy
 * skill with no bundle directory). Other files (a root's {@code README.md}) are ignored; names
 * starting with {@code .} and {@code node_modules} are skipped.
 *
 * <p><b>Inertness:</b> discovery lists directories and reads each candidate's skill file through
 * the {@link BoundedReader}; it never executes, imports or installs anything, never follows a
 * link (links are reported), never opens a FIFO, socket or device, and stops at the configured
 * depth and entry bounds (reported). Candidates that are not loadable are returned with their
 * reports. The result is deterministic for a given tree. Discovery is not a snapshot: the tree
 * may change afterwards.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class SkillDiscovery {
    private SkillDiscovery() {}

    /** Discovers skills under the roots of {@code options}. */
    public static DiscoveryResult discover(DiscoveryOptions options) {
        return Walker.discover(Objects.requireNonNull(options, "options"));
    }
}
