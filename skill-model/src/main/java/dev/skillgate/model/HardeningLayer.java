package dev.skillgate.model;

import org.apiguardian.api.API;

/**
 * Which supervisor hardening layer applied to a run (SPEC §11). None of them is a sandbox: a
 * consented script always runs with the host user's file and network access.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public enum HardeningLayer {
    /** No supervisor hardening (nothing started, or the portable supervisor). */
    NONE,
    /** Non-dumpable helper, {@code NO_NEW_PRIVS}, new session, rlimits, exec of the verified binary by fd. */
    L0,
    /** L0 plus Landlock signal and abstract-socket scoping: the script cannot signal the helper or the JVM. */
    L1,
    /**
     * L1 plus at least one part of kernel confinement ({@link Confinement}): the script's own user and
     * PID namespace, a Landlock write allow-list, Landlock TCP rules. Which parts applied is reported
     * part by part; reads, UDP, named unix sockets and the kernel itself stay reachable.
     */
    L2
}
