package dev.skillgate.engine;

/**
 * Receives {@link ExecutionEvent}s. Called on engine and runner threads; must be quick. An
 * exception it throws is ignored and never changes an outcome.
 */
@FunctionalInterface
public interface ExecutionListener {
    /** A listener that ignores everything. */
    ExecutionListener NONE = event -> {};

    /** One event. */
    void onEvent(ExecutionEvent event);
}
