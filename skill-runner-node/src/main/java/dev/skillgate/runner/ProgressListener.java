package dev.skillgate.runner;

import org.apiguardian.api.API;

/**
 * Receives {@link ProgressEvent}s of one execution. Called on runner and supervisor threads; must
 * be quick; exceptions it throws are ignored. It is a progress feed, not an event store.
 */
@FunctionalInterface
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public interface ProgressListener {

    /** A listener that ignores everything. */
    ProgressListener NONE = event -> {};

    /** One event. */
    void onEvent(ProgressEvent event);
}
