package dev.skillgate.audit.internal;

import dev.skillgate.audit.AuditSink;
import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.AuditStatus;
import dev.skillgate.audit.ExportedRecord;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Export to audit sinks (decision 0370): every committed record is handed to every configured sink,
 * in order, after it is committed locally; any failure halts the handle ({@link
 * AuditState#EXPORT_HALTED}: nothing trusted, appends refused) until {@link #resume()} delivers
 * what the sinks missed.
 *
 * <p>Each sink runs on its own thread, each call bounded by the sink timeout; a sink that hangs is
 * abandoned with its thread. The just-committed record is handed over from memory; anything older
 * (after a fault recovery or a halt) is read back from the verified log. A sink never sees a record
 * that is not committed, and nothing here changes the log. Worker-confined apart from {@link
 * #shutdown()}.
 */
final class Exporter {
    /** One configured sink: its own thread, and the last sequence number it acknowledged. */
    private static final class SinkSlot {
        private static final AtomicInteger SINK_THREADS = new AtomicInteger();
        final AuditSink sink;
        final String name;
        /** Replaced after a timeout, so a hung call never blocks the next export. */
        volatile ExecutorService executor;
        /** Worker-confined. */
        long exportedThrough;

        SinkSlot(AuditSink sink, String name) {
            this.sink = sink;
            this.name = name;
            this.executor = newExecutor();
        }

        private ExecutorService newExecutor() {
            return Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "skillgate-audit-sink-" + name + "-" + SINK_THREADS.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }

        void abandonThread() {
            ExecutorService old = executor;
            executor = newExecutor();
            old.shutdownNow();
        }
    }

    private final LogState state;
    private final Path log;
    private final List<SinkSlot> sinks;
    private final long sinkTimeoutNanos;
    /** The view to return to when an export halt is lifted; null while exports are not halted. */
    private LogState.View beforeHalt;

    /**
     * @throws IllegalArgumentException when a sink's name is not acceptable ({@link SinkNames})
     */
    Exporter(LogState state, Path log, List<AuditSink> sinks, Duration sinkTimeout) {
        this.state = state;
        this.log = log;
        List<SinkSlot> slots = new ArrayList<>();
        for (AuditSink sink : sinks) {
            slots.add(new SinkSlot(sink, SinkNames.checked(sink)));
        }
        this.sinks = List.copyOf(slots);
        this.sinkTimeoutNanos = sinkTimeout.toNanos();
    }

    /** Every sink starts after record {@code sequence} (0: with the log's first record). */
    void startAfter(long sequence) {
        sinks.forEach(slot -> slot.exportedThrough = sequence);
    }

    /**
     * Hands every committed record a sink has not acknowledged to it, unless exports are halted.
     *
     * @param justCommitted the record the current task committed, or null
     */
    void exportCommitted(ExportedRecord justCommitted) {
        if (beforeHalt == null) {
            exportPending(justCommitted);
        }
    }

    /** Delivers what the sinks missed and, when all accept, lifts an export halt. */
    AuditStatus resume() {
        if (beforeHalt == null) {
            return state.view().status();
        }
        LogState.View restore = beforeHalt;
        if (!exportPending(null)) {
            return state.view().status();
        }
        beforeHalt = null;
        state.show(restore);
        return state.view().status();
    }

    /** Stops every sink thread (at close). */
    void shutdown() {
        sinks.forEach(slot -> slot.executor.shutdownNow());
    }

    /** Returns whether every sink acknowledged everything committed; halts when not. */
    private boolean exportPending(ExportedRecord justCommitted) {
        Head head = state.head;
        if (sinks.isEmpty() || head == null) {
            return true;
        }
        long through = head.sequence();
        List<String> failures = new ArrayList<>();
        List<ExportedRecord> backlog = null;
        for (SinkSlot slot : sinks) {
            if (slot.exportedThrough >= through) {
                continue;
            }
            List<ExportedRecord> todo;
            if (justCommitted != null && justCommitted.sequence() == through && slot.exportedThrough == through - 1) {
                todo = List.of(justCommitted);
            } else {
                if (backlog == null) {
                    long from = through;
                    for (SinkSlot s : sinks) {
                        from = Math.min(from, s.exportedThrough);
                    }
                    backlog = LogReader.exported(log, head, from);
                }
                todo = new ArrayList<>();
                for (ExportedRecord r : backlog) {
                    if (r.sequence() > slot.exportedThrough) {
                        todo.add(r);
                    }
                }
                if (todo.isEmpty() || todo.get(todo.size() - 1).sequence() != through) {
                    failures.add("the committed records after seq " + slot.exportedThrough
                            + " could not be read back for export to sink '" + slot.name + "'");
                    continue;
                }
            }
            for (ExportedRecord r : todo) {
                String failure = deliver(slot, r);
                if (failure != null) {
                    failures.add("the export of seq " + r.sequence() + " to sink '" + slot.name + "' " + failure
                            + "; the record is committed locally and is delivered again by resumeExport");
                    break;
                }
                slot.exportedThrough = r.sequence();
            }
        }
        if (!failures.isEmpty()) {
            halt(failures);
            return false;
        }
        return true;
    }

    /** Calls the sink on its own thread, bounded; null when it accepted, else why not (input-free). */
    private String deliver(SinkSlot slot, ExportedRecord record) {
        Future<Void> f;
        try {
            f = slot.executor.submit(() -> {
                slot.sink.export(record);
                return null;
            });
        } catch (RejectedExecutionException e) {
            return "could not be started";
        }
        try {
            f.get(sinkTimeoutNanos, TimeUnit.NANOSECONDS);
            return null;
        } catch (TimeoutException e) {
            f.cancel(true);
            slot.abandonThread();
            return "did not return within " + TimeUnit.NANOSECONDS.toMillis(sinkTimeoutNanos) + " ms";
        } catch (ExecutionException e) {
            return "failed (" + e.getCause().getClass().getSimpleName() + ")";
        } catch (CancellationException e) {
            return "was cancelled";
        } catch (InterruptedException e) {
            // Only a stray interrupt reaches this thread; the worker clears it before each task.
            f.cancel(true);
            slot.abandonThread();
            return "was interrupted";
        }
    }

    /** Publishes {@link AuditState#EXPORT_HALTED}: nothing trusted, appends refused. */
    private void halt(List<String> failures) {
        if (beforeHalt == null) {
            beforeHalt = state.view();
        }
        LogState.View before = beforeHalt;
        List<Diagnostic> d = new ArrayList<>();
        for (String f : failures) {
            d.add(Diagnostic.error(ErrorCode.AUDIT_SINK_FAILED, "", f));
        }
        d.add(Diagnostic.error(
                ErrorCode.AUDIT_SINK_FAILED,
                "",
                "nothing is trusted and appends are refused until the export resumes (an operator's resumeExport)"));
        d.addAll(before.status().diagnostics());
        state.show(new LogState.View(
                new AuditStatus(
                        AuditState.EXPORT_HALTED,
                        false,
                        before.status().committedSequence(),
                        before.status().logId(),
                        OptionalLong.empty(),
                        d),
                before.trust(),
                before.head(),
                d.get(0)));
    }
}
