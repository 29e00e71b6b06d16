package dev.skillgate.audit.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The single-writer rule: an in-JVM registry of audit directories open for writing, and the
 * exclusive {@link FileLock} on {@code audit.lock} that keeps other processes out.
 *
 * <p>The writer holds the lock through one channel for its whole life. Nothing else in this JVM
 * ever opens {@code audit.lock} (closing any channel to a file drops the process's POSIX lock on
 * it), and {@code audit.log} itself is never locked, so readers may open and close it freely. The
 * static registry keeps a second writer in the same JVM away from the lock file altogether. It
 * guarantees nothing against a process that ignores the lock.
 *
 * <p>Worker-confined: one instance per engine, used by its worker thread only.
 */
final class WriterLock {
    private static final Set<Object> WRITERS = ConcurrentHashMap.newKeySet();
    /** Lock channels that must never be closed (see {@link #acquire}). */
    private static final List<FileChannel> PINNED = new ArrayList<>();

    private Object registryKey;
    private FileChannel channel;
    private FileLock lock;

    /** Registers the directory identified by {@code key} as written by this handle; false when another one does. */
    boolean register(Object key) {
        if (!WRITERS.add(key)) {
            return false;
        }
        registryKey = key;
        return true;
    }

    /** Leaves the registry (no-op when not registered). */
    void unregister() {
        if (registryKey != null) {
            WRITERS.remove(registryKey);
            registryKey = null;
        }
    }

    /** Takes the exclusive lock on {@code dir/audit.lock} (creating it {@code 0600}); false when another holds it. */
    boolean acquire(Path dir) throws IOException {
        Path p = dir.resolve(AuditDirectory.LOCK);
        FileChannel ch = Permissions.posix(dir)
                ? FileChannel.open(
                        p,
                        Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                        Permissions.fileAttribute())
                : FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
        FileLock l;
        try {
            l = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            // Another channel of this JVM holds the lock (the same directory reached by another
            // name). Closing ours would release that holder's POSIX lock, so keep it open forever.
            synchronized (PINNED) {
                PINNED.add(ch);
            }
            return false;
        }
        if (l == null) {
            // No lock of this JVM is on the file (the registry guarantees it), so closing is safe.
            ch.close();
            return false;
        }
        channel = ch;
        lock = l;
        return true;
    }

    /** Whether this handle still holds the lock. */
    boolean valid() {
        return lock != null && lock.isValid() && channel.isOpen();
    }

    /** Releases the lock, closes its channel and leaves the registry. Idempotent. */
    void release() {
        if (lock != null) {
            try {
                lock.release();
            } catch (IOException e) {
                // closing the channel below releases it too
            }
            lock = null;
        }
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // the process exit releases it at the latest
            }
            channel = null;
        }
        unregister();
    }
}
