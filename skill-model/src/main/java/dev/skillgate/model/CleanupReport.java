package dev.skillgate.model;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * What the supervisor observed about the end of a run's process tree.
 *
 * <p>{@link CleanupStatus#PROVEN} is reported only on positive evidence; anything less is
 * {@link CleanupStatus#UNKNOWN}, never "OK". When cleanup is not proven the staging directory is
 * retained and named here, so an operator can find it.
 *
 * @param status proven, unknown or not started
 * @param descendantsSeen descendants the supervisor observed (including the script itself)
 * @param detachedSeen whether any descendant had left the script's process group or session
 * @param retainedStaging the staging directory kept because cleanup was not proven
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record CleanupReport(
        CleanupStatus status, int descendantsSeen, boolean detachedSeen, Optional<Path> retainedStaging) {

    public CleanupReport {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(retainedStaging, "retainedStaging");
        if (descendantsSeen < 0) {
            throw new IllegalArgumentException("descendantsSeen must not be negative");
        }
        if (status == CleanupStatus.NOT_STARTED && (descendantsSeen != 0 || detachedSeen)) {
            throw new IllegalArgumentException("nothing started, so no descendants can have been seen");
        }
    }

    /** The report for a run that never started a process. */
    public static CleanupReport notStarted() {
        return new CleanupReport(CleanupStatus.NOT_STARTED, 0, false, Optional.empty());
    }

    /** A proven cleanup. */
    public static CleanupReport proven(int descendantsSeen, boolean detachedSeen) {
        return new CleanupReport(CleanupStatus.PROVEN, descendantsSeen, detachedSeen, Optional.empty());
    }

    /** An unproven cleanup, with the staging directory that was kept (if any). */
    public static CleanupReport unknown(int descendantsSeen, boolean detachedSeen, Optional<Path> retainedStaging) {
        return new CleanupReport(CleanupStatus.UNKNOWN, descendantsSeen, detachedSeen, retainedStaging);
    }
}
