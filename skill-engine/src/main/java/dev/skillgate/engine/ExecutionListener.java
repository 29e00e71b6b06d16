package dev.skillgate.engine;

import org.apiguardian.api.API;

/**
 * Receives {@link ExecutionEvent}s. Called on engine and runner threads; must be quick. An
 * exception it throws is ignored and never changes an outcome.
 */
@FunctionalInterface
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public interface ExecutionListener {
    /** A listener that ignores everything. */
    ExecutionListener NONE = event -> {};

    /** One event. */
    void onEvent(ExecutionEvent event);
}
