package dev.skillgate.tlog;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * RFC 6962 (and RFC 9162) Merkle tree hashing with SHA-256: a leaf is {@code SHA-256(0x00 ‖ data)},
 * an interior node {@code SHA-256(0x01 ‖ left ‖ right)}, the empty tree {@code SHA-256("")}.
 *
 * <p>The domain-separation bytes make a leaf hash never equal an interior node's. The functions are
 * pure; {@link #root(List)} is the specification's recursive definition, kept for clarity and
 * cross-checks ({@link MerkleTree} and {@link CompactTree} compute the same values faster).
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public final class Rfc6962 {
    private static final byte LEAF = 0x00;
    private static final byte NODE = 0x01;

    private Rfc6962() {}

    /** {@code SHA-256(0x00 ‖ data)}. */
    public static MerkleHash leafHash(byte[] data) {
        Objects.requireNonNull(data, "data");
        return leafHash(data, 0, data.length);
    }

    /** {@code SHA-256(0x00 ‖ data[offset, offset + length))}. */
    public static MerkleHash leafHash(byte[] data, int offset, int length) {
        MessageDigest md = sha256();
        md.update(LEAF);
        md.update(data, offset, length);
        return new MerkleHash(md.digest());
    }

    /** {@code SHA-256(0x01 ‖ left ‖ right)}. */
    public static MerkleHash nodeHash(MerkleHash left, MerkleHash right) {
        return new MerkleHash(node(sha256(), left.raw(), right.raw()));
    }

    /** The root of the empty tree, {@code SHA-256("")}. */
    public static MerkleHash emptyRoot() {
        return new MerkleHash(sha256().digest());
    }

    /** MTH(D[n]) by the specification's recursion over the given leaf hashes. */
    public static MerkleHash root(List<MerkleHash> leafHashes) {
        Objects.requireNonNull(leafHashes, "leafHashes");
        if (leafHashes.isEmpty()) {
            return emptyRoot();
        }
        return subtree(leafHashes, 0, leafHashes.size());
    }

    private static MerkleHash subtree(List<MerkleHash> leaves, int from, int to) {
        int n = to - from;
        if (n == 1) {
            return leaves.get(from);
        }
        int k = Integer.highestOneBit(n - 1);
        return nodeHash(subtree(leaves, from, from + k), subtree(leaves, from + k, to));
    }

    static byte[] node(MessageDigest md, byte[] left, byte[] right) {
        md.reset();
        md.update(NODE);
        md.update(left);
        md.update(right);
        return md.digest();
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every Java platform", e);
        }
    }
}
