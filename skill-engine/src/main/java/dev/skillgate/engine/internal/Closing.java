package dev.skillgate.engine.internal;

import java.util.concurrent.CompletableFuture;

/**
 * The gate's closing state: a flag every step before a launch checks, and a signal that wakes every
 * execution and activation waiting for a human. Closing happens in two phases ({@code SkillGate.close}):
 * {@link #mark()} first — nothing new starts, and a check from now on refuses with {@code
 * ENGINE_CLOSED} — then, after the drain listed and stopped the in-flight executions, {@link #wake()}.
 * Thread-safe. Not API.
 */
final class Closing {
    private volatile boolean closed;
    /** Completed when the gate closes: wakes every execution and activation waiting for a human. */
    private final CompletableFuture<Void> signal = new CompletableFuture<>();

    /** Marks the gate closed; waiting callers are not woken yet. */
    void mark() {
        closed = true;
    }

    /** Wakes every caller waiting on {@link #signal()}. */
    void wake() {
        signal.complete(null);
    }

    boolean isClosed() {
        return closed;
    }

    /** Completes (with null) once {@link #wake()} ran; never completes exceptionally. */
    CompletableFuture<Void> signal() {
        return signal;
    }
}
