package dev.skillgate.engine.internal;

import dev.skillgate.engine.ExecutionEvent;
import dev.skillgate.engine.ExecutionListener;
import dev.skillgate.engine.LaunchAuthority;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.runner.ProgressEvent;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Delivers execution events to the host's {@link ExecutionListener}, isolated (decision 0762):
 * whatever the listener throws, {@code Error} included, is contained and logged once per exception
 * class; only the JVM's own fatal errors go on. A listener never changes an outcome, a cleanup report
 * or an audit record. Thread-safe. Not API.
 */
final class Listeners {
    private final ExecutionListener listener;
    private final Set<String> failures = new HashSet<>(); // guarded by itself

    Listeners(ExecutionListener listener) {
        this.listener = listener;
    }

    void emit(Execution e, ExecutionEvent.Kind kind, List<ErrorCode> codes, Optional<ProgressEvent> progress) {
        emit(e, kind, codes, progress, Optional.empty());
    }

    void emit(
            Execution e,
            ExecutionEvent.Kind kind,
            List<ErrorCode> codes,
            Optional<ProgressEvent> progress,
            Optional<LaunchAuthority> authority) {
        try {
            listener.onEvent(new ExecutionEvent(e.run(), e.skill(), kind, codes, progress, authority));
        } catch (RuntimeException | Error t) {
            // A faulty listener never changes an outcome, a cleanup report or an audit record (decision
            // 0762): whatever it throws, Error included, is contained; only the JVM's own fatal errors go on.
            if (t instanceof VirtualMachineError && !(t instanceof StackOverflowError)) {
                throw t;
            }
            failed(t);
        }
    }

    /** Logs a listener failure once per exception class (bounded: at most 64 classes are remembered). */
    private void failed(Throwable t) {
        String name = t.getClass().getName();
        boolean first;
        synchronized (failures) {
            first = failures.size() < 64 && failures.add(name);
        }
        if (first) {
            EngineLog.LOG.log(
                    System.Logger.Level.WARNING,
                    "skillgate: the host''s ExecutionListener threw {0}; it changes no outcome and is logged once",
                    name);
        }
    }
}
