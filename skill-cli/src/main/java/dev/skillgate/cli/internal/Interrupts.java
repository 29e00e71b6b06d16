package dev.skillgate.cli.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * Ctrl-C (SIGINT) and SIGTERM while {@code skillgate run} waits for a script (decision 0638): instead
 * of the JVM's shutdown, which ended the command before the run settled, the handler asks the run to
 * stop and lets the command wait for the real outcome. A second signal ends the command at once
 * (exit 130), naming what is left behind. Uses {@code sun.misc.Signal} ({@code jdk.unsupported});
 * where that is unavailable nothing is installed and the JVM's default applies.
 */
final class Interrupts implements AutoCloseable {
    private final List<Object[]> previous = new ArrayList<>();

    private Interrupts() {}

    /**
     * Installs {@code onSignal} for SIGINT and SIGTERM until {@link #close()}; it is called with the
     * signal's name on a JVM signal thread.
     */
    static Interrupts install(java.util.function.Consumer<String> onSignal) {
        Interrupts installed = new Interrupts();
        for (String name : new String[] {"INT", "TERM"}) {
            try {
                sun.misc.Signal signal = new sun.misc.Signal(name);
                sun.misc.SignalHandler old = sun.misc.Signal.handle(signal, new Relay(onSignal));
                installed.previous.add(new Object[] {signal, old});
            } catch (IllegalArgumentException | LinkageError e) {
                // The signal is reserved here (e.g. -Xrs) or the API is missing: the default applies.
            }
        }
        return installed;
    }

    /** Hands a signal's name on; a class, not a lambda, on the path of every run (decision 0895). */
    private static final class Relay implements sun.misc.SignalHandler {
        private final java.util.function.Consumer<String> onSignal;

        Relay(java.util.function.Consumer<String> onSignal) {
            this.onSignal = onSignal;
        }

        @Override
        public void handle(sun.misc.Signal signal) {
            onSignal.accept(signal.getName());
        }
    }

    /** Restores the handlers that were there before. */
    @Override
    public void close() {
        for (Object[] p : previous) {
            try {
                sun.misc.Signal.handle((sun.misc.Signal) p[0], (sun.misc.SignalHandler) p[1]);
            } catch (IllegalArgumentException e) {
                // nothing to restore
            }
        }
        previous.clear();
    }
}
