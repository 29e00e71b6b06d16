package dev.skillgate.tlog;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * The body of a C2SP {@code tlog-witness} {@code add-checkpoint} request: the size of an older
 * checkpoint, a consistency proof from it, and the new signed checkpoint.
 *
 * <pre>
 * old &lt;decimal&gt;
 * &lt;base64 hash&gt;            (zero or more, at most 63)
 *
 * &lt;the new checkpoint note, verbatim&gt;
 * </pre>
 *
 * <p>It is what a log hands a witness to be cosigned, and what anyone holding the older checkpoint
 * can check offline ({@link #verify}): that the new tree extends the old one. It shows nothing about
 * entries after the new checkpoint.
 *
 * @param oldSize the older checkpoint's size
 * @param proof the consistency proof from {@code oldSize} to the new size
 * @param checkpoint the new checkpoint note's bytes (copied)
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record WitnessRequest(long oldSize, List<MerkleHash> proof, byte[] checkpoint) {
    public WitnessRequest {
        Objects.requireNonNull(checkpoint, "checkpoint");
        proof = List.copyOf(proof);
        checkpoint = checkpoint.clone();
        if (oldSize < 0 || oldSize > CompactTree.MAX_SIZE || proof.size() > ConsistencyProof.MAX_PATH) {
            throw NoteKeys.format("a witness request's size or proof is out of range");
        }
    }

    @Override
    public byte[] checkpoint() {
        return checkpoint.clone();
    }

    /** The request body. */
    public byte[] encode() {
        byte[] head = ("old " + oldSize + "\n" + ProofText.hashLines(proof) + "\n").getBytes(StandardCharsets.US_ASCII);
        byte[] out = Arrays.copyOf(head, head.length + checkpoint.length);
        System.arraycopy(checkpoint, 0, out, head.length, checkpoint.length);
        return out;
    }

    /**
     * Parses a request body strictly; the note's syntax is checked, its signatures are not.
     *
     * @throws InvalidValueException ({@code AUDIT_CHECKPOINT_FORMAT}) when malformed
     */
    public static WitnessRequest parse(byte[] body) {
        Objects.requireNonNull(body, "body");
        ProofText.Lines lines = new ProofText.Lines(body);
        String first = lines.next();
        if (!first.startsWith("old ")) {
            throw NoteKeys.format("a witness request starts with 'old SIZE'");
        }
        long old = Numbers.parse(first.substring(4), "the old size");
        List<MerkleHash> proof = ProofText.hashes(lines, ConsistencyProof.MAX_PATH);
        byte[] note = lines.rest();
        TlogCheckpoint.parse(SignedNote.parse(note).text());
        return new WitnessRequest(old, proof, note);
    }

    /**
     * Checks the new checkpoint with {@code keys} and the origin, then that it extends the older tree
     * of {@link #oldSize} leaves with {@code oldRoot}.
     */
    public ProofVerification verify(List<NoteVerifierKey> keys, String origin, MerkleHash oldRoot) {
        Objects.requireNonNull(oldRoot, "oldRoot");
        TlogCheckpoint[] cp = new TlogCheckpoint[1];
        ProofVerification.Rejected r = ProofText.openCheckpoint(checkpoint, keys, origin, cp);
        if (r != null) {
            return r;
        }
        if (cp[0].size() < oldSize) {
            return new ProofVerification.Rejected(
                    ErrorCode.AUDIT_CHECKPOINT_MISMATCH,
                    "the new checkpoint (" + cp[0].size() + " entries) is smaller than the old one (" + oldSize
                            + "): truncated or rolled back");
        }
        if (!new ConsistencyProof(oldSize, cp[0].size(), proof).verify(oldRoot, cp[0].root())) {
            return new ProofVerification.Rejected(
                    ErrorCode.AUDIT_PROOF_INVALID,
                    "the new checkpoint does not extend the old one: history was rewritten");
        }
        return new ProofVerification.Verified(cp[0]);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WitnessRequest w && Arrays.equals(encode(), w.encode());
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(encode());
    }

    @Override
    public String toString() {
        return "WitnessRequest[old=" + oldSize + ", proof=" + proof.size() + "]";
    }
}
