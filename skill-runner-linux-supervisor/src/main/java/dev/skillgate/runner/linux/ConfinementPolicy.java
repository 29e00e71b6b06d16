package dev.skillgate.runner.linux;

import org.apiguardian.api.API;

/**
 * Whether the helper applies hardening layer L2 — kernel confinement of the script, part by part —
 * before it starts it. The parts: process reach (its own user and PID namespace with a private
 * {@code /proc}), file writes (a Landlock allow-list derived from the launch's
 * {@link dev.skillgate.runner.LaunchConfinement}) and TCP (Landlock network rules). Each part applies
 * only where the kernel offers it and is reported on its own in every result
 * ({@link dev.skillgate.runner.SupervisionResult#confinement()}).
 *
 * <p>Not a sandbox: reads, UDP, named unix sockets and the kernel's own attack surface stay
 * reachable (docs/threat-model.md, "L2").
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public enum ConfinementPolicy {
    /**
     * Refuse a launch that asks for a part the kernel does not offer, before anything runs
     * ({@code CONFINEMENT_UNAVAILABLE}).
     */
    REQUIRE,
    /** Apply every part the kernel offers and report the others as not enforced. The default. */
    PREFER,
    /** Apply no part of L2 (the launch gets L1 or L0). */
    OFF
}
