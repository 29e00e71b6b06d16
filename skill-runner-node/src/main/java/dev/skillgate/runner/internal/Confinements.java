package dev.skillgate.runner.internal;

import dev.skillgate.model.Confinement;
import dev.skillgate.model.NetworkDestination;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.SkillContract;
import dev.skillgate.runner.LaunchConfinement;
import dev.skillgate.runner.ResourceCeilings;
import dev.skillgate.runner.SupervisorCapabilities;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The confinement a launch asks for, derived from the skill's trust contract (decision 0541):
 * {@code read-only} — writes only below the run's own {@code HOME} and {@code TMPDIR};
 * {@code workspace-write} — those and the workspace; {@code full-access} or no contract — writes not
 * restricted. A contract without {@code networkDestinations} asks for no TCP at all; with some, TCP
 * connect to their ports only (hosts cannot be expressed). No contract: TCP not restricted.
 */
public final class Confinements {
    private Confinements() {}

    /**
     * The parts {@code caps} says a launch gets when it asks: the approval request shows them as
     * enforced, and the runner requires them of the launch.
     */
    public static Set<Confinement.Kind> offered(SupervisorCapabilities caps) {
        EnumSet<Confinement.Kind> out = EnumSet.noneOf(Confinement.Kind.class);
        for (Confinement.Kind k : Confinement.Kind.values()) {
            if (caps.confinement().part(k) == Confinement.Part.ENFORCED) {
                out.add(k);
            }
        }
        return out;
    }

    /**
     * {@code c} also requiring the cgroup limits the approval request showed as enforced (decision
     * 0544): each one {@code ceilings} asks for whose part is offered, when a file-write allow-list
     * is asked for and offered (without it the helper never reports a limit enforced).
     */
    public static LaunchConfinement requiringLimits(
            LaunchConfinement c, Set<Confinement.Kind> offered, ResourceCeilings ceilings) {
        if (c.writableDirectories().isEmpty() || !offered.contains(Confinement.Kind.FILE_WRITES)) {
            return c;
        }
        EnumSet<Confinement.Kind> r = EnumSet.noneOf(Confinement.Kind.class);
        r.addAll(c.required());
        if (ceilings.memoryBytes().isPresent() && offered.contains(Confinement.Kind.MEMORY)) {
            r.add(Confinement.Kind.MEMORY);
        }
        if (ceilings.processes().isPresent() && offered.contains(Confinement.Kind.PROCESS_COUNT)) {
            r.add(Confinement.Kind.PROCESS_COUNT);
        }
        if (ceilings.cpuPercent().isPresent() && offered.contains(Confinement.Kind.CPU)) {
            r.add(Confinement.Kind.CPU);
        }
        return new LaunchConfinement(c.writableDirectories(), c.tcpConnectPorts(), r);
    }

    /** What to ask the supervisor for; {@code home}, {@code tmp} and {@code workspace} are real paths. */
    public static LaunchConfinement forContract(Optional<SkillContract> contract, Path home, Path tmp, Path workspace) {
        if (contract.isEmpty()) {
            return LaunchConfinement.UNRESTRICTED;
        }
        SkillContract c = contract.get();
        Optional<List<Path>> writes;
        if (c.permissionMode() == PermissionMode.FULL_ACCESS) {
            writes = Optional.empty();
        } else if (c.permissionMode() == PermissionMode.WORKSPACE_WRITE) {
            writes = Optional.of(List.of(home, tmp, workspace));
        } else {
            writes = Optional.of(List.of(home, tmp));
        }
        List<Integer> ports = c.networkDestinations().stream()
                .map(NetworkDestination::port)
                .distinct()
                .sorted()
                .limit(LaunchConfinement.MAX_PORTS)
                .toList();
        return new LaunchConfinement(writes, Optional.of(ports));
    }
}
