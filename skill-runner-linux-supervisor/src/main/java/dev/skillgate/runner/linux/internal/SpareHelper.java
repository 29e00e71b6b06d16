package dev.skillgate.runner.linux.internal;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * At most one helper process started ahead of time, so a launch does not wait for the JDK to spawn
 * it. A spare is started like any helper ({@link HelperImage#start}: the verified open file, checked
 * after its start, then sealed) and then blocks reading its request; it starts nothing and records
 * nothing until a launch hands it one. A launch that takes a spare still checks the file at rest
 * first, so tampering is reported at the next launch; the spare is then discarded with it. Closing a
 * spare's stdin makes it exit without starting anything; so does the JVM's exit.
 *
 * <p>It also keeps the live helpers this JVM started and verified (the spare and every helper a
 * launch took or started), as witnesses for {@link HelperImage}: while one of them still runs the
 * helper file, starting another helper or checking the file at rest compares identities instead of
 * hashing the bytes (decision 0838). A new spare is therefore started as soon as a launch has its
 * helper, while that helper lives, rather than after the run.
 *
 * <p>A limit on the spares started over its life (decision 0865): a one-shot caller that will make
 * one launch asks for one, so no second spare is started while its script runs and retired unused at
 * close. Once the limit is spent, {@link #replenish} does nothing and each launch starts its own
 * helper, exactly as with no spare.
 */
final class SpareHelper {
    private final HelperLauncher launcher;
    private final boolean enabled;
    private final ExecutorService threads;
    /** Spares this may still start; {@link Long#MAX_VALUE} for no limit. */
    private final AtomicLong startsLeft;

    private final AtomicReference<HelperImage.Started> spare = new AtomicReference<>();
    private final Live live = new Live();
    private volatile boolean closed;

    SpareHelper(HelperLauncher launcher, boolean enabled, ExecutorService threads) {
        this(launcher, enabled, Long.MAX_VALUE, threads);
    }

    /** As above, starting at most {@code maxStarts} spares over this object's life ({@code >= 0}). */
    SpareHelper(HelperLauncher launcher, boolean enabled, long maxStarts, ExecutorService threads) {
        if (maxStarts < 0) {
            throw new IllegalArgumentException("maxStarts < 0");
        }
        this.launcher = launcher;
        this.enabled = enabled;
        this.startsLeft = new AtomicLong(maxStarts);
        this.threads = threads;
    }

    /** A live spare if there is one (after a check at rest), otherwise a freshly started helper. */
    HelperImage.Start take(HelperInstaller.Installed installed) {
        HelperImage.Started s = spare.getAndSet(null);
        if (s != null && s.process().isAlive()) {
            // The spare itself is the witness: if it still runs the file found at rest, unchanged,
            // that file's bytes are the ones it was verified with (decision 0838).
            Optional<HelperInstaller.Unavailable> atRest = HelperImage.checkAtRest(installed, Optional.of(s));
            if (atRest.isPresent()) {
                retire(s.process());
                return new HelperImage.Refused(atRest.get());
            }
            return s;
        }
        if (s != null) {
            retire(s.process());
        }
        return HelperImage.start(installed, launcher, List.of(), live);
    }

    /** Starts a new spare in the background if enabled, none is waiting and the limit allows one. */
    void replenish(HelperInstaller.Installed installed) {
        if (!enabled || closed || spare.get() != null || !takeStart()) {
            return;
        }
        threads.execute(() -> {
            if (closed || spare.get() != null) {
                return;
            }
            // A refusal leaves no spare; the next launch starts its own helper and reports why.
            if (HelperImage.start(installed, launcher, List.of(), live) instanceof HelperImage.Started s) {
                if (!spare.compareAndSet(null, s)) {
                    retire(s.process());
                } else if (closed) {
                    // Closed while this spare was starting: the close's discard may have run before
                    // the spare was set, so it is retired here; nothing outlives close().
                    discard();
                }
            }
        });
    }

    /** Spends one of the starts left, if any (a spent start is not given back, even if it fails). */
    private boolean takeStart() {
        long left;
        do {
            left = startsLeft.get();
            if (left == 0) {
                return false;
            }
        } while (left != Long.MAX_VALUE && !startsLeft.compareAndSet(left, left - 1));
        return true;
    }

    /**
     * No spare from now on: the waiting one, if any, exits without starting anything, and none is
     * started again. Launches still work; each starts its own helper. Idempotent.
     */
    void close() {
        closed = true;
        discard();
    }

    /** Drops the waiting spare, if any. */
    void discard() {
        HelperImage.Started s = spare.getAndSet(null);
        if (s != null) {
            retire(s.process());
        }
    }

    /** The launch that used {@code helper} is over: it no longer vouches for anything. */
    void ended(HelperImage.Started helper) {
        live.helpers.remove(helper);
    }

    /**
     * The verified helpers that may still be alive; dead ones are dropped on each look-up. Whether a
     * witness still runs the file is decided by {@link HelperImage#stillRuns} at its use, not here.
     */
    private static final class Live implements HelperImage.Witnesses {
        final Set<HelperImage.Started> helpers = ConcurrentHashMap.newKeySet();

        @Override
        public Optional<HelperImage.Started> any() {
            helpers.removeIf(h -> !h.process().isAlive());
            return helpers.stream().findFirst();
        }

        @Override
        public void add(HelperImage.Started started) {
            helpers.add(started);
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
