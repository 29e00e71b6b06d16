package dev.skillgate.runner;

import dev.skillgate.model.Confinement;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apiguardian.api.API;

/**
 * What the runner asks a supervisor to confine for one launch (hardening layer L2), derived from the
 * skill's trust contract. A supervisor applies each part only where the kernel offers it and reports
 * what it did in {@link SupervisionResult#confinement()}; the portable supervisor applies nothing.
 * Process reach (the script in its own PID namespace) is always asked for and is not a field here.
 *
 * <p>This is not a sandbox: reads are never restricted, nor are UDP and named unix sockets.
 *
 * @param writableDirectories if present, the only directories (absolute real paths) below which the
 *     script may create, change or remove files; empty means writes are not restricted
 * @param tcpConnectPorts if present, the only TCP ports the script may connect to (an empty list: no
 *     TCP connect and no bind at all); empty means TCP is not restricted
 * @param required the parts the supervisor must enforce or refuse the launch before anything runs
 *     ({@code CONFINEMENT_UNAVAILABLE}), whatever its policy: the parts the approval request showed as
 *     enforced. Each must be asked for (process reach always is)
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record LaunchConfinement(
        Optional<List<Path>> writableDirectories,
        Optional<List<Integer>> tcpConnectPorts,
        Set<Confinement.Kind> required) {

    /** Most writable directories. */
    public static final int MAX_DIRECTORIES = 16;

    /** Most TCP ports. */
    public static final int MAX_PORTS = 64;

    /** Nothing restricted but process reach. */
    public static final LaunchConfinement UNRESTRICTED = new LaunchConfinement(Optional.empty(), Optional.empty());

    /** A request that requires no part (each applies where the supervisor's policy and kernel allow). */
    public LaunchConfinement(Optional<List<Path>> writableDirectories, Optional<List<Integer>> tcpConnectPorts) {
        this(writableDirectories, tcpConnectPorts, Set.of());
    }

    public LaunchConfinement {
        required = Set.copyOf(Objects.requireNonNull(required, "required"));
        writableDirectories = Objects.requireNonNull(writableDirectories, "writableDirectories")
                .map(List::copyOf);
        tcpConnectPorts =
                Objects.requireNonNull(tcpConnectPorts, "tcpConnectPorts").map(List::copyOf);
        if (writableDirectories.isPresent()) {
            List<Path> dirs = writableDirectories.get();
            if (dirs.size() > MAX_DIRECTORIES) {
                throw new IllegalArgumentException("at most " + MAX_DIRECTORIES + " writable directories");
            }
            for (Path p : dirs) {
                if (!p.isAbsolute() || p.toString().indexOf('\0') >= 0) {
                    throw new IllegalArgumentException("writable directories must be absolute");
                }
            }
        }
        if (tcpConnectPorts.isPresent()) {
            List<Integer> ports = tcpConnectPorts.get();
            if (ports.size() > MAX_PORTS) {
                throw new IllegalArgumentException("at most " + MAX_PORTS + " TCP ports");
            }
            for (int port : ports) {
                if (port < 1 || port > 65535) {
                    throw new IllegalArgumentException("TCP port out of range");
                }
            }
        }
        if ((required.contains(Confinement.Kind.FILE_WRITES) && writableDirectories.isEmpty())
                || (required.contains(Confinement.Kind.NETWORK) && tcpConnectPorts.isEmpty())) {
            throw new IllegalArgumentException("a required part must be asked for");
        }
    }

    /** The same request, requiring {@code parts} (those of them that it asks for). */
    public LaunchConfinement requiring(Set<Confinement.Kind> parts) {
        EnumSet<Confinement.Kind> r = EnumSet.noneOf(Confinement.Kind.class);
        for (Confinement.Kind k : parts) {
            if (k == Confinement.Kind.PROCESS_REACH
                    || (k == Confinement.Kind.FILE_WRITES && writableDirectories.isPresent())
                    || (k == Confinement.Kind.NETWORK && tcpConnectPorts.isPresent())) {
                r.add(k);
            }
        }
        return new LaunchConfinement(writableDirectories, tcpConnectPorts, r);
    }
}
