package dev.skillgate.audit;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * How to open an {@link AuditLog}: its directory, the clock that stamps records, whether to open
 * read-only, and how long {@code open} may wait for start-up verification.
 *
 * @param directory the audit directory (created {@code 0700} by a writer when missing)
 * @param clock stamps {@code recordedAt}; display only, never used for ordering or validity
 * @param readOnly open without taking the lock and without changing any file
 * @param openWait how long {@link AuditLog#open(AuditLogOptions)} waits for verification before it
 *     returns a handle in state {@code VERIFYING} (0 to 60 s)
 */
public record AuditLogOptions(Path directory, Clock clock, boolean readOnly, Duration openWait) {
    /** Default {@link #openWait()}: long enough for about 100,000 records on a slow disk. */
    public static final Duration DEFAULT_OPEN_WAIT = Duration.ofSeconds(1);

    public AuditLogOptions {
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(openWait, "openWait");
        if (openWait.isNegative() || openWait.compareTo(Duration.ofSeconds(60)) > 0) {
            throw new IllegalArgumentException("openWait must be 0 to 60 seconds");
        }
    }

    /** A builder for {@code directory} with the defaults: UTC system clock, writable, 1 s wait. */
    public static Builder builder(Path directory) {
        return new Builder(directory);
    }

    /** Builds {@link AuditLogOptions}. */
    public static final class Builder {
        private final Path directory;
        private Clock clock = Clock.systemUTC();
        private boolean readOnly;
        private Duration openWait = DEFAULT_OPEN_WAIT;

        private Builder(Path directory) {
            this.directory = Objects.requireNonNull(directory, "directory");
        }

        /** The clock that stamps records. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Open without the lock and without changing any file. */
        public Builder readOnly(boolean readOnly) {
            this.readOnly = readOnly;
            return this;
        }

        /** How long {@code open} waits for verification. */
        public Builder openWait(Duration openWait) {
            this.openWait = Objects.requireNonNull(openWait, "openWait");
            return this;
        }

        /** The options. */
        public AuditLogOptions build() {
            return new AuditLogOptions(directory, clock, readOnly, openWait);
        }
    }
}
