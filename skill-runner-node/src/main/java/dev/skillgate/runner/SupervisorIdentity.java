package dev.skillgate.runner;

import java.util.Objects;

/**
 * The identity of the process that owns a run's tree: its pid, a start-time token that tells it
 * apart from a later process reusing the pid (on Linux, field 22 of {@code /proc/PID/stat}), and
 * an attempt (fencing) token unique to this launch.
 *
 * @param pid the owner's pid (the helper's, or the JVM's for the portable supervisor)
 * @param startTimeToken the owner's start time as the platform reports it
 * @param attemptToken a token unique to this launch attempt
 */
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
