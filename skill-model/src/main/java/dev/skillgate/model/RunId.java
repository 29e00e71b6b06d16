package dev.skillgate.model;

import java.util.Objects;
import java.util.UUID;
import org.apiguardian.api.API;

/**
 * Identifies one live agent run: the scope of a consent ledger (SPEC §8).
 *
 * <p>1–128 characters from {@code [A-Za-z0-9._:-]}, so it is safe in file names, logs and
 * messages. A new ledger for the same run id knows no old grants; run ids are not secrets.
 *
 * @param value the identifier
 */
@API(status = API.Status.STABLE, since = "0.1.0")
public record RunId(String value) {
    public RunId {
        Identifiers.check(Objects.requireNonNull(value, "value"), "run id");
    }

    /** A fresh random run id. */
    public static RunId random() {
        return new RunId(UUID.randomUUID().toString());
    }

    /** Parses a run id. */
    public static RunId of(String value) {
        return new RunId(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
