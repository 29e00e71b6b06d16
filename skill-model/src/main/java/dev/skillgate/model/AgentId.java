package dev.skillgate.model;

import java.util.Objects;
import org.apiguardian.api.API;

/**
 * Identifies the agent (the host-side actor) on whose behalf a skill is used.
 *
 * <p>1–128 characters from {@code [A-Za-z0-9._:-]}. Part of every consent binding and trust scope;
 * it is a label chosen by the host, not an authentication.
 *
 * @param value the identifier
 */
@API(status = API.Status.STABLE, since = "0.1.0")
public record AgentId(String value) {
    public AgentId {
        Identifiers.check(Objects.requireNonNull(value, "value"), "agent id");
    }

    /** Parses an agent id. */
    public static AgentId of(String value) {
        return new AgentId(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
