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

    /** One raw frame. */
    public record Frame(int type, byte[] payload) {}

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
        byte[] head = readExactly(5, true);
        int type = head[0] & 0xFF;
        long len = Frames.u32(head, 1);
        if (len > cap(type)) {
            throw new Frames.MalformedFrameException("frame length over cap for type " + type);
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
