package dev.skillgate.runner.linux.internal;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicReference;

/**
 * At most one helper process started ahead of time, so a launch does not wait for the JDK to spawn
 * it. A spare is started like any helper ({@link HelperImage#start}: the verified open file, checked
 * after its start, then sealed) and then blocks reading its request; it starts nothing and records
 * nothing until a launch hands it one. A launch that takes a spare still checks the file at rest
 * first, so tampering is reported at the next launch; the spare is then discarded with it. Closing a
 * spare's stdin makes it exit without starting anything; so does the JVM's exit.
 */
final class SpareHelper {
    private final HelperLauncher launcher;
    private final boolean enabled;
    private final ExecutorService threads;
    private final AtomicReference<Process> spare = new AtomicReference<>();

    SpareHelper(HelperLauncher launcher, boolean enabled, ExecutorService threads) {
        this.launcher = launcher;
        this.enabled = enabled;
        this.threads = threads;
    }

    /** A live spare if there is one (after a check at rest), otherwise a freshly started helper. */
    HelperImage.Start take(HelperInstaller.Installed installed) {
        Process p = spare.getAndSet(null);
        if (p != null && p.isAlive()) {
            Optional<HelperInstaller.Unavailable> atRest = HelperImage.checkAtRest(installed);
            if (atRest.isPresent()) {
                retire(p);
                return new HelperImage.Refused(atRest.get());
            }
            return new HelperImage.Started(p);
        }
        if (p != null) {
            retire(p);
        }
        return HelperImage.start(installed, launcher, List.of());
    }

    /** Starts a new spare in the background if enabled and none is waiting. */
    void replenish(HelperInstaller.Installed installed) {
        if (!enabled || spare.get() != null) {
            return;
        }
        threads.execute(() -> {
            if (spare.get() != null) {
                return;
            }
            // A refusal leaves no spare; the next launch starts its own helper and reports why.
            if (HelperImage.start(installed, launcher, List.of()) instanceof HelperImage.Started s
                    && !spare.compareAndSet(null, s.process())) {
                retire(s.process());
            }
        });
    }

    /** Drops the waiting spare, if any. */
    void discard() {
        Process p = spare.getAndSet(null);
        if (p != null) {
            retire(p);
        }
    }

    private static void retire(Process p) {
        try {
            p.getOutputStream().close(); // EOF before a request: the helper exits, nothing started
        } catch (java.io.IOException e) {
            p.destroyForcibly();
        }
    }
}
