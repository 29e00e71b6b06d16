package dev.skillgate.model;

import org.apiguardian.api.API;

/**
 * The most stdout bytes a script may write; one byte more terminates the run as
 * {@link ErrorCode#OUTPUT_LIMIT}.
 *
 * <p>Allowed range {@value #MIN_BYTES}–{@value #MAX_BYTES} bytes, default {@value #DEFAULT_BYTES}.
 * Out-of-range values are rejected, never clamped.
 *
 * @param bytes the bound in bytes
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record OutputLimit(int bytes) implements Comparable<OutputLimit> {
    /** Smallest bound. */
    public static final int MIN_BYTES = 1;
    /** Largest bound (256 KiB). */
    public static final int MAX_BYTES = 262_144;
    /** Bound when the manifest names none (64 KiB). */
    public static final int DEFAULT_BYTES = 65_536;
    /** The default bound. */
    public static final OutputLimit DEFAULT = new OutputLimit(DEFAULT_BYTES);

    public OutputLimit {
        if (bytes < MIN_BYTES || bytes > MAX_BYTES) {
            throw new InvalidValueException(
                    ErrorCode.LIMIT_OUT_OF_RANGE,
                    "maxOutputBytes must be " + MIN_BYTES + "-" + MAX_BYTES + ", was " + bytes);
        }
    }

    /** Validates a value from untrusted input (e.g. a JSON number that may not fit an int). */
    public static OutputLimit ofBytes(long bytes) {
        if (bytes < MIN_BYTES || bytes > MAX_BYTES) {
            throw new InvalidValueException(
                    ErrorCode.LIMIT_OUT_OF_RANGE, "maxOutputBytes must be " + MIN_BYTES + "-" + MAX_BYTES);
        }
        return new OutputLimit((int) bytes);
    }

    @Override
    public int compareTo(OutputLimit other) {
        return Integer.compare(bytes, other.bytes);
    }
}
