package dev.skillgate.cli.internal;

import dev.skillgate.engine.ExecutionEvent;
import dev.skillgate.runner.ProgressEvent;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The live progress line of {@code skillgate run} on a terminal (decision 0641): one line on standard
 * error, rewritten in place ({@code \r}, erase to end of line) as the run is staged, started,
 * producing output and terminating — elapsed time against the manifest's deadline and output bytes
 * against its limit — and erased before the outcome is printed. Shown only when standard error of
 * this process is a terminal, never on a pipe or a file, never under {@code --json}. It prints counts
 * and states only, never output.
 */
final class ProgressLine implements AutoCloseable {
    private final PrintStream err;
    private final String skill;
    private final long deadlineMillis;
    private final long limitBytes;
    private final ScheduledExecutorService ticker;
    private String phase = "waiting";
    private long startedNanos;
    private long outputBytes;
    private boolean shown;

    private ProgressLine(PrintStream err, String skill, long deadlineMillis, long limitBytes) {
        this.err = err;
        this.skill = skill;
        this.deadlineMillis = deadlineMillis;
        this.limitBytes = limitBytes;
        this.ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "skillgate-progress");
            t.setDaemon(true);
            return t;
        });
        ticker.scheduleAtFixedRate(this::tick, 250, 250, TimeUnit.MILLISECONDS);
    }

    /** A progress line, or none when standard error is not a terminal (or {@code enabled} is false). */
    static java.util.Optional<ProgressLine> open(
            boolean enabled, PrintStream err, String skill, long deadlineMillis, long limitBytes) {
        return enabled && stderrIsTerminal()
                ? java.util.Optional.of(new ProgressLine(err, skill, deadlineMillis, limitBytes))
                : java.util.Optional.empty();
    }

    /** Whether file descriptor 2 of this process is a terminal ({@code /dev/pts/N}, {@code /dev/ttyN}). */
    static boolean stderrIsTerminal() {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }

    /** Follows one engine event. */
    synchronized void on(ExecutionEvent event) {
        if (event.progress().isEmpty()) {
            return;
        }
        ProgressEvent p = event.progress().get();
        if (p instanceof ProgressEvent.Staged) {
            phase = "staged";
        } else if (p instanceof ProgressEvent.Started) {
            phase = "running";
            startedNanos = System.nanoTime();
        } else if (p instanceof ProgressEvent.OutputBytes o) {
            outputBytes = o.stdoutBytes();
        } else if (p instanceof ProgressEvent.Terminating t) {
            phase = "terminating (" + t.reason().name().toLowerCase(java.util.Locale.ROOT) + ")";
        } else if (p instanceof ProgressEvent.Settled) {
            clear();
            phase = "settled";
            return;
        }
        render();
    }

    private synchronized void tick() {
        if (startedNanos != 0 && !phase.equals("settled")) {
            render();
        }
    }

    private void render() {
        StringBuilder line = new StringBuilder("\r\u001b[K")
                .append(Args.safe(skill))
                .append(": ")
                .append(phase);
        if (startedNanos != 0) {
            long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
            line.append(String.format(
                    java.util.Locale.ROOT, ", %.1f s of %.1f s", elapsed / 1000.0, deadlineMillis / 1000.0));
            line.append(", output ")
                    .append(outputBytes)
                    .append(" of ")
                    .append(limitBytes)
                    .append(" bytes");
        }
        err.print(line);
        err.flush();
        shown = true;
    }

    private void clear() {
        if (shown) {
            err.print("\r\u001b[K");
            err.flush();
            shown = false;
        }
    }

    @Override
    public synchronized void close() {
        ticker.shutdownNow();
        clear();
    }
}
