package dev.skillgate.runner.linux;

import org.apiguardian.api.API;

/**
 * Whether the helper applies hardening layer L1: a Landlock ruleset that scopes signals and
 * abstract unix sockets to the script's own process tree (Landlock ABI 6, Linux 6.12+).
 *
 * <p>With L1 a script running as the host user cannot signal the helper or the JVM, cannot
 * {@code kill(-1)} outside its tree, and cannot read {@code /proc/<pid>/environ} of processes outside
 * its domain. L1 is not a sandbox: files and the network stay reachable.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public enum LandlockPolicy {
    /** Refuse to launch (capabilities unavailable, {@code HARDENING_UNAVAILABLE}) when L1 is not possible. */
    REQUIRE,
    /** Apply L1 when the kernel offers it, otherwise run with L0 and say so in every result. The default. */
    PREFER,
    /** Never apply L1 (layer L0). */
    OFF
}
