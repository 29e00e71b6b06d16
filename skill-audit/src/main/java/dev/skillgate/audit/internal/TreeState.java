package dev.skillgate.audit.internal;

import dev.skillgate.tlog.CompactTree;
import dev.skillgate.tlog.MerkleHash;
import dev.skillgate.tlog.Rfc6962;

/**
 * A commit point and the Merkle tree over the frames it commits, advanced together: the next head
 * carries the next chain tip, length and tree root (a version 2 head). Extending never changes
 * {@code tree}; it works on a copy, so the current state stays valid until the new head is durable.
 *
 * @param head the commit point
 * @param tree the RFC 6962 tree over the committed frames (size {@code head.sequence()})
 */
record TreeState(Head head, CompactTree tree) {
    /** The commit point of an empty log with id {@code logId}: sequence 0, the genesis tip, the empty root. */
    static TreeState genesis(byte[] logId) {
        return new TreeState(
                new Head(
                        logId,
                        0,
                        Frames.genesis(logId),
                        Frames.HEADER_SIZE,
                        Rfc6962.emptyRoot().bytes()),
                CompactTree.empty());
    }

    /** The state after appending {@code frame} (stored bytes, sequence {@code head.sequence() + 1}). */
    TreeState extend(byte[] frame) {
        CompactTree next = tree.copy();
        next.appendData(frame, 0, frame.length);
        return new TreeState(
                new Head(
                        head.logId(),
                        head.sequence() + 1,
                        Frames.storedHash(frame),
                        head.length() + frame.length,
                        next.root().bytes()),
                next);
    }

    /** The state after appending a verified frame known by its leaf hash, chain hash and length. */
    TreeState extend(MerkleHash leafHash, byte[] chainHash, long frameLength) {
        CompactTree next = tree.copy();
        next.append(leafHash);
        return new TreeState(
                new Head(
                        head.logId(),
                        head.sequence() + 1,
                        chainHash,
                        head.length() + frameLength,
                        next.root().bytes()),
                next);
    }
}
