package dev.skillgate.inspect.internal;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The direct windows the verification pass re-reads files through (decision 0241), kept for the
 * next capture instead of allocated twice per capture (decision 0876).
 *
 * <p>At most {@link #KEPT} windows of {@link #BYTES} bytes are kept, in one process-wide array; a
 * thread {@link #take takes} one for itself (never shared: a window is in the array or in one
 * thread's hands) and {@link #give gives} it back zeroed, so no bundle bytes outlive the pass in a
 * kept window. More windows than that, or a window that is never given back (an error), are left to
 * the garbage collector as before. Not guaranteed: that a window is ever reused.
 */
public final class VerifyWindows {
    /** The window: 64 KiB, as decision 0241 sized it. */
    public static final int BYTES = 64 * 1024;

    /** Windows kept: two per capture at a time (the capturing thread and its hash worker), two captures. */
    static final int KEPT = 4;

    private static final AtomicReferenceArray<ByteBuffer> FREE = new AtomicReferenceArray<>(KEPT);
    private static final byte[] ZEROS = new byte[BYTES];

    private VerifyWindows() {}

    /** A direct window of {@link #BYTES} bytes that only the calling thread holds, zeroed. */
    public static ByteBuffer take() {
        for (int i = 0; i < KEPT; i++) {
            ByteBuffer window = FREE.getAndSet(i, null);
            if (window != null) {
                return window;
            }
        }
        return ByteBuffer.allocateDirect(BYTES);
    }

    /**
     * Zeroes {@code window} (which the caller must no longer use) and keeps it, if there is room;
     * only windows {@link #take} gave out are accepted.
     */
    public static void give(ByteBuffer window) {
        if (!window.isDirect() || window.capacity() != BYTES) {
            throw new IllegalArgumentException("not a verification window");
        }
        window.clear();
        window.put(ZEROS);
        window.clear();
        for (int i = 0; i < KEPT; i++) {
            if (FREE.compareAndSet(i, null, window)) {
                return;
            }
        }
    }

    /** How many windows are kept now; for tests. */
    static int kept() {
        int n = 0;
        for (int i = 0; i < KEPT; i++) {
            n += FREE.get(i) == null ? 0 : 1;
        }
        return n;
    }
}
