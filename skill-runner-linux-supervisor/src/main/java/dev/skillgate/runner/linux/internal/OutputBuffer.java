package dev.skillgate.runner.linux.internal;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * A fixed-capacity capture buffer for one of the child's output streams (SPEC §10 step 4): one array
 * of exactly the stream's limit, allocated once, never grown. Frame payloads are read straight into
 * it; a payload that does not fit is refused before any of its bytes are read, so the byte that does
 * not fit is where an overflow is detected. Not thread-safe: only the driver thread writes it.
 */
final class OutputBuffer {
    private final byte[] bytes;
    private int size;

    OutputBuffer(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("negative capacity");
        }
        this.bytes = new byte[capacity];
    }

    /** Bytes captured so far. */
    int size() {
        return size;
    }

    /** Whether {@code n} more bytes fit. */
    boolean fits(long n) {
        return n >= 0 && size + n <= bytes.length;
    }

    /**
     * Reads exactly {@code n} bytes from {@code in} into the buffer and returns the offset they start
     * at. The caller has checked {@link #fits}.
     *
     * @throws EOFException if the stream ends first (what arrived stays captured)
     */
    int readFully(InputStream in, int n) throws IOException {
        if (!fits(n)) {
            throw new IllegalStateException("the payload does not fit; check fits() first");
        }
        int start = size;
        int end = start + n;
        while (size < end) {
            int r = in.read(bytes, size, end - size);
            if (r < 0) {
                throw new EOFException("truncated frame");
            }
            size += r;
        }
        return start;
    }

    /** The buffer's array, for checksumming a region just read; never handed out. */
    byte[] array() {
        return bytes;
    }

    /**
     * The captured bytes for the {@code SupervisionResult} constructor, which copies them (the one
     * defensive copy at the SPI boundary): the buffer itself when it is exactly full (a stream that
     * reached its limit), otherwise a copy of the filled prefix.
     */
    byte[] forResult() {
        return size == bytes.length ? bytes : Arrays.copyOf(bytes, size);
    }
}
