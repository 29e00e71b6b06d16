package dev.skillgate.tlog;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * An immutable RFC 6962 tree over a fixed list of leaf hashes, with every node kept so that roots,
 * inclusion proofs and consistency proofs cost O(log n) lookups and no hashing.
 *
 * <p>Level {@code t} holds, for each {@code j}, MTH of the leaves {@code [j·2^t, min((j+1)·2^t,
 * n))}: building it bottom-up and carrying a lone last node up unchanged yields exactly RFC 6962's
 * split at the largest power of two, so every node a proof at size {@code n} needs is stored. About
 * 64 bytes per leaf; at most {@link #MAX_LEAVES} leaves.
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class MerkleTree {
    /** Most leaves one in-memory tree holds. */
    public static final int MAX_LEAVES = (Integer.MAX_VALUE / MerkleHash.SIZE) - 1;

    /** levels[t] is a flat array of 32-byte nodes. */
    private final byte[][] levels;

    private final long size;

    private MerkleTree(byte[][] levels, long size) {
        this.levels = levels;
        this.size = size;
    }

    /** A tree of the given leaf hashes, in order. */
    public static MerkleTree of(List<MerkleHash> leafHashes) {
        Builder b = builder();
        leafHashes.forEach(b::add);
        return b.build();
    }

    /** Collects leaf hashes for a tree. */
    public static Builder builder() {
        return new Builder();
    }

    /** Collects leaf hashes in order; not thread-safe. */
    public static final class Builder {
        private byte[] leaves = new byte[MerkleHash.SIZE * 64];
        private int count;
        private final MessageDigest md = Rfc6962.sha256();

        private Builder() {}

        /** Adds a leaf hash. */
        public Builder add(MerkleHash leafHash) {
            Objects.requireNonNull(leafHash, "leafHash");
            put(leafHash.raw());
            return this;
        }

        /** Adds the leaf hash of {@code data[offset, offset + length)}. */
        public Builder addData(byte[] data, int offset, int length) {
            md.reset();
            md.update((byte) 0);
            md.update(data, offset, length);
            put(md.digest());
            return this;
        }

        private void put(byte[] hash) {
            if (count >= MAX_LEAVES) {
                throw new InvalidValueException(
                        ErrorCode.AUDIT_PROOF_INVALID, "too many leaves for one in-memory tree");
            }
            int need = (count + 1) * MerkleHash.SIZE;
            if (need > leaves.length) {
                leaves = Arrays.copyOf(leaves, (int)
                        Math.min((long) leaves.length * 2, (long) MAX_LEAVES * MerkleHash.SIZE + MerkleHash.SIZE));
            }
            System.arraycopy(hash, 0, leaves, count * MerkleHash.SIZE, MerkleHash.SIZE);
            count++;
        }

        /** The number of leaves added. */
        public long size() {
            return count;
        }

        /** The tree of the leaves added so far. */
        public MerkleTree build() {
            List<byte[]> lv = new ArrayList<>();
            byte[] level = Arrays.copyOf(leaves, count * MerkleHash.SIZE);
            lv.add(level);
            int width = count;
            while (width > 1) {
                int next = (width + 1) / 2;
                byte[] up = new byte[next * MerkleHash.SIZE];
                byte[] left = new byte[MerkleHash.SIZE];
                byte[] right = new byte[MerkleHash.SIZE];
                for (int j = 0; j < next; j++) {
                    int l = 2 * j;
                    if (l + 1 < width) {
                        System.arraycopy(level, l * MerkleHash.SIZE, left, 0, MerkleHash.SIZE);
                        System.arraycopy(level, (l + 1) * MerkleHash.SIZE, right, 0, MerkleHash.SIZE);
                        System.arraycopy(Rfc6962.node(md, left, right), 0, up, j * MerkleHash.SIZE, MerkleHash.SIZE);
                    } else {
                        System.arraycopy(level, l * MerkleHash.SIZE, up, j * MerkleHash.SIZE, MerkleHash.SIZE);
                    }
                }
                lv.add(up);
                level = up;
                width = next;
            }
            return new MerkleTree(lv.toArray(new byte[0][]), count);
        }
    }

    /** The number of leaves. */
    public long size() {
        return size;
    }

    /** MTH of all leaves. */
    public MerkleHash root() {
        return size == 0 ? Rfc6962.emptyRoot() : node(0, size);
    }

    /** The hash of leaf {@code index}. */
    public MerkleHash leafHash(long index) {
        if (index < 0 || index >= size) {
            throw new InvalidValueException(ErrorCode.AUDIT_PROOF_INVALID, "leaf index out of range");
        }
        return node(index, index + 1);
    }

    /** MTH of the first {@code treeSize} leaves (0 ≤ treeSize ≤ size). */
    public MerkleHash root(long treeSize) {
        if (treeSize < 0 || treeSize > size) {
            throw new InvalidValueException(ErrorCode.AUDIT_PROOF_INVALID, "tree size out of range");
        }
        if (treeSize == 0) {
            return Rfc6962.emptyRoot();
        }
        // The perfect subtrees of treeSize's binary decomposition, left to right, folded from the right.
        List<byte[]> peaks = new ArrayList<>();
        long pos = 0;
        for (int b = 62; b >= 0; b--) {
            long w = 1L << b;
            if ((treeSize & w) != 0) {
                peaks.add(stored(b, pos >> b));
                pos += w;
            }
        }
        MessageDigest md = Rfc6962.sha256();
        byte[] r = peaks.get(peaks.size() - 1);
        for (int i = peaks.size() - 2; i >= 0; i--) {
            r = Rfc6962.node(md, peaks.get(i), r);
        }
        return new MerkleHash(r);
    }

    /** The inclusion proof of leaf {@code index} in this tree (RFC 6962 PATH). */
    public InclusionProof inclusionProof(long index) {
        if (index < 0 || index >= size) {
            throw new InvalidValueException(ErrorCode.AUDIT_PROOF_INVALID, "leaf index out of range");
        }
        List<MerkleHash> out = new ArrayList<>();
        path(index, 0, size, out);
        return new InclusionProof(index, size, out);
    }

    private void path(long m, long lo, long hi, List<MerkleHash> out) {
        if (hi - lo == 1) {
            return;
        }
        long k = Long.highestOneBit(hi - lo - 1);
        if (m < lo + k) {
            path(m, lo, lo + k, out);
            out.add(node(lo + k, hi));
        } else {
            path(m, lo + k, hi, out);
            out.add(node(lo, lo + k));
        }
    }

    /** The consistency proof from the first {@code fromSize} leaves to this tree (RFC 6962 PROOF). */
    public ConsistencyProof consistencyProof(long fromSize) {
        if (fromSize < 0 || fromSize > size) {
            throw new InvalidValueException(ErrorCode.AUDIT_PROOF_INVALID, "the older size exceeds this tree");
        }
        List<MerkleHash> out = new ArrayList<>();
        if (fromSize > 0 && fromSize < size) {
            subproof(fromSize, 0, size, true, out);
        }
        return new ConsistencyProof(fromSize, size, out);
    }

    private void subproof(long m, long lo, long hi, boolean complete, List<MerkleHash> out) {
        long n = hi - lo;
        if (m == n) {
            if (!complete) {
                out.add(node(lo, hi));
            }
            return;
        }
        long k = Long.highestOneBit(n - 1);
        if (m <= k) {
            subproof(m, lo, lo + k, complete, out);
            out.add(node(lo + k, hi));
        } else {
            subproof(m - k, lo + k, hi, false, out);
            out.add(node(lo, lo + k));
        }
    }

    /** MTH of [lo, hi), a node of this tree: aligned on the smallest power of two ≥ its width. */
    private MerkleHash node(long lo, long hi) {
        long width = hi - lo;
        int t = width == 1 ? 0 : 64 - Long.numberOfLeadingZeros(width - 1);
        return new MerkleHash(stored(t, lo >> t));
    }

    private byte[] stored(int level, long index) {
        byte[] l = levels[level];
        int at = (int) index * MerkleHash.SIZE;
        return Arrays.copyOfRange(l, at, at + MerkleHash.SIZE);
    }

    @Override
    public String toString() {
        return "MerkleTree[size=" + size + "]";
    }
}
