package dev.skillgate.runner;

import dev.skillgate.model.Confinement;
import dev.skillgate.model.HardeningLayer;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * What a {@link ProcessSupervisor} can do on this machine.
 *
 * @param available whether it can launch at all here
 * @param provesCleanup whether it can ever report cleanup {@code PROVEN}; the portable supervisor
 *     cannot, because it cannot see re-parented descendants
 * @param hardening the hardening layer runs would get
 * @param detail a short, input-free explanation (kernel features, why unavailable); an unavailable
 *     supervisor's detail starts with the {@code ErrorCode} name that explains it, and one starting
 *     with {@code SUPERVISOR_TAMPERED:} makes the engine refuse every execution
 * @param confinement which parts of kernel confinement (L2) a launch gets when it asks for them:
 *     {@code ENFORCED} for a part the supervisor applies here, {@code NOT_ENFORCED} otherwise; the
 *     runner requires exactly these parts of every launch that asks for them, so what the approval
 *     request showed as enforced is enforced or nothing runs
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record SupervisorCapabilities(
        boolean available, boolean provesCleanup, HardeningLayer hardening, String detail, Confinement confinement) {

    /** Capabilities without any part of kernel confinement ({@link Confinement#UNAVAILABLE}). */
    public SupervisorCapabilities(boolean available, boolean provesCleanup, HardeningLayer hardening, String detail) {
        this(available, provesCleanup, hardening, detail, Confinement.UNAVAILABLE);
    }

    public SupervisorCapabilities {
        Objects.requireNonNull(hardening, "hardening");
        Objects.requireNonNull(detail, "detail");
        Objects.requireNonNull(confinement, "confinement");
        if (!available && provesCleanup) {
            throw new IllegalArgumentException("an unavailable supervisor proves nothing");
        }
    }

    /** A supervisor that cannot run here, and why. */
    public static SupervisorCapabilities unavailable(String detail) {
        return new SupervisorCapabilities(false, false, HardeningLayer.NONE, detail);
    }
}
