package dev.skillgate.tlog;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Every leaf of a 100,000-leaf tree has a verifying inclusion proof of logarithmic size; a flipped byte fails. */
class LargeTreeTest {
    @Test
    void everyProofOfAHundredThousandLeavesVerifies() {
        int n = 100_000;
        MerkleTree.Builder b = MerkleTree.builder();
        for (int i = 0; i < n; i++) {
            byte[] e = ("record " + i).getBytes(StandardCharsets.UTF_8);
            b.addData(e, 0, e.length);
        }
        MerkleTree tree = b.build();
        MerkleHash root = tree.root();
        int max = 0;
        for (int i = 0; i < n; i++) {
            byte[] e = ("record " + i).getBytes(StandardCharsets.UTF_8);
            InclusionProof p = tree.inclusionProof(i);
            max = Math.max(max, p.path().size());
            assertThat(p.verify(Rfc6962.leafHash(e), root)).isTrue();
            e[0] ^= 1;
            assertThat(p.verify(Rfc6962.leafHash(e), root)).isFalse();
        }
        // ceil(log2(100000)) = 17 hashes of 32 bytes at most.
        assertThat(max).isEqualTo(17);
        assertThat(tree.consistencyProof(1).path().size()).isLessThanOrEqualTo(2 * 17);
        System.out.printf("100000 leaves: largest inclusion proof %d hashes (%d bytes)%n", max, max * 32);
    }
}
