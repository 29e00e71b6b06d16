package dev.skillgate.engine.internal;

/**
 * The engine's logger, made at the first line logged (decision 0882): {@code System.getLogger}
 * starts {@code java.util.logging} (its manager, levels and configuration), about 10 ms of a cold
 * CLI start, and the engine logs only when something goes wrong. Not API.
 */
final class EngineLog {
    /** {@code dev.skillgate.engine}, initialised with this class, so at its first use. */
    static final System.Logger LOG = System.getLogger("dev.skillgate.engine");

    private EngineLog() {}
}
