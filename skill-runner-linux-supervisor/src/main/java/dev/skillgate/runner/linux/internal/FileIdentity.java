package dev.skillgate.runner.linux.internal;

/**
 * What the helper's {@code fstat} of an open executable reported: device, inode, size, and
 * modification and status-change times with nanoseconds. Any write, rename-over, {@code chmod} or
 * {@code utimensat} changes the status-change time, which user space cannot set back; the helper
 * uses an unchanged identity to skip re-hashing a binary it hashed in full before (decision 0182).
 */
public record FileIdentity(
        long dev, long ino, long size, long mtimeSec, long mtimeNsec, long ctimeSec, long ctimeNsec) {

    /** The identity that matches no file; sent when nothing is cached. */
    public static final FileIdentity NONE = new FileIdentity(0, 0, 0, 0, 0, 0, 0);
}
