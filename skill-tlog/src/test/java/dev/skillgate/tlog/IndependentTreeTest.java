package dev.skillgate.tlog;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An independent re-implementation written from RFC 6962 §2.1 (MTH, PATH, SUBPROOF) over raw
 * byte arrays, sharing no code with the module, checked against the module's trees and verifiers for
 * every size up to 70 and every index and older size.
 */
class IndependentTreeTest {
    private static byte[] sha(byte prefix, byte[]... parts) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        md.update(prefix);
        for (byte[] p : parts) {
            md.update(p);
        }
        return md.digest();
    }

    private static int k(int n) {
        int k = 1;
        while (k * 2 < n) {
            k *= 2;
        }
        return k;
    }

    /** MTH(D[n]). */
    private static byte[] mth(List<byte[]> d) throws Exception {
        if (d.isEmpty()) {
            return MessageDigest.getInstance("SHA-256").digest();
        }
        if (d.size() == 1) {
            return sha((byte) 0, d.get(0));
        }
        int k = k(d.size());
        return sha((byte) 1, mth(d.subList(0, k)), mth(d.subList(k, d.size())));
    }

    /** PATH(m, D[n]). */
    private static List<byte[]> path(int m, List<byte[]> d) throws Exception {
        List<byte[]> out = new ArrayList<>();
        if (d.size() <= 1) {
            return out;
        }
        int k = k(d.size());
        if (m < k) {
            out.addAll(path(m, d.subList(0, k)));
            out.add(mth(d.subList(k, d.size())));
        } else {
            out.addAll(path(m - k, d.subList(k, d.size())));
            out.add(mth(d.subList(0, k)));
        }
        return out;
    }

    /** SUBPROOF(m, D[n], b). */
    private static List<byte[]> subproof(int m, List<byte[]> d, boolean b) throws Exception {
        List<byte[]> out = new ArrayList<>();
        int n = d.size();
        if (m == n) {
            if (!b) {
                out.add(mth(d));
            }
            return out;
        }
        int k = k(n);
        if (m <= k) {
            out.addAll(subproof(m, d.subList(0, k), b));
            out.add(mth(d.subList(k, n)));
        } else {
            out.addAll(subproof(m - k, d.subList(k, n), false));
            out.add(mth(d.subList(0, k)));
        }
        return out;
    }

    private static List<byte[]> raw(List<MerkleHash> hashes) {
        return hashes.stream().map(MerkleHash::bytes).toList();
    }

    private static void assertSame(List<byte[]> a, List<byte[]> b) {
        assertThat(a).hasSameSizeAs(b);
        for (int i = 0; i < a.size(); i++) {
            assertThat(Arrays.equals(a.get(i), b.get(i))).isTrue();
        }
    }

    @Test
    void everySizeIndexAndOlderSizeAgrees() throws Exception {
        List<byte[]> data = new ArrayList<>();
        for (int n = 1; n <= 70; n++) {
            data.add(("entry " + n).getBytes());
            MerkleTree.Builder builder = MerkleTree.builder();
            data.forEach(e -> builder.addData(e, 0, e.length));
            MerkleTree tree = builder.build();
            byte[] root = mth(data);
            assertThat(tree.root().matches(root)).isTrue();
            for (int m = 0; m < n; m++) {
                InclusionProof p = tree.inclusionProof(m);
                assertSame(raw(p.path()), path(m, data));
                assertThat(p.verify(Rfc6962.leafHash(data.get(m)), tree.root())).isTrue();
                assertThat(p.verify(Rfc6962.leafHash(data.get((m + 1) % n)), tree.root()))
                        .isEqualTo(n == 1);
            }
            for (int m = 1; m <= n; m++) {
                ConsistencyProof c = tree.consistencyProof(m);
                assertSame(raw(c.path()), m == n ? List.of() : subproof(m, data, true));
                byte[] old = mth(data.subList(0, m));
                assertThat(tree.root(m).matches(old)).isTrue();
                assertThat(c.verify(new MerkleHash(old), tree.root())).isTrue();
                if (m < n) {
                    // An older tree whose last entry was changed is not a prefix.
                    List<byte[]> forged = new ArrayList<>(data.subList(0, m));
                    forged.set(m - 1, "forged".getBytes());
                    assertThat(c.verify(new MerkleHash(mth(forged)), tree.root()))
                            .isFalse();
                }
            }
        }
    }
}
