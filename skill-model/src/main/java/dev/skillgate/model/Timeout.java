package dev.skillgate.model;

import java.time.Duration;
import org.apiguardian.api.API;

/**
 * An execution deadline in milliseconds, measured from spawn on a monotonic clock.
 *
 * <p>Allowed range {@value #MIN_MILLIS}–{@value #MAX_MILLIS} ms, default {@value #DEFAULT_MILLIS}.
 * Out-of-range values are rejected, never clamped.
 *
 * @param millis the deadline in milliseconds
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record Timeout(int millis) implements Comparable<Timeout> {
    /** Shortest deadline. */
    public static final int MIN_MILLIS = 1_000;
    /** Longest deadline. */
    public static final int MAX_MILLIS = 120_000;
    /** Deadline when the manifest names none. */
    public static final int DEFAULT_MILLIS = 60_000;
    /** The default deadline. */
    public static final Timeout DEFAULT = new Timeout(DEFAULT_MILLIS);

    public Timeout {
        if (millis < MIN_MILLIS || millis > MAX_MILLIS) {
            throw new InvalidValueException(
                    ErrorCode.LIMIT_OUT_OF_RANGE,
                    "timeout must be " + MIN_MILLIS + "-" + MAX_MILLIS + " ms, was " + millis);
        }
    }

    /** Validates a value from untrusted input (e.g. a JSON number that may not fit an int). */
    public static Timeout ofMillis(long millis) {
        if (millis < MIN_MILLIS || millis > MAX_MILLIS) {
            throw new InvalidValueException(
                    ErrorCode.LIMIT_OUT_OF_RANGE, "timeout must be " + MIN_MILLIS + "-" + MAX_MILLIS + " ms");
        }
        return new Timeout((int) millis);
    }

    /** This deadline as a duration. */
    public Duration toDuration() {
        return Duration.ofMillis(millis);
    }

    @Override
    public int compareTo(Timeout other) {
        return Integer.compare(millis, other.millis);
    }
}
