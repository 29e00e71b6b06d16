package dev.skillgate.tlog;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import java.security.MessageDigest;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * An RFC 6962 inclusion proof: the sibling hashes from a leaf up to the root's child.
 *
 * <p>{@link #verify} checks it with RFC 9162 §2.1.3.2 alone (no tree needed). A proof that verifies
 * shows that the leaf is at {@code leafIndex} in the tree of {@code treeSize} leaves with that root;
 * it does not show that anyone else saw the same root.
 *
 * @param leafIndex zero-based index of the leaf
 * @param treeSize number of leaves in the tree
 * @param path sibling hashes, leaf's sibling first (at most 63)
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record InclusionProof(long leafIndex, long treeSize, List<MerkleHash> path) {
    /** The longest path any tree of at most 2^63 leaves has. */
    public static final int MAX_PATH = 63;

    public InclusionProof {
        path = List.copyOf(path);
        if (leafIndex < 0 || treeSize <= leafIndex || treeSize > CompactTree.MAX_SIZE || path.size() > MAX_PATH) {
            throw new InvalidValueException(
                    ErrorCode.AUDIT_PROOF_INVALID, "an inclusion proof's numbers are out of range");
        }
    }

    /** The root this proof leads to from {@code leafHash}; empty when the path has the wrong shape. */
    public java.util.Optional<MerkleHash> rootFrom(MerkleHash leafHash) {
        Objects.requireNonNull(leafHash, "leafHash");
        long fn = leafIndex;
        long sn = treeSize - 1;
        byte[] r = leafHash.bytes();
        MessageDigest md = Rfc6962.sha256();
        for (MerkleHash p : path) {
            if (sn == 0) {
                return java.util.Optional.empty();
            }
            if ((fn & 1) == 1 || fn == sn) {
                r = Rfc6962.node(md, p.raw(), r);
                while ((fn & 1) == 0 && fn != 0) {
                    fn >>>= 1;
                    sn >>>= 1;
                }
            } else {
                r = Rfc6962.node(md, r, p.raw());
            }
            fn >>>= 1;
            sn >>>= 1;
        }
        if (sn != 0) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of(new MerkleHash(r));
    }

    /** Whether the leaf with {@code leafHash} is at {@link #leafIndex} of the tree with {@code root}. */
    public boolean verify(MerkleHash leafHash, MerkleHash root) {
        Objects.requireNonNull(root, "root");
        return rootFrom(leafHash).map(root::equals).orElse(false);
    }
}
