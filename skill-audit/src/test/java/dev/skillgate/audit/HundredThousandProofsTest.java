package dev.skillgate.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.tlog.InclusionProof;
import dev.skillgate.tlog.MerkleHash;
import dev.skillgate.tlog.NoteSigner;
import dev.skillgate.tlog.NoteVerifierKey;
import dev.skillgate.tlog.ProofVerification;
import dev.skillgate.tlog.Rfc6962;
import dev.skillgate.tlog.SignedNote;
import dev.skillgate.tlog.TlogProof;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 22's acceptance check on a real audit log of 100,000 records written through the public API:
 * the inclusion proof of every record verifies against a C2SP checkpoint of the log, a flipped byte
 * of each record fails it, and no proof is longer than ceil(log2 100,000) = 17 hashes. The log is
 * built on {@code /dev/shm} when it exists (300,000 fsyncs on a disk take minutes). Nothing here is
 * timed; the figures are in {@code docs/performance.md}.
 */
class HundredThousandProofsTest {
    private static final int RECORDS = 100_000;

    @Test
    void everyInclusionProofOfA100kRecordLogVerifiesAndAFlippedByteFails(@TempDir Path tmp) throws Exception {
        Path shm = Path.of("/dev/shm");
        Path base = Files.isDirectory(shm) && Files.isWritable(shm)
                ? Files.createTempDirectory(shm, "skillgate-100k-")
                : tmp;
        try {
            Path dir = base.resolve("audit");
            try (AuditLog log = AuditLog.open(AuditLogOptions.builder(dir)
                    .openWait(Duration.ofSeconds(60))
                    .build())) {
                for (int i = 0; i < RECORDS; i++) {
                    AppendResult r = i % 10 == 9 ? log.revoke(Fixtures.prompt(i - 1)) : log.approve(Fixtures.prompt(i));
                    assertThat(r.isCommitted()).isTrue();
                }
            }
            NoteSigner signer = NoteSigner.generate("audit.example/100k");
            List<NoteVerifierKey> keys = List.of(signer.verifierKey());
            try (AuditLog log = AuditLog.openReadOnly(dir)) {
                assertThat(log.awaitReady(Duration.ofSeconds(120)).state()).isEqualTo(AuditState.OK);
                long t0 = System.nanoTime();
                AuditTree tree = log.tree().orElseThrow();
                assertThat(tree.size()).isEqualTo(RECORDS);
                SignedNote cp = tree.checkpoint(signer);
                long t1 = System.nanoTime();
                assertThat(log.verifyCheckpoint(cp.encode(), keys).consistent()).isTrue();
                MerkleHash root = tree.root();
                int longest = 0;
                int shortest = Integer.MAX_VALUE;
                for (long seq = 1; seq <= RECORDS; seq++) {
                    InclusionProof p = tree.inclusionProof(seq).orElseThrow();
                    byte[] record = tree.recordBytes(seq).orElseThrow();
                    assertThat(p.verify(Rfc6962.leafHash(record), root))
                            .as("record %d", seq)
                            .isTrue();
                    record[(int) (seq % record.length)] ^= 0x01;
                    assertThat(p.verify(Rfc6962.leafHash(record), root))
                            .as("flipped record %d", seq)
                            .isFalse();
                    longest = Math.max(longest, p.path().size());
                    shortest = Math.min(shortest, p.path().size());
                }
                long t2 = System.nanoTime();
                // Reported, never asserted (docs/performance.md quotes one run).
                System.out.printf(
                        "100k: tree snapshot + checkpoint %d ms; %d inclusion proofs with record read-back and"
                                + " two verifications each %d ms; path %d..%d hashes%n",
                        (t1 - t0) / 1_000_000, RECORDS, (t2 - t1) / 1_000_000, shortest, longest);
                assertThat(longest).isEqualTo(17);
                // 100,000 = 2^16 + 2^15 + 2^10 + 2^9 + 2^7 + 2^5: the last 32 records sit in a small right edge.
                assertThat(shortest).isEqualTo(10);
                // The full offline form for a few records: the tlog-proof file and the verifier key alone.
                String origin = AuditTree.origin(signer.name(), tree.logId());
                for (long seq : new long[] {1, 2, 65_536, 65_537, 99_999, RECORDS}) {
                    TlogProof p =
                            TlogProof.parse(tree.prove(seq, cp).orElseThrow().encode());
                    assertThat(p.verifyExtraAsLeaf(keys, origin).verified()).isTrue();
                    byte[] h = p.path().get(0).bytes();
                    h[31] ^= 0x01;
                    List<MerkleHash> path = new java.util.ArrayList<>(p.path());
                    path.set(0, new MerkleHash(h));
                    assertThat(new TlogProof(p.extra(), p.index(), path, p.checkpoint())
                                    .verifyExtraAsLeaf(keys, origin))
                            .isInstanceOf(ProofVerification.Rejected.class);
                }
                // A proof against an earlier checkpoint (the first 65,537 records) verifies too.
                SignedNote early = dev.skillgate.tlog.TlogCheckpoint.of(origin, 65_537, tree.root(65_537))
                        .sign(List.of(signer));
                TlogProof p =
                        TlogProof.parse(tree.prove(40_000, early).orElseThrow().encode());
                assertThat(p.verifyExtraAsLeaf(keys, origin).verified()).isTrue();
            }
        } finally {
            if (!base.equals(tmp)) {
                try (var walk = Files.walk(base)) {
                    walk.sorted(java.util.Comparator.reverseOrder())
                            .forEach(f -> f.toFile().delete());
                }
            }
        }
    }
}
