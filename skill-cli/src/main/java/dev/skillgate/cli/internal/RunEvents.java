package dev.skillgate.cli.internal;

import dev.skillgate.engine.ExecutionEvent;
import dev.skillgate.engine.ExecutionListener;
import dev.skillgate.engine.LaunchAuthority;
import dev.skillgate.runner.ProgressEvent;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What {@code skillgate run} keeps of the execution's events: the launch authority (a receipt is
 * announced on the terminal before the script starts), the script's captured stderr for {@code
 * --show-stderr}, and the live progress line. Before the first event it prints the run's header, once
 * (decision 0867). Events arrive on the engine's threads; every field is safe to read from another.
 */
final class RunEvents implements ExecutionListener {
    private final PrintStream talk;
    private final Path shownDataDir;

    private Runnable header;
    private boolean headerPrinted;
    private volatile LaunchAuthority authority;
    private volatile ProgressEvent.Stderr scriptStderr;
    private volatile ProgressLine progress;

    /** Events of a run whose receipt lines go to {@code talk}, naming {@code shownDataDir}. */
    RunEvents(PrintStream talk, Path shownDataDir) {
        this.talk = talk;
        this.shownDataDir = shownDataDir;
    }

    @Override
    public void onEvent(ExecutionEvent event) {
        printHeaderIfNotYet();
        Optional<LaunchAuthority> given = event.authority();
        if (given.isPresent()) {
            LaunchAuthority a = given.get();
            authority = a;
            if (a instanceof LaunchAuthority.TrustedRevision receipt) {
                RunReport.printReceipt(talk, receipt, shownDataDir);
            }
        }
        Optional<ProgressEvent> shown = event.progress();
        if (shown.isPresent() && shown.get() instanceof ProgressEvent.Stderr p) {
            scriptStderr = p;
        }
        ProgressLine line = progress;
        if (line != null) {
            line.on(event);
        }
    }

    /** The header to print before anything else the execution prints; set before the execution starts. */
    synchronized void header(Runnable print) {
        this.header = print;
    }

    /** Prints the header unless it was printed; a print from another thread waits for the one in progress. */
    synchronized void printHeaderIfNotYet() {
        if (header != null && !headerPrinted) {
            headerPrinted = true;
            header.run();
        }
    }

    /** The live progress line, when standard error is a terminal (decision 0641). */
    void progress(ProgressLine line) {
        this.progress = line;
    }

    /** Closes the progress line, if there is one; later events no longer draw it. */
    void closeProgress() {
        ProgressLine line = progress;
        progress = null;
        if (line != null) {
            line.close();
        }
    }

    /** The launch authority the execution announced, if it got as far. */
    Optional<LaunchAuthority> authority() {
        return Optional.ofNullable(authority);
    }

    /** The script's captured stderr, if the script started and the run settled. */
    Optional<ProgressEvent.Stderr> scriptStderr() {
        return Optional.ofNullable(scriptStderr);
    }
}
