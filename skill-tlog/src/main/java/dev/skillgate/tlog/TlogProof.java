package dev.skillgate.tlog;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * A C2SP {@code tlog-proof} (v1): an entry's index, its inclusion proof and the signed checkpoint it
 * is against, with optional extra data, in one offline-verifiable text.
 *
 * <pre>
 * c2sp.org/tlog-proof@v1
 * extra &lt;base64&gt;          (optional)
 * index &lt;decimal&gt;
 * &lt;base64 hash&gt;            (zero or more, leaf's sibling first)
 *
 * &lt;the checkpoint note, verbatim&gt;
 * </pre>
 *
 * <p>The extra data is not authenticated by the format: it counts only as far as its leaf hash
 * verifies ({@link #verifyExtraAsLeaf}).
 *
 * @param extra the extra data, if any (copied)
 * @param index the entry's zero-based index
 * @param path the inclusion proof hashes
 * @param checkpoint the checkpoint note's bytes (copied)
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record TlogProof(Optional<byte[]> extra, long index, List<MerkleHash> path, byte[] checkpoint) {
    /** The first line. */
    public static final String HEADER = "c2sp.org/tlog-proof@v1";

    public TlogProof {
        Objects.requireNonNull(extra, "extra");
        Objects.requireNonNull(checkpoint, "checkpoint");
        extra = extra.map(byte[]::clone);
        path = List.copyOf(path);
        checkpoint = checkpoint.clone();
        if (index < 0 || index > CompactTree.MAX_SIZE || path.size() > InclusionProof.MAX_PATH) {
            throw NoteKeys.format("a proof's index or path is out of range");
        }
        if (extra.isPresent() && extra.get().length == 0) {
            throw NoteKeys.format("extra data, when present, is not empty");
        }
    }

    @Override
    public Optional<byte[]> extra() {
        return extra.map(byte[]::clone);
    }

    @Override
    public byte[] checkpoint() {
        return checkpoint.clone();
    }

    /** The text form. */
    public byte[] encode() {
        StringBuilder b = new StringBuilder(HEADER).append('\n');
        extra.ifPresent(e ->
                b.append("extra ").append(Base64.getEncoder().encodeToString(e)).append('\n'));
        b.append("index ").append(index).append('\n');
        b.append(ProofText.hashLines(path)).append('\n');
        byte[] head = b.toString().getBytes(StandardCharsets.US_ASCII);
        byte[] out = Arrays.copyOf(head, head.length + checkpoint.length);
        System.arraycopy(checkpoint, 0, out, head.length, checkpoint.length);
        return out;
    }

    /**
     * Parses the text form strictly; the checkpoint note's syntax is checked, its signatures are not.
     *
     * @throws InvalidValueException ({@code AUDIT_CHECKPOINT_FORMAT}) when malformed
     */
    public static TlogProof parse(byte[] text) {
        Objects.requireNonNull(text, "text");
        ProofText.Lines lines = new ProofText.Lines(text);
        if (!lines.next().equals(HEADER)) {
            throw NoteKeys.format("a tlog-proof starts with " + HEADER);
        }
        String line = lines.next();
        Optional<byte[]> extra = Optional.empty();
        if (line.startsWith("extra ")) {
            extra = Optional.of(NoteKeys.base64(line.substring(6), "the extra data"));
            line = lines.next();
        }
        if (!line.startsWith("index ")) {
            throw NoteKeys.format("a tlog-proof names its index");
        }
        long index = Numbers.parse(line.substring(6), "the index");
        List<MerkleHash> path = ProofText.hashes(lines, InclusionProof.MAX_PATH);
        byte[] note = lines.rest();
        SignedNote.parse(note);
        TlogCheckpoint.parse(SignedNote.parse(note).text());
        return new TlogProof(extra, index, path, note);
    }

    /** Checks the checkpoint with {@code keys} and the origin, then that {@code leafHash} is at {@link #index}. */
    public ProofVerification verifyLeaf(List<NoteVerifierKey> keys, String origin, MerkleHash leafHash) {
        Objects.requireNonNull(leafHash, "leafHash");
        TlogCheckpoint[] cp = new TlogCheckpoint[1];
        ProofVerification.Rejected r = ProofText.openCheckpoint(checkpoint, keys, origin, cp);
        if (r != null) {
            return r;
        }
        if (index >= cp[0].size()) {
            return new ProofVerification.Rejected(ErrorCode.AUDIT_PROOF_INVALID, "the index is beyond the checkpoint");
        }
        InclusionProof p;
        try {
            p = new InclusionProof(index, cp[0].size(), path);
        } catch (InvalidValueException e) {
            return new ProofVerification.Rejected(ErrorCode.AUDIT_PROOF_INVALID, "the proof is out of range");
        }
        if (!p.verify(leafHash, cp[0].root())) {
            return new ProofVerification.Rejected(
                    ErrorCode.AUDIT_PROOF_INVALID, "the inclusion proof does not lead to the checkpoint's root");
        }
        return new ProofVerification.Verified(cp[0]);
    }

    /** {@link #verifyLeaf} with the extra data as the leaf's bytes. */
    public ProofVerification verifyExtraAsLeaf(List<NoteVerifierKey> keys, String origin) {
        if (extra.isEmpty()) {
            return new ProofVerification.Rejected(ErrorCode.AUDIT_PROOF_INVALID, "the proof carries no entry data");
        }
        return verifyLeaf(keys, origin, Rfc6962.leafHash(extra.get()));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TlogProof p && Arrays.equals(encode(), p.encode());
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(encode());
    }

    @Override
    public String toString() {
        return "TlogProof[index=" + index + ", path=" + path.size() + "]";
    }
}
