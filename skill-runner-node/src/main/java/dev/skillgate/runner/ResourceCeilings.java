package dev.skillgate.runner;

import java.util.OptionalLong;
import org.apiguardian.api.API;

/**
 * Optional rlimit ceilings for the child (the Linux helper applies them with {@code setrlimit};
 * the portable supervisor cannot and ignores them, which the envelope's hardening layer shows).
 * {@code RLIMIT_CORE} is always 0 and {@code RLIMIT_AS} is never set (it breaks Node).
 *
 * @param cpuSeconds {@code RLIMIT_CPU}
 * @param dataBytes {@code RLIMIT_DATA}
 * @param fileSizeBytes {@code RLIMIT_FSIZE}
 * @param openFiles {@code RLIMIT_NOFILE}
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record ResourceCeilings(
        OptionalLong cpuSeconds, OptionalLong dataBytes, OptionalLong fileSizeBytes, OptionalLong openFiles) {

    /** No ceilings beyond {@code RLIMIT_CORE=0}. */
    public static final ResourceCeilings NONE = new ResourceCeilings(
            OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty());

    public ResourceCeilings {
        for (OptionalLong v : new OptionalLong[] {cpuSeconds, dataBytes, fileSizeBytes, openFiles}) {
            if (v == null || (v.isPresent() && v.getAsLong() <= 0)) {
                throw new IllegalArgumentException("ceilings must be positive when present");
            }
        }
    }
}
