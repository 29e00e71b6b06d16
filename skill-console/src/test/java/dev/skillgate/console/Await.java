package dev.skillgate.console;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Polls a condition until it holds: liveness only, with a generous deadline (never a timing assertion). */
final class Await {
    static final Duration WAIT = Duration.ofSeconds(60);

    private Await() {}

    /** Returns once {@code condition} holds; fails the test, naming {@code what}, after {@link #WAIT}. */
    static void until(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
