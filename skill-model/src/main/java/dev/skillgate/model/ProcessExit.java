package dev.skillgate.model;

import org.apiguardian.api.API;

/**
 * How the script's own process ended, when known.
 *
 * <p>Sealed: {@link Code}, {@link Signal} or {@link NotObserved}. Knowing the exit says nothing
 * about descendants; see {@link CleanupReport}.
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public sealed interface ProcessExit {

    /** The process exited with a code. */
    record Code(int code) implements ProcessExit {}

    /** The process was ended by a signal. */
    record Signal(int signal) implements ProcessExit {
        public Signal {
            if (signal <= 0 || signal > 128) {
                throw new IllegalArgumentException("signal must be 1-128");
            }
        }
    }

    /** The exit was not observed (never started, or the supervisor lost track). */
    record NotObserved() implements ProcessExit {}

    /** An exit with {@code code}. */
    static ProcessExit code(int code) {
        return new Code(code);
    }

    /** An end by {@code signal}. */
    static ProcessExit signal(int signal) {
        return new Signal(signal);
    }

    /** No exit observed. */
    static ProcessExit notObserved() {
        return new NotObserved();
    }

    /** Whether this is exit code 0. */
    default boolean isSuccess() {
        return this instanceof Code c && c.code() == 0;
    }
}
