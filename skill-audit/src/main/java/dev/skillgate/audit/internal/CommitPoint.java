package dev.skillgate.audit.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the commit point: {@code audit.head} is replaced atomically (a new {@code 0600} temporary
 * file, forced, renamed over the old one, the directory synced). A record is committed exactly
 * when the head naming it is durable; a crash before the rename leaves the old head, after it the
 * new one, never a mix. Through {@link FileOps} so that tests can inject faults.
 */
final class CommitPoint {
    private final Path dir;
    private final FileOps ops;

    CommitPoint(Path dir, FileOps ops) {
        this.dir = dir;
        this.ops = ops;
    }

    /** Makes {@code h} the durable commit point. */
    void write(Head h) throws IOException {
        Path tmp = dir.resolve(AuditDirectory.HEAD_TMP);
        Files.deleteIfExists(tmp);
        try (FileChannel ch = AuditDirectory.create(tmp, false)) {
            ops.write(ch, ByteBuffer.wrap(h.encode()), 0);
            ops.force(ch, true);
        }
        ops.move(tmp, dir.resolve(AuditDirectory.HEAD));
        ops.syncDirectory(dir);
    }
}
