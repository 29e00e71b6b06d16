package dev.skillgate.model;

import java.util.Objects;
import org.apiguardian.api.API;

/**
 * What the kernel confined for one run (hardening layer L2), part by part. Each part is either
 * enforced by the kernel, not asked for (the contract grants it, or no contract limits it), or asked
 * for but not enforced (the kernel, the supervisor or the policy does not offer it). Not a sandbox:
 * even with every part enforced the script reads every file the host user can, uses UDP and named
 * unix sockets, and runs with the user's identity against the kernel.
 *
 * @param processReach the script in its own user and PID namespace with a private {@code /proc}: it
 *     cannot name, signal, {@code prlimit}, re-schedule or trace the supervisor, the JVM or any process
 *     outside its run
 * @param fileWrites a Landlock write allow-list derived from the contract's {@code permissionMode}
 * @param network Landlock TCP rules: no {@code networkDestinations}, no TCP connect or bind; with
 *     destinations, TCP connect only to their ports (hosts are not checked)
 * @param memory cgroup v2 {@code memory.max} in the run's own cgroup below one the host delegated
 * @param processCount cgroup v2 {@code pids.max} there (a fork bomb ends at the limit)
 * @param cpu cgroup v2 {@code cpu.max} there
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record Confinement(Part processReach, Part fileWrites, Part network, Part memory, Part processCount, Part cpu) {

    /** Nothing confined and nothing asked for (the portable supervisor, nothing started). */
    public static final Confinement NONE = new Confinement(Part.NOT_ENFORCED, Part.NOT_REQUESTED, Part.NOT_REQUESTED);

    /** A supervisor that can enforce no part (its capabilities). */
    public static final Confinement UNAVAILABLE = new Confinement(
            Part.NOT_ENFORCED,
            Part.NOT_ENFORCED,
            Part.NOT_ENFORCED,
            Part.NOT_ENFORCED,
            Part.NOT_ENFORCED,
            Part.NOT_ENFORCED);

    /** The first three parts; no resource limit asked for ({@link Part#NOT_REQUESTED}). */
    public Confinement(Part processReach, Part fileWrites, Part network) {
        this(processReach, fileWrites, network, Part.NOT_REQUESTED, Part.NOT_REQUESTED, Part.NOT_REQUESTED);
    }

    /** The parts, by name. */
    public enum Kind {
        /** {@link Confinement#processReach()}. */
        PROCESS_REACH,
        /** {@link Confinement#fileWrites()}. */
        FILE_WRITES,
        /** {@link Confinement#network()}. */
        NETWORK,
        /** {@link Confinement#memory()}. */
        MEMORY,
        /** {@link Confinement#processCount()}. */
        PROCESS_COUNT,
        /** {@link Confinement#cpu()}. */
        CPU
    }

    /** The outcome of one part. */
    public enum Part {
        /** The kernel enforces it for the whole run. */
        ENFORCED,
        /** Nothing limits it: the contract grants it, or no contract restricts it. */
        NOT_REQUESTED,
        /** Asked for, but the kernel, the supervisor or the policy does not enforce it. */
        NOT_ENFORCED
    }

    public Confinement {
        Objects.requireNonNull(processReach, "processReach");
        Objects.requireNonNull(fileWrites, "fileWrites");
        Objects.requireNonNull(network, "network");
        Objects.requireNonNull(memory, "memory");
        Objects.requireNonNull(processCount, "processCount");
        Objects.requireNonNull(cpu, "cpu");
    }

    /** The outcome of {@code kind}. */
    public Part part(Kind kind) {
        switch (kind) {
            case PROCESS_REACH:
                return processReach;
            case FILE_WRITES:
                return fileWrites;
            case NETWORK:
                return network;
            case MEMORY:
                return memory;
            case PROCESS_COUNT:
                return processCount;
            default:
                return cpu;
        }
    }

    /** Whether any resource limit (memory, process count, CPU) was asked for. */
    public boolean resourcesRequested() {
        return memory != Part.NOT_REQUESTED || processCount != Part.NOT_REQUESTED || cpu != Part.NOT_REQUESTED;
    }

    /** Whether any part is enforced by the kernel. */
    public boolean anyEnforced() {
        for (Kind k : Kind.values()) {
            if (part(k) == Part.ENFORCED) {
                return true;
            }
        }
        return false;
    }
}
