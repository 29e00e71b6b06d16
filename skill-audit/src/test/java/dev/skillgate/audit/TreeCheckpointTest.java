package dev.skillgate.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.tlog.NoteSigner;
import dev.skillgate.tlog.NoteVerifierKey;
import dev.skillgate.tlog.ProofVerification;
import dev.skillgate.tlog.SignedNote;
import dev.skillgate.tlog.TlogProof;
import dev.skillgate.tlog.WitnessRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Merkle tree beside the chain: C2SP checkpoints, proofs, and rollback detected against an earlier checkpoint. */
class TreeCheckpointTest {
    private static final NoteSigner SIGNER = NoteSigner.generate("audit.example/test");
    private static final List<NoteVerifierKey> KEYS = List.of(SIGNER.verifierKey());

    private static void append(AuditLog log, int from, int to) {
        for (int i = from; i < to; i++) {
            assertThat(log.approve(Fixtures.prompt(i))).isInstanceOf(AppendResult.Committed.class);
        }
    }

    private static void copy(Path from, Path to) throws Exception {
        Files.createDirectories(to);
        for (String f : List.of("audit.log", "audit.head")) {
            Files.copy(from.resolve(f), to.resolve(f), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    @Test
    void rollbackOfLogAndHeadTogetherIsDetectedByAnEarlierCheckpoint(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("audit");
        Path saved = tmp.resolve("saved");
        byte[] later;
        try (AuditLog log = Fixtures.open(dir)) {
            append(log, 0, 5);
        }
        copy(dir, saved);
        try (AuditLog log = Fixtures.open(dir)) {
            append(log, 5, 12);
            later = log.checkpoint(SIGNER).orElseThrow().encode();
            assertThat(log.verifyCheckpoint(later, KEYS).consistent()).isTrue();
        }
        // Log and head replaced together by the older, internally valid copy: the chain alone passes.
        copy(saved, dir);
        try (AuditLog log = AuditLog.openReadOnly(dir)) {
            log.awaitReady(java.time.Duration.ofSeconds(60));
            assertThat(log.status().state()).isEqualTo(AuditState.OK);
            CheckpointVerification v = log.verifyCheckpoint(later, KEYS);
            assertThat(v.consistent()).isFalse();
            assertThat(v.diagnostics()).extracting(Diagnostic::code).contains(ErrorCode.AUDIT_CHECKPOINT_MISMATCH);
        }
    }

    @Test
    void aRewrittenHistoryFailsTheEarlierCheckpointAndProofsVerifyOffline(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("audit");
        try (AuditLog log = Fixtures.open(dir)) {
            append(log, 0, 9);
            byte[] early = log.checkpoint(SIGNER).orElseThrow().encode();
            append(log, 9, 20);
            assertThat(log.verifyCheckpoint(early, KEYS).consistent()).isTrue();
            AuditTree tree = log.tree().orElseThrow();
            assertThat(tree.size()).isEqualTo(20);
            SignedNote cp = tree.checkpoint(SIGNER);
            String origin = AuditTree.origin(SIGNER.name(), tree.logId());
            for (long seq = 1; seq <= 20; seq++) {
                TlogProof p = TlogProof.parse(tree.prove(seq, cp).orElseThrow().encode());
                assertThat(p.verifyExtraAsLeaf(KEYS, origin).verified()).isTrue();
                byte[] extra = p.extra().orElseThrow();
                extra[extra.length / 2] ^= 1;
                assertThat(new TlogProof(java.util.Optional.of(extra), p.index(), p.path(), p.checkpoint())
                                .verifyExtraAsLeaf(KEYS, origin))
                        .isInstanceOf(ProofVerification.Rejected.class);
            }
            WitnessRequest w = tree.witnessRequest(9, cp).orElseThrow();
            assertThat(WitnessRequest.parse(w.encode())
                            .verify(KEYS, origin, tree.root(9))
                            .verified())
                    .isTrue();
            // A checkpoint by an unknown key alone is refused; another key's cosignature is ignored.
            NoteSigner other = NoteSigner.generate("witness.example");
            SignedNote cosigned = cp.with(other.sign(cp.text()));
            assertThat(log.verifyCheckpoint(cosigned.encode(), KEYS).consistent())
                    .isTrue();
            assertThat(log.verifyCheckpoint(cosigned.encode(), List.of(other.verifierKey()))
                            .consistent())
                    .isFalse();
        }
    }

    @Test
    void aHeadWhoseRootDisagreesWithTheLogDisablesIt(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("audit");
        try (AuditLog log = Fixtures.open(dir)) {
            append(log, 0, 3);
        }
        Path head = dir.resolve("audit.head");
        String text = Files.readString(head);
        assertThat(text).startsWith("skillgate-audit/v2/head\n").contains("\nroot ");
        int at = text.indexOf("\nroot ") + 6;
        char c = text.charAt(at);
        Files.writeString(head, text.substring(0, at) + (c == '0' ? '1' : '0') + text.substring(at + 1));
        try (AuditLog log = Fixtures.open(dir)) {
            assertThat(log.status().state()).isEqualTo(AuditState.DISABLED);
            assertThat(log.status().diagnostics()).extracting(Diagnostic::code).contains(ErrorCode.AUDIT_TREE_MISMATCH);
            assertThat(log.tree()).isEmpty();
        }
    }
}
