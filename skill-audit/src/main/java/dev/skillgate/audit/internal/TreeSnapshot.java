package dev.skillgate.audit.internal;

import dev.skillgate.audit.AuditTree;
import dev.skillgate.audit.CheckpointVerification;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.tlog.ConsistencyProof;
import dev.skillgate.tlog.InclusionProof;
import dev.skillgate.tlog.MerkleHash;
import dev.skillgate.tlog.MerkleTree;
import dev.skillgate.tlog.NoteSigner;
import dev.skillgate.tlog.NoteVerification;
import dev.skillgate.tlog.NoteVerifierKey;
import dev.skillgate.tlog.Rfc6962;
import dev.skillgate.tlog.SignedNote;
import dev.skillgate.tlog.TlogCheckpoint;
import dev.skillgate.tlog.TlogProof;
import dev.skillgate.tlog.WitnessRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** The one {@link AuditTree}: a Merkle tree rebuilt from a verified scan, with each frame's end offset. */
public final class TreeSnapshot implements AuditTree {
    private final Path log;
    private final Head head;
    private final MerkleTree tree;
    private final long[] ends;

    private TreeSnapshot(Path log, Head head, MerkleTree tree, long[] ends) {
        this.log = log;
        this.head = head;
        this.tree = tree;
        this.ends = ends;
    }

    /** Scans the committed prefix named by {@code head}; empty when it does not verify (tree root included). */
    static Optional<TreeSnapshot> take(Path log, Head head) throws IOException {
        MerkleTree.Builder leaves = MerkleTree.builder();
        long[][] ends = {new long[(int) Math.min(Math.max(head.sequence(), 1), 1 << 20)]};
        LogScanner.Result r;
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            r = LogScanner.scan(
                    Source.of(ch),
                    head,
                    (seq, end, type, decoded, hash, regression) -> {
                        int i = (int) (seq - 1);
                        if (i >= ends[0].length) {
                            ends[0] = Arrays.copyOf(ends[0], ends[0].length * 2);
                        }
                        ends[0][i] = end;
                        return true;
                    },
                    leaves);
        }
        if (r.problem != null || r.verifiedSequence != head.sequence()) {
            return Optional.empty();
        }
        MerkleTree t = leaves.build();
        if (head.hasRoot() && !t.root().matches(head.root())) {
            return Optional.empty();
        }
        return Optional.of(new TreeSnapshot(log, head, t, Arrays.copyOf(ends[0], (int) head.sequence())));
    }

    @Override
    public String logId() {
        return head.logIdHex();
    }

    @Override
    public long size() {
        return tree.size();
    }

    @Override
    public MerkleHash root() {
        return tree.root();
    }

    @Override
    public MerkleHash root(long size) {
        return tree.root(size);
    }

    private String origin(String keyName) {
        return AuditTree.origin(keyName, logId());
    }

    @Override
    public SignedNote checkpoint(NoteSigner signer) {
        Objects.requireNonNull(signer, "signer");
        return TlogCheckpoint.of(origin(signer.name()), size(), root()).sign(List.of(signer));
    }

    @Override
    public Optional<InclusionProof> inclusionProof(long sequence) {
        if (sequence < 1 || sequence > size()) {
            return Optional.empty();
        }
        return Optional.of(tree.inclusionProof(sequence - 1));
    }

    @Override
    public Optional<ConsistencyProof> consistencyProof(long fromSize) {
        if (fromSize < 0 || fromSize > size()) {
            return Optional.empty();
        }
        return Optional.of(tree.consistencyProof(fromSize));
    }

    @Override
    public Optional<byte[]> recordBytes(long sequence) throws IOException {
        if (sequence < 1 || sequence > size()) {
            return Optional.empty();
        }
        int i = (int) (sequence - 1);
        long start = i == 0 ? Frames.HEADER_SIZE : ends[i - 1];
        int length = (int) (ends[i] - start);
        ByteBuffer b = ByteBuffer.allocate(length);
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            while (b.hasRemaining()) {
                if (ch.read(b, start + b.position()) < 0) {
                    throw new IOException("the log is shorter than when the tree was taken");
                }
            }
        }
        byte[] bytes = b.array();
        if (!Rfc6962.leafHash(bytes).equals(tree.leafHash(i))) {
            throw new IOException("the log no longer holds record " + sequence + " as it was when the tree was taken");
        }
        return Optional.of(bytes);
    }

    private void checkOwn(SignedNote checkpoint) {
        TlogCheckpoint cp = TlogCheckpoint.parse(checkpoint.text());
        if (cp.size() != size() || !cp.root().equals(root()) || !cp.origin().endsWith("/" + logId())) {
            throw new IllegalArgumentException("the checkpoint is not one of this tree");
        }
    }

    /** The checkpoint's size when it names this log and the root of this tree's first that many records. */
    private long checkPrefix(SignedNote checkpoint) {
        TlogCheckpoint cp = TlogCheckpoint.parse(checkpoint.text());
        if (cp.size() > size()
                || !cp.root().equals(root(cp.size()))
                || !cp.origin().endsWith("/" + logId())) {
            throw new IllegalArgumentException("the checkpoint is not one of this tree or of a prefix of it");
        }
        return cp.size();
    }

    @Override
    public Optional<InclusionProof> inclusionProof(long sequence, long treeSize) {
        if (treeSize < 1 || treeSize > size() || sequence < 1 || sequence > treeSize) {
            return Optional.empty();
        }
        if (treeSize == size()) {
            return inclusionProof(sequence);
        }
        // An older size: the nodes a proof at that size needs are not all stored; rebuild that prefix.
        MerkleTree.Builder b = MerkleTree.builder();
        for (long i = 0; i < treeSize; i++) {
            b.add(tree.leafHash(i));
        }
        return Optional.of(b.build().inclusionProof(sequence - 1));
    }

    @Override
    public Optional<TlogProof> prove(long sequence, SignedNote checkpoint) throws IOException {
        Objects.requireNonNull(checkpoint, "checkpoint");
        long at = checkPrefix(checkpoint);
        Optional<InclusionProof> p = inclusionProof(sequence, at);
        if (p.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(
                new TlogProof(recordBytes(sequence), sequence - 1, p.get().path(), checkpoint.encode()));
    }

    @Override
    public Optional<WitnessRequest> witnessRequest(long oldSize, SignedNote checkpoint) {
        Objects.requireNonNull(checkpoint, "checkpoint");
        checkOwn(checkpoint);
        return consistencyProof(oldSize).map(c -> new WitnessRequest(oldSize, c.path(), checkpoint.encode()));
    }

    @Override
    public CheckpointVerification verify(byte[] checkpointNote, List<NoteVerifierKey> trustedKeys) {
        Objects.requireNonNull(checkpointNote, "checkpointNote");
        Objects.requireNonNull(trustedKeys, "trustedKeys");
        List<Diagnostic> d = new ArrayList<>();
        NoteVerification v = SignedNote.open(checkpointNote, trustedKeys);
        if (v instanceof NoteVerification.Rejected r) {
            d.add(Diagnostic.error(r.code(), "", r.reason()));
            return new CheckpointVerification(false, "", d);
        }
        NoteVerification.Verified ok = (NoteVerification.Verified) v;
        NoteVerifierKey key = ok.verifiedBy().get(0);
        String keyId = key.name() + "+" + String.format("%08x", key.keyId());
        TlogCheckpoint cp;
        try {
            cp = TlogCheckpoint.parse(ok.note().text());
        } catch (InvalidValueException e) {
            d.add(e.toDiagnostic(""));
            return new CheckpointVerification(false, keyId, d);
        }
        boolean ours = ok.verifiedBy().stream().anyMatch(k -> origin(k.name()).equals(cp.origin()));
        if (!ours) {
            d.add(Diagnostic.error(
                    ErrorCode.AUDIT_CHECKPOINT_MISMATCH,
                    "",
                    "the checkpoint's origin is not this log (" + logId()
                            + ") under the signing key's name: replaced, or repaired since"));
        } else if (cp.size() > size()) {
            d.add(Diagnostic.error(
                    ErrorCode.AUDIT_CHECKPOINT_MISMATCH,
                    "",
                    "the log holds " + size() + " committed records but the checkpoint names " + cp.size()
                            + ": truncated or rolled back"));
        } else if (!tree.root(cp.size()).equals(cp.root())) {
            d.add(Diagnostic.error(
                    ErrorCode.AUDIT_TREE_MISMATCH,
                    "",
                    "the log's first " + cp.size()
                            + " records have another Merkle root than the checkpoint: rewritten"));
        } else {
            // Belt and braces: the proof a witness would get verifies.
            ConsistencyProof c = tree.consistencyProof(cp.size());
            if (!c.verify(cp.root(), root())) {
                d.add(Diagnostic.error(
                        ErrorCode.AUDIT_PROOF_INVALID,
                        "",
                        "the consistency proof from the checkpoint does not verify"));
            }
        }
        return new CheckpointVerification(d.stream().noneMatch(Diagnostic::isError), keyId, d);
    }

    @Override
    public String toString() {
        return "AuditTree[log=" + logId() + ", size=" + size() + "]";
    }
}
