package dev.skillgate.runner;

/**
 * Receives {@link ProgressEvent}s of one execution. Called on runner and supervisor threads; must
 * be quick; exceptions it throws are ignored. It is a progress feed, not an event store.
 */
@FunctionalInterface
public interface ProgressListener {

    /** A listener that ignores everything. */
    ProgressListener NONE = event -> {};

    /** One event. */
    void onEvent(ProgressEvent event);
}
