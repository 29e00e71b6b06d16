package dev.skillgate.runner;

import dev.skillgate.model.HardeningLayer;
import dev.skillgate.runner.internal.PortableRun;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * The portable supervisor: {@link ProcessBuilder} with an argument array, stdin written then closed,
 * bounded concurrent draining of stdout and stderr, a monotonic deadline, and termination of the
 * script and every descendant it could see through {@link ProcessHandle} (SIGTERM, 1,000 ms grace,
 * SIGKILL).
 *
 * <p><b>It never proves cleanup.</b> A descendant that was re-parented (double fork, {@code setsid})
 * is invisible to {@link ProcessHandle}, so every run it supervises reports cleanup
 * {@code UNKNOWN} and can never succeed. The script also shares the JVM's process group and
 * session (a {@link ProcessBuilder} cannot create new ones): a script that signals its own process
 * group ({@code kill(0, …)}) signals the JVM. Resource ceilings are ignored and the hardening layer
 * is {@code NONE}. Use it only where no proving supervisor exists and the host has opted in
 * ({@code NodeRunner.Builder#acceptUnprovenCleanup}). Not a sandbox.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class PortableSupervisor implements ProcessSupervisor {

    private static final SupervisorCapabilities CAPABILITIES = new SupervisorCapabilities(
            true,
            false,
            HardeningLayer.NONE,
            "portable: ProcessBuilder and ProcessHandle; re-parented descendants are invisible, cleanup is never"
                    + " proven");

    private PortableSupervisor() {}

    /** A portable supervisor. */
    public static PortableSupervisor create() {
        return new PortableSupervisor();
    }

    @Override
    public String name() {
        return "portable";
    }

    @Override
    public SupervisorCapabilities capabilities() {
        return CAPABILITIES;
    }

    @Override
    public SupervisedRun launch(LaunchSpec spec, SupervisionListener listener) {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(listener, "listener");
        return PortableRun.start(spec, listener);
    }
}
