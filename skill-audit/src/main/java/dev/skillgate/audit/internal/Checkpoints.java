package dev.skillgate.audit.internal;

import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.AuditTree;
import dev.skillgate.audit.Checkpoint;
import dev.skillgate.audit.CheckpointKey;
import dev.skillgate.audit.CheckpointPublicKey;
import dev.skillgate.audit.CheckpointVerification;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.tlog.MerkleHash;
import dev.skillgate.tlog.NoteSigner;
import dev.skillgate.tlog.SignedNote;
import dev.skillgate.tlog.TlogCheckpoint;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Checkpoints of a published commit point: the legacy Skillgate checkpoint over (size, chain tip),
 * the C2SP checkpoint over (size, Merkle root), the verified tree snapshot behind proofs, and the
 * check that the log extends a legacy checkpoint.
 *
 * <p>It issues checkpoints only of a view that yields trust, and signs what the commit point says
 * (the commit point was verified against the log when it was published); {@link #tree()} recomputes
 * the tree from the log and returns nothing unless it matches. It never writes. The caller ensures
 * the handle is open.
 */
final class Checkpoints {
    private final LogState state;
    private final Path log;
    private final Clock clock;

    Checkpoints(LogState state, Path log, Clock clock) {
        this.state = state;
        this.log = log;
        this.clock = clock;
    }

    /** A legacy signed checkpoint of the current commit point, when the log yields trust. */
    Optional<Checkpoint> legacy(CheckpointKey key) {
        LogState.View v = state.view();
        if (!v.status().yieldsTrust() || v.head() == null) {
            return Optional.empty();
        }
        Head h = v.head();
        return Optional.of(Checkpoint.sign(
                h.logIdHex(),
                h.sequence(),
                h.length(),
                Sha256Digest.of(h.tip()),
                clock.instant().truncatedTo(ChronoUnit.MILLIS),
                key));
    }

    /** A C2SP checkpoint of the current commit point's tree signed by {@code signer}, when the log yields trust. */
    Optional<SignedNote> note(NoteSigner signer) {
        LogState.View v = state.view();
        if (!v.status().yieldsTrust() || v.head() == null || !v.head().hasRoot()) {
            return Optional.empty();
        }
        Head h = v.head();
        return Optional.of(
                TlogCheckpoint.of(AuditTree.origin(signer.name(), h.logIdHex()), h.sequence(), new MerkleHash(h.root()))
                        .sign(List.of(signer)));
    }

    /** The tree at the current commit point, recomputed from the log; empty unless it matches. */
    Optional<AuditTree> tree() throws IOException {
        LogState.View v = state.view();
        if (!v.status().yieldsTrust() || v.head() == null) {
            return Optional.empty();
        }
        return TreeSnapshot.take(log, v.head()).map(t -> t);
    }

    /** Checks that the log extends the legacy checkpoint {@code cp} (and, if given, that the trusted key signed it). */
    CheckpointVerification verify(Checkpoint cp, Optional<CheckpointPublicKey> trustedKey) {
        List<Diagnostic> d = new ArrayList<>();
        if (!cp.signatureValid()) {
            d.add(Diagnostic.error(
                    ErrorCode.AUDIT_CHECKPOINT_SIGNATURE, "", "the checkpoint's signature does not verify"));
        }
        if (trustedKey.isPresent() && !trustedKey.get().equals(cp.key())) {
            d.add(Diagnostic.error(
                    ErrorCode.AUDIT_CHECKPOINT_SIGNATURE,
                    "",
                    "the checkpoint is signed by key " + cp.key().keyId() + ", not by the trusted key "
                            + trustedKey.get().keyId()));
        }
        LogState.View v = state.view();
        Head h = v.head();
        if (h == null) {
            d.add(Diagnostic.error(
                    ErrorCode.AUDIT_CHECKPOINT_MISMATCH, "", "the log has no readable commit point to compare"));
        } else if (!h.logIdHex().equals(cp.logId())) {
            d.add(Diagnostic.error(
                    ErrorCode.AUDIT_CHECKPOINT_MISMATCH,
                    "",
                    "the checkpoint is for log " + cp.logId() + " but this is log " + h.logIdHex()
                            + " (replaced, or repaired since)"));
        } else if (h.sequence() < cp.size() || h.length() < cp.length()) {
            d.add(Diagnostic.error(
                    ErrorCode.AUDIT_CHECKPOINT_MISMATCH,
                    "",
                    "the log holds " + h.sequence() + " committed records but the checkpoint names " + cp.size()
                            + ": truncated or rolled back"));
        } else {
            Optional<LogReader.Position> at = LogReader.positionAfter(log, h, cp.size());
            if (at.isEmpty()) {
                d.add(Diagnostic.error(
                        ErrorCode.AUDIT_CHECKPOINT_MISMATCH,
                        "",
                        "record " + cp.size()
                                + " of the log could not be verified, so the checkpoint cannot be confirmed"));
            } else if (!cp.tip().matches(at.get().tip()) || at.get().end() != cp.length()) {
                d.add(Diagnostic.error(
                        ErrorCode.AUDIT_CHECKPOINT_MISMATCH,
                        "",
                        "the log's history up to record " + cp.size() + " differs from the checkpoint: rewritten"));
            }
        }
        if (v.status().state() == AuditState.DISABLED) {
            d.add(Diagnostic.error(ErrorCode.AUDIT_DISABLED, "", "the log itself is disabled"));
        } else if (v.status().state() == AuditState.VERIFYING) {
            d.add(Diagnostic.error(ErrorCode.AUDIT_VERIFYING, "", "the log is still being verified"));
        }
        return new CheckpointVerification(
                d.stream().noneMatch(Diagnostic::isError), cp.key().keyId(), d);
    }
}
