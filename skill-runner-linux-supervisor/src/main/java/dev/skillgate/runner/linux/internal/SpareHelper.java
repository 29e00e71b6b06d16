package dev.skillgate.runner.linux.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicReference;

/**
 * At most one helper process started ahead of time, so a launch does not wait for the JDK to spawn
 * it. A spare is verified (digest, modes) right before it is started and then blocks reading its
 * request; it starts nothing and records nothing until a launch hands it one. The on-disk helper is
 * still verified before every launch; if that fails the spare is discarded with the launch.
 * Closing a spare's stdin makes it exit without starting anything; so does the JVM's exit.
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

    /** A live spare if there is one, otherwise a freshly started helper. */
    Process take(Path helper) throws IOException {
        Process p = spare.getAndSet(null);
        if (p != null && p.isAlive()) {
            return p;
        }
        if (p != null) {
            retire(p);
        }
        return launcher.start(helper);
    }

    /** Starts a new spare in the background if enabled and none is waiting. */
    void replenish(HelperInstaller.Installed installed) {
        if (!enabled || spare.get() != null) {
            return;
        }
        threads.execute(() -> {
            if (spare.get() != null || HelperInstaller.verify(installed).isPresent()) {
                return;
            }
            try {
                Process p = launcher.start(installed.binary());
                if (!spare.compareAndSet(null, p)) {
                    retire(p);
                }
            } catch (IOException e) {
                // The next launch starts its own helper and reports why if it cannot.
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
        } catch (IOException e) {
            p.destroyForcibly();
        }
    }
}
