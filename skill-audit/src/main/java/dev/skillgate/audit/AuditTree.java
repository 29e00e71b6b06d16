package dev.skillgate.audit;

import dev.skillgate.tlog.ConsistencyProof;
import dev.skillgate.tlog.InclusionProof;
import dev.skillgate.tlog.MerkleHash;
import dev.skillgate.tlog.NoteSigner;
import dev.skillgate.tlog.NoteVerifierKey;
import dev.skillgate.tlog.SignedNote;
import dev.skillgate.tlog.TlogProof;
import dev.skillgate.tlog.WitnessRequest;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import org.apiguardian.api.API;

/**
 * A verified snapshot of an audit log's RFC 6962 Merkle tree at one commit point: every committed
 * record's stored frame is a leaf, in sequence order (leaf index = sequence number - 1).
 *
 * <p>From it come C2SP checkpoints ({@link #checkpoint}), tlog-proof files for one record ({@link
 * #prove}), consistency proofs as tlog-witness request bodies ({@link #witnessRequest}) and the
 * check of an earlier checkpoint ({@link #verify}). The snapshot was recomputed from the log and
 * matched the commit point when it was taken; it does not follow later appends. A proof made here
 * convinces a verifier who holds a checkpoint it trusts; it cannot show that this is the tree
 * everyone else was shown (that is what witnesses and earlier checkpoints are for).
 */
@API(status = API.Status.MAINTAINED, since = "0.1.0")
public sealed interface AuditTree permits dev.skillgate.audit.internal.TreeSnapshot {
    /** The origin line of this log's checkpoints signed by a key named {@code keyName}: {@code keyName/logId}. */
    static String origin(String keyName, String logId) {
        return keyName + "/" + logId;
    }

    /** The log id (32 lowercase hex). */
    String logId();

    /** The number of committed records (the tree size). */
    long size();

    /** The tree's root. */
    MerkleHash root();

    /** The root of the first {@code size} records (0 ≤ size ≤ {@link #size()}). */
    MerkleHash root(long size);

    /** A C2SP checkpoint of this tree, origin {@code signer.name()/logId}, signed by {@code signer}. */
    SignedNote checkpoint(NoteSigner signer);

    /** The inclusion proof of record {@code sequence}, or empty when it is not in this tree. */
    Optional<InclusionProof> inclusionProof(long sequence);

    /**
     * The inclusion proof of record {@code sequence} in the tree of the first {@code treeSize}
     * records (an earlier checkpoint's size), or empty when either is out of range.
     */
    Optional<InclusionProof> inclusionProof(long sequence, long treeSize);

    /** The consistency proof from the first {@code fromSize} records to this tree, or empty when larger. */
    Optional<ConsistencyProof> consistencyProof(long fromSize);

    /**
     * The stored bytes of record {@code sequence} (its leaf data), read back and checked against the
     * tree.
     *
     * @throws IOException when it cannot be read or the log no longer holds those bytes
     */
    Optional<byte[]> recordBytes(long sequence) throws IOException;

    /**
     * A tlog-proof of record {@code sequence} against {@code checkpoint} (a checkpoint of this tree or
     * of an earlier size of it, possibly cosigned), with the record's stored bytes as its extra data;
     * empty when the record is not in the checkpoint's tree. The checkpoint's signatures are not
     * checked here (that is the verifier's part); its origin, size and root must be this log's.
     *
     * @throws IllegalArgumentException when {@code checkpoint} is not a checkpoint of this tree or of
     *     a prefix of it
     */
    Optional<TlogProof> prove(long sequence, SignedNote checkpoint) throws IOException;

    /**
     * A tlog-witness add-checkpoint body: the consistency proof from {@code oldSize} and {@code
     * checkpoint} (a checkpoint of this tree); empty when {@code oldSize} exceeds this tree.
     */
    Optional<WitnessRequest> witnessRequest(long oldSize, SignedNote checkpoint);

    /**
     * Checks an earlier C2SP checkpoint of this log against this tree: a known key signed it, its
     * origin is that key's name and this log's id, and this tree's first {@code size} records have its
     * root. Detects truncation and rollback below it (of log and head together too) and any rewrite
     * of the records it covers.
     */
    CheckpointVerification verify(byte[] checkpointNote, List<NoteVerifierKey> trustedKeys);
}
