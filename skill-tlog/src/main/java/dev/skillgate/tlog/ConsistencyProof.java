package dev.skillgate.tlog;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * An RFC 6962 consistency proof between an older tree of {@code size1} leaves and a newer one of
 * {@code size2}: the nodes that let a verifier recompute both roots.
 *
 * <p>{@link #verify} checks it with RFC 9162 §2.1.4.2 alone. A proof that verifies shows that the
 * older tree's leaves are, unchanged, the first {@code size1} leaves of the newer one: nothing was
 * rewritten, dropped or reordered between the two heads. Sizes 0 and equal sizes need an empty path.
 *
 * @param size1 the older tree's size
 * @param size2 the newer tree's size
 * @param path the proof nodes (at most 63)
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record ConsistencyProof(long size1, long size2, List<MerkleHash> path) {
    /** At most this many nodes (the limit tlog-witness sets for requests). */
    public static final int MAX_PATH = 63;

    public ConsistencyProof {
        path = List.copyOf(path);
        if (size1 < 0 || size2 < size1 || size2 > CompactTree.MAX_SIZE || path.size() > MAX_PATH) {
            throw new InvalidValueException(
                    ErrorCode.AUDIT_PROOF_INVALID, "a consistency proof's numbers are out of range");
        }
    }

    /** Whether the tree with {@code root1} at {@link #size1} is a prefix of the one with {@code root2}. */
    public boolean verify(MerkleHash root1, MerkleHash root2) {
        Objects.requireNonNull(root1, "root1");
        Objects.requireNonNull(root2, "root2");
        if (size1 == size2) {
            return path.isEmpty() && root1.equals(root2);
        }
        if (size1 == 0) {
            // Every tree extends the empty one; its root must be the empty root.
            return path.isEmpty() && root1.equals(Rfc6962.emptyRoot());
        }
        if (path.isEmpty()) {
            return false;
        }
        List<MerkleHash> p = new ArrayList<>(path);
        if (Long.bitCount(size1) == 1) {
            p.add(0, root1);
        }
        long fn = size1 - 1;
        long sn = size2 - 1;
        while ((fn & 1) == 1) {
            fn >>>= 1;
            sn >>>= 1;
        }
        MessageDigest md = Rfc6962.sha256();
        byte[] fr = p.get(0).bytes();
        byte[] sr = fr.clone();
        for (int i = 1; i < p.size(); i++) {
            byte[] c = p.get(i).raw();
            if (sn == 0) {
                return false;
            }
            if ((fn & 1) == 1 || fn == sn) {
                fr = Rfc6962.node(md, c, fr);
                sr = Rfc6962.node(md, c, sr);
                while ((fn & 1) == 0 && fn != 0) {
                    fn >>>= 1;
                    sn >>>= 1;
                }
            } else {
                sr = Rfc6962.node(md, sr, c);
            }
            fn >>>= 1;
            sn >>>= 1;
        }
        return sn == 0 && root1.matches(fr) && root2.matches(sr);
    }
}
