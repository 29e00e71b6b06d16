package dev.skillgate.consent.spi;

import dev.skillgate.consent.PolicyLoad;
import dev.skillgate.consent.PolicySettings;
import dev.skillgate.consent.internal.PolicyCodec;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * The stored form of a policy, for {@link PolicyStore} implementations that keep it elsewhere than
 * the default file (a database row, a KMS-backed blob): the same strict JSON the file holds, so every
 * store reads exactly what the file store reads.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public final class PolicyDocuments {
    /** The most bytes a stored policy may have. */
    public static final int MAX_BYTES = PolicyCodec.MAX_BYTES;

    private PolicyDocuments() {}

    /** The stored bytes of {@code settings} (UTF-8 JSON). */
    public static byte[] encode(PolicySettings settings) {
        return PolicyCodec.encode(Objects.requireNonNull(settings, "settings"));
    }

    /**
     * Decodes stored bytes strictly: {@code FOUND} with the settings, or {@code UNUSABLE} with
     * {@code POLICY_CORRUPT} for anything malformed, oversized or of an unknown version. Never throws
     * for bad data.
     */
    public static PolicyLoad decode(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        if (bytes.length > MAX_BYTES) {
            return PolicyLoad.unusable(
                    dev.skillgate.model.ErrorCode.POLICY_CORRUPT, "the stored policy exceeds " + MAX_BYTES + " bytes");
        }
        return PolicyCodec.decode(bytes.clone());
    }
}
