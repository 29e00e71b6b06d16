package dev.skillgate.audit.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/** Positional, read-only access to log bytes: a file channel, or bytes in memory for tests and fuzzing. */
interface Source {
    /** Reads into {@code dst} from {@code position}; returns the count, or -1 at the end. */
    int read(ByteBuffer dst, long position) throws IOException;

    /** The current size in bytes. */
    long size() throws IOException;

    static Source of(FileChannel channel) {
        return new Source() {
            @Override
            public int read(ByteBuffer dst, long position) throws IOException {
                return channel.read(dst, position);
            }

            @Override
            public long size() throws IOException {
                return channel.size();
            }
        };
    }

    static Source of(byte[] bytes) {
        return new Source() {
            @Override
            public int read(ByteBuffer dst, long position) {
                if (position >= bytes.length) {
                    return -1;
                }
                int n = (int) Math.min(dst.remaining(), bytes.length - position);
                dst.put(bytes, (int) position, n);
                return n;
            }

            @Override
            public long size() {
                return bytes.length;
            }
        };
    }
}
