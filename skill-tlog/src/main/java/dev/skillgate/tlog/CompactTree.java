package dev.skillgate.tlog;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * The running root of an append-only RFC 6962 tree in O(log n) memory: the roots of the perfect
 * subtrees that the tree's size decomposes into (a compact range from 0).
 *
 * <p>Appending costs amortised one node hash; {@link #root()} folds at most 63 nodes. Mutable and not
 * thread-safe: confine an instance to one thread, or {@link #copy()} it. It holds no leaves, so it
 * cannot produce proofs ({@link MerkleTree} can).
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class CompactTree {
    /** Largest tree size accepted (2^53 - 1, the range every number field here uses). */
    public static final long MAX_SIZE = (1L << 53) - 1;

    private final List<byte[]> peaks;
    private long size;
    private final MessageDigest md = Rfc6962.sha256();

    private CompactTree(List<byte[]> peaks, long size) {
        this.peaks = peaks;
        this.size = size;
    }

    /** An empty tree. */
    public static CompactTree empty() {
        return new CompactTree(new ArrayList<>(), 0);
    }

    /** A tree of the given leaf hashes, in order. */
    public static CompactTree of(List<MerkleHash> leafHashes) {
        CompactTree t = empty();
        leafHashes.forEach(t::append);
        return t;
    }

    /** Appends one leaf hash. */
    public void append(MerkleHash leafHash) {
        Objects.requireNonNull(leafHash, "leafHash");
        appendRaw(leafHash.raw());
    }

    /** Appends {@code SHA-256(0x00 ‖ data[offset, offset + length))}. */
    public void appendData(byte[] data, int offset, int length) {
        md.reset();
        md.update((byte) 0);
        md.update(data, offset, length);
        appendRaw(md.digest());
    }

    private void appendRaw(byte[] leaf) {
        if (size >= MAX_SIZE) {
            throw new InvalidValueException(ErrorCode.AUDIT_PROOF_INVALID, "the tree is full");
        }
        byte[] h = leaf.clone();
        long s = size;
        // Each trailing 1 bit of the old size is a perfect subtree the new leaf completes.
        while ((s & 1) == 1) {
            h = Rfc6962.node(md, peaks.remove(peaks.size() - 1), h);
            s >>>= 1;
        }
        peaks.add(h);
        size++;
    }

    /** The number of leaves. */
    public long size() {
        return size;
    }

    /** MTH of the leaves so far; the empty tree's root for none. */
    public MerkleHash root() {
        if (peaks.isEmpty()) {
            return Rfc6962.emptyRoot();
        }
        byte[] r = peaks.get(peaks.size() - 1);
        for (int i = peaks.size() - 2; i >= 0; i--) {
            r = Rfc6962.node(md, peaks.get(i), r);
        }
        return new MerkleHash(r);
    }

    /** An independent copy. */
    public CompactTree copy() {
        List<byte[]> p = new ArrayList<>(peaks.size());
        peaks.forEach(b -> p.add(b.clone()));
        return new CompactTree(p, size);
    }

    @Override
    public String toString() {
        return "CompactTree[size=" + size + "]";
    }
}
