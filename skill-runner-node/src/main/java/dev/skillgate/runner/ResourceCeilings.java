package dev.skillgate.runner;

import java.util.OptionalLong;
import org.apiguardian.api.API;

/**
 * Optional rlimit ceilings for the child (the Linux helper applies them with {@code setrlimit};
 * the portable supervisor cannot and ignores them, which the envelope's hardening layer shows).
 * {@code RLIMIT_CORE} is always 0 and {@code RLIMIT_AS} is never set (it breaks Node). The last three
 * are cgroup v2 limits of the whole run (hardening layer L2, resources): the Linux supervisor applies
 * them only in a cgroup subtree the host delegated to it, where the controller is available, and
 * reports each as its own confinement part; otherwise they are reported not enforced.
 *
 * @param cpuSeconds {@code RLIMIT_CPU}
 * @param dataBytes {@code RLIMIT_DATA}
 * @param fileSizeBytes {@code RLIMIT_FSIZE}
 * @param openFiles {@code RLIMIT_NOFILE}
 * @param memoryBytes cgroup {@code memory.max} for the whole run
 * @param processes cgroup {@code pids.max} for the whole run (at most 4,194,304)
 * @param cpuPercent cgroup {@code cpu.max}: percent of one CPU per 100 ms period (1 to 102,400)
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record ResourceCeilings(
        OptionalLong cpuSeconds,
        OptionalLong dataBytes,
        OptionalLong fileSizeBytes,
        OptionalLong openFiles,
        OptionalLong memoryBytes,
        OptionalLong processes,
        OptionalLong cpuPercent) {

    /** Most {@link #processes()}. */
    public static final long MAX_PROCESSES = 4_194_304L;

    /** Most {@link #cpuPercent()}. */
    public static final long MAX_CPU_PERCENT = 102_400L;

    /** No ceilings beyond {@code RLIMIT_CORE=0}. */
    public static final ResourceCeilings NONE = new ResourceCeilings(
            OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty());

    /** Rlimit ceilings only, no cgroup limit. */
    public ResourceCeilings(
            OptionalLong cpuSeconds, OptionalLong dataBytes, OptionalLong fileSizeBytes, OptionalLong openFiles) {
        this(
                cpuSeconds,
                dataBytes,
                fileSizeBytes,
                openFiles,
                OptionalLong.empty(),
                OptionalLong.empty(),
                OptionalLong.empty());
    }

    public ResourceCeilings {
        for (OptionalLong v :
                new OptionalLong[] {cpuSeconds, dataBytes, fileSizeBytes, openFiles, memoryBytes, processes, cpuPercent
                }) {
            if (v == null || (v.isPresent() && v.getAsLong() <= 0)) {
                throw new IllegalArgumentException("ceilings must be positive when present");
            }
        }
        if (processes.orElse(0) > MAX_PROCESSES || cpuPercent.orElse(0) > MAX_CPU_PERCENT) {
            throw new IllegalArgumentException("cgroup ceiling out of range");
        }
    }

    /** The same rlimits with these cgroup limits (each optional). */
    public ResourceCeilings withCgroupLimits(
            OptionalLong memoryBytes, OptionalLong processes, OptionalLong cpuPercent) {
        return new ResourceCeilings(
                cpuSeconds, dataBytes, fileSizeBytes, openFiles, memoryBytes, processes, cpuPercent);
    }
}
