package dev.skillgate.audit;

import dev.skillgate.audit.internal.SinkNames;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apiguardian.api.API;

/**
 * How to open an {@link AuditLog}: its directory, the clock that stamps records, whether to open
 * read-only, how long {@code open} may wait for start-up verification, and the sinks that receive
 * every committed record.
 *
 * @param directory the audit directory (created {@code 0700} by a writer when missing)
 * @param clock stamps {@code recordedAt}; display only, never used for ordering or validity
 * @param readOnly open without taking the lock and without changing any file
 * @param openWait how long {@link AuditLog#open(AuditLogOptions)} waits for verification before it
 *     returns a handle in state {@code VERIFYING} (0 to 60 s)
 * @param sinks the exports, called in this order for each committed record (distinct names, at most
 *     {@value #MAX_SINKS}; none for a read-only handle, which never commits)
 * @param sinkTimeout how long one {@link AuditSink#export} call may take before it counts as a
 *     failure (1 ms to 60 s)
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record AuditLogOptions(
        Path directory, Clock clock, boolean readOnly, Duration openWait, List<AuditSink> sinks, Duration sinkTimeout) {
    /** Default {@link #openWait()}: long enough for about 100,000 records on a slow disk. */
    public static final Duration DEFAULT_OPEN_WAIT = Duration.ofSeconds(1);

    /** Default {@link #sinkTimeout()}. */
    public static final Duration DEFAULT_SINK_TIMEOUT = Duration.ofSeconds(5);

    /** The most sinks one log exports to. */
    public static final int MAX_SINKS = 8;

    public AuditLogOptions {
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(openWait, "openWait");
        Objects.requireNonNull(sinkTimeout, "sinkTimeout");
        sinks = List.copyOf(sinks);
        if (openWait.isNegative() || openWait.compareTo(Duration.ofSeconds(60)) > 0) {
            throw new IllegalArgumentException("openWait must be 0 to 60 seconds");
        }
        if (sinkTimeout.compareTo(Duration.ofMillis(1)) < 0 || sinkTimeout.compareTo(Duration.ofSeconds(60)) > 0) {
            throw new IllegalArgumentException("sinkTimeout must be 1 ms to 60 seconds");
        }
        if (sinks.size() > MAX_SINKS) {
            throw new IllegalArgumentException("at most " + MAX_SINKS + " audit sinks");
        }
        if (readOnly && !sinks.isEmpty()) {
            throw new IllegalArgumentException("a read-only audit log commits nothing, so it takes no sinks");
        }
        Set<String> names = new HashSet<>();
        for (AuditSink sink : sinks) {
            String name = SinkNames.checked(sink);
            if (!names.add(name)) {
                throw new IllegalArgumentException("two audit sinks are named " + name);
            }
        }
    }

    /** Options without sinks (the form before sinks existed). */
    public AuditLogOptions(Path directory, Clock clock, boolean readOnly, Duration openWait) {
        this(directory, clock, readOnly, openWait, List.of(), DEFAULT_SINK_TIMEOUT);
    }

    /** A builder for {@code directory} with the defaults: UTC system clock, writable, 1 s wait, no sinks. */
    public static Builder builder(Path directory) {
        return new Builder(directory);
    }

    /** Builds {@link AuditLogOptions}. */
    public static final class Builder {
        private final Path directory;
        private Clock clock = Clock.systemUTC();
        private boolean readOnly;
        private Duration openWait = DEFAULT_OPEN_WAIT;
        private final List<AuditSink> sinks = new ArrayList<>();
        private Duration sinkTimeout = DEFAULT_SINK_TIMEOUT;

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

        /** Adds a sink that receives every committed record, after those added before. */
        public Builder sink(AuditSink sink) {
            sinks.add(Objects.requireNonNull(sink, "sink"));
            return this;
        }

        /** Adds sinks, in order, after those added before. */
        public Builder sinks(List<? extends AuditSink> more) {
            more.forEach(this::sink);
            return this;
        }

        /** How long one export may take before it counts as a failure (default 5 s). */
        public Builder sinkTimeout(Duration sinkTimeout) {
            this.sinkTimeout = Objects.requireNonNull(sinkTimeout, "sinkTimeout");
            return this;
        }

        /** The options. */
        public AuditLogOptions build() {
            return new AuditLogOptions(directory, clock, readOnly, openWait, sinks, sinkTimeout);
        }
    }
}
