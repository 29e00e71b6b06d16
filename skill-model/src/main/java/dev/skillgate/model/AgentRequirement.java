package dev.skillgate.model;

import java.util.Objects;
import org.apiguardian.api.API;

/**
 * An agent kind and the inclusive SemVer range of its versions a contract supports.
 *
 * @param kind the agent kind (a host-defined label, 1–64 characters from {@code [a-z0-9._-]})
 * @param minVersion lowest supported version, inclusive
 * @param maxVersion highest supported version, inclusive
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public record AgentRequirement(String kind, SemVer minVersion, SemVer maxVersion) {
    public AgentRequirement {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(minVersion, "minVersion");
        Objects.requireNonNull(maxVersion, "maxVersion");
        if (!kind.matches("[a-z0-9][a-z0-9._-]{0,63}")) {
            throw new InvalidValueException(ErrorCode.CONTRACT_TYPE, "agent kind must be 1-64 of [a-z0-9._-]");
        }
        if (minVersion.compareTo(maxVersion) > 0) {
            throw new InvalidValueException(ErrorCode.CONTRACT_SEMVER, "minVersion is above maxVersion");
        }
    }

    /** Whether an agent of {@code agentKind} at {@code version} falls inside this requirement. */
    public boolean accepts(String agentKind, SemVer version) {
        return kind.equals(agentKind) && minVersion.compareTo(version) <= 0 && version.compareTo(maxVersion) <= 0;
    }
}
