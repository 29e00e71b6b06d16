package dev.skillgate.runner;

import java.util.Objects;
import org.apiguardian.api.API;

/**
 * The identity of the process that owns a run's tree: its pid, a start-time token that tells it
 * apart from a later process reusing the pid (on Linux, field 22 of {@code /proc/PID/stat}), and
 * an attempt (fencing) token unique to this launch.
 *
 * <p>The runner writes this identity into the staging directory's ownership record, which accepts
 * tokens of 1–128 characters from {@code [A-Za-z0-9._:+-]}; other tokens make the recording fail
 * (and so the launch). The staging janitor understands two start-token formats: {@code jdk:<epoch
 * millis>} (from {@link ProcessHandle.Info#startInstant()}) and a bare decimal (field 22 of
 * {@code /proc/PID/stat}); with any other format it cannot prove the owner dead and keeps the
 * directory.
 *
 * @param pid the owner's pid (the helper's, or the JVM's for the portable supervisor)
 * @param startTimeToken the owner's start time as the platform reports it
 * @param attemptToken a token unique to this launch attempt
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record SupervisorIdentity(long pid, String startTimeToken, String attemptToken) {
    public SupervisorIdentity {
        Objects.requireNonNull(startTimeToken, "startTimeToken");
        Objects.requireNonNull(attemptToken, "attemptToken");
        if (pid <= 0) {
            throw new IllegalArgumentException("pid must be positive");
        }
        if (startTimeToken.isEmpty() || attemptToken.isEmpty()) {
            throw new IllegalArgumentException("tokens must not be empty");
        }
    }
}
