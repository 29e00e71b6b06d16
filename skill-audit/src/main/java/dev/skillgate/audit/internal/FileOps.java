package dev.skillgate.audit.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The durable writes of the log, behind a seam so that tests can inject faults (disk full, a failed
 * fsync) where a real tmpfs cannot be mounted. Production code uses {@link #REAL} only.
 */
interface FileOps {
    /** Writes all of {@code src} at {@code position}. */
    void write(FileChannel channel, ByteBuffer src, long position) throws IOException;

    /** {@link FileChannel#force}. */
    void force(FileChannel channel, boolean metadata) throws IOException;

    /** An atomic rename replacing {@code to}. */
    void move(Path from, Path to) throws IOException;

    /** fsync of a directory, so a rename in it is durable. */
    void syncDirectory(Path dir) throws IOException;

    FileOps REAL = new FileOps() {
        @Override
        public void write(FileChannel channel, ByteBuffer src, long position) throws IOException {
            long at = position;
            while (src.hasRemaining()) {
                at += channel.write(src, at);
            }
        }

        @Override
        public void force(FileChannel channel, boolean metadata) throws IOException {
            channel.force(metadata);
        }

        @Override
        public void move(Path from, Path to) throws IOException {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }

        @Override
        public void syncDirectory(Path dir) throws IOException {
            try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
                ch.force(true);
            }
        }
    };
}
