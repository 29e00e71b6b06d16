package dev.skillgate.workflow;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apiguardian.api.API;

/**
 * Who owns a workflow: the instance, the host it runs on, and — where the process can name itself —
 * its process identity.
 *
 * <p>The host id says whether a process identity can be checked here: only an owner on the same host
 * (same host id) can be proven dead by its pid and start token; any other owner is remote, and only
 * the expiry of its lease lets another instance take over.
 *
 * @param instance the owning instance
 * @param hostId the owner's host id ({@code [a-z0-9][a-z0-9.-]{0,63}}; by default a digest of the
 *     machine id and boot id, so a reboot is another host)
 * @param process the owner's process identity, when it has one
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record OwnerIdentity(InstanceId instance, String hostId, Optional<ProcessIdentity> process) {
    /** The pattern a host id matches. */
    public static final Pattern HOST = Pattern.compile("[a-z0-9][a-z0-9.-]{0,63}");

    public OwnerIdentity {
        Objects.requireNonNull(instance, "instance");
        Objects.requireNonNull(hostId, "hostId");
        Objects.requireNonNull(process, "process");
        if (!HOST.matcher(hostId).matches()) {
            throw new IllegalArgumentException("a host id is 1-64 of [a-z0-9.-], starting with [a-z0-9]");
        }
    }

    /** Whether {@code other} is exactly this owner (same instance, host and process). */
    public boolean sameAs(OwnerIdentity other) {
        return equals(other);
    }
}
