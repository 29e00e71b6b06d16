package dev.skillgate.consent.shared;

import org.apiguardian.api.API;

/**
 * A monotonic nanosecond source for consent windows.
 *
 * <p>Only differences between two readings mean anything. The system ticker is
 * {@link System#nanoTime()}, which wall-clock changes (NTP steps, manual changes, suspend
 * adjustments) do not move; wall time ({@link java.time.Clock}) is used for display only. Tests
 * inject a fake. A reading lower than an earlier one is treated as an expired window (fail
 * closed), never as extra time.
 */
@FunctionalInterface
@API(status = API.Status.INTERNAL, since = "0.1.0")
public interface Ticker {
    /** The current reading in nanoseconds. */
    long nanos();

    /** The JVM's monotonic clock. */
    static Ticker system() {
        return System::nanoTime;
    }
}
