package dev.skillgate.runner.linux.internal;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.CRC32C;

/**
 * Reads {@code u8 type | u32 length | payload} frames from the helper's stdout with hard caps: a
 * length over its type's cap is a protocol fault before a byte of the payload is read. Keeps the
 * CRC-32C of every byte before the end frame so {@link #checkEnd(byte[])} can verify it.
 */
public final class FrameReader {

    /**
     * One raw frame.
     *
     * @param type the frame type
     * @param payload the payload; empty for an output frame read into an {@link OutputSink}
     * @param length the payload's length (for an output frame read into a sink, the bytes it received)
     */
    public record Frame(int type, byte[] payload, int length) {
        public Frame(int type, byte[] payload) {
            this(type, payload, payload.length);
        }
    }

    /**
     * Where stdout and stderr payloads go instead of a fresh array per frame: the driver's
     * fixed-capacity buffers. Asked before the payload is read, so a frame that must not arrive (or
     * does not fit) is refused without reading it.
     */
    interface OutputSink {
        /**
         * The buffer for an output frame of {@code length} bytes of type {@code type}.
         *
         * @throws Frames.MalformedFrameException if the frame is not allowed now or does not fit
         */
        OutputBuffer accept(int type, int length) throws Frames.MalformedFrameException;
    }

    private static final byte[] EMPTY = new byte[0];

    private final InputStream in;
    private final CRC32C crc = new CRC32C();

    public FrameReader(InputStream in) {
        this.in = in;
    }

    /**
     * The next frame. Throws {@link EOFException} when the stream ends (before or inside a frame) and
     * {@link Frames.MalformedFrameException} for an unknown type or a length over its cap.
     */
    public Frame next() throws IOException, Frames.MalformedFrameException {
        return next(null);
    }

    /**
     * The next frame; stdout and stderr payloads are read into the buffers {@code sink} names (when
     * it is not null) and the returned frame carries only their length. Otherwise as {@link #next()}.
     */
    Frame next(OutputSink sink) throws IOException, Frames.MalformedFrameException {
        byte[] head = readExactly(5, true);
        int type = head[0] & 0xFF;
        long len = Frames.u32(head, 1);
        if (len > cap(type)) {
            throw new Frames.MalformedFrameException("frame length over cap for type " + type);
        }
        if (sink != null && (type == Wire.FRAME_STDOUT || type == Wire.FRAME_STDERR)) {
            OutputBuffer target = sink.accept(type, (int) len);
            if (!target.fits(len)) {
                throw new Frames.MalformedFrameException("output beyond the limit");
            }
            int start = target.readFully(in, (int) len);
            crc.update(head);
            crc.update(target.array(), start, (int) len);
            return new Frame(type, EMPTY, (int) len);
        }
        byte[] payload = readExactly((int) len, false);
        if (type != Wire.FRAME_END) {
            crc.update(head);
            crc.update(payload);
        }
        return new Frame(type, payload);
    }

    /** Whether an end frame's payload carries the CRC-32C of everything before it. */
    public boolean checkEnd(byte[] payload) {
        return payload.length == 4 && Frames.u32(payload, 0) == crc.getValue();
    }

    /** Whether the stream is at its end (after the end frame nothing may follow). */
    public boolean atEof() throws IOException {
        return in.read() < 0;
    }

    static long cap(int type) throws Frames.MalformedFrameException {
        switch (type) {
            case Wire.FRAME_HELLO:
                return Wire.HELLO_FIXED + Wire.MAX_VERSION;
            case Wire.FRAME_SPAWNED:
                return Wire.SPAWNED_SIZE;
            case Wire.FRAME_STDOUT:
            case Wire.FRAME_STDERR:
                return Wire.FRAME_MAX_CHUNK;
            case Wire.FRAME_TERMINATING:
                return 1;
            case Wire.FRAME_RESULT:
                return Wire.RESULT_FIXED + Wire.MAX_DETAIL;
            case Wire.FRAME_END:
                return 4;
            default:
                throw new Frames.MalformedFrameException("unknown frame type " + type);
        }
    }

    private byte[] readExactly(int n, boolean eofAllowedAtStart) throws IOException {
        byte[] b = new byte[n];
        int off = 0;
        while (off < n) {
            int r = in.read(b, off, n - off);
            if (r < 0) {
                if (off == 0 && eofAllowedAtStart) {
                    throw new EOFException("end of stream");
                }
                throw new EOFException("truncated frame");
            }
            off += r;
        }
        return b;
    }
}
