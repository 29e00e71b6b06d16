package dev.skillgate.tlog;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Shared reading of "hash lines, a blank line, then a checkpoint note" (tlog-proof, tlog-witness). */
final class ProofText {
    private ProofText() {}

    /** A cursor over ASCII lines of a bounded byte array. */
    static final class Lines {
        private final byte[] bytes;
        private int pos;

        Lines(byte[] bytes) {
            if (bytes.length > SignedNote.MAX_SIZE + 8192) {
                throw NoteKeys.format("a proof is too large");
            }
            this.bytes = bytes;
        }

        /** The next line without its newline; a line that does not end in one is malformed. */
        String next() {
            for (int i = pos; i < bytes.length; i++) {
                byte b = bytes[i];
                if (b == '\n') {
                    String line = new String(bytes, pos, i - pos, StandardCharsets.US_ASCII);
                    pos = i + 1;
                    return line;
                }
                if (b < 0x20 || b > 0x7e) {
                    throw NoteKeys.format("a proof line is printable ASCII");
                }
            }
            throw NoteKeys.format("a proof line does not end with a newline");
        }

        byte[] rest() {
            return Arrays.copyOfRange(bytes, pos, bytes.length);
        }
    }

    /** Hash lines up to and including the blank line. */
    static List<MerkleHash> hashes(Lines lines, int max) {
        List<MerkleHash> out = new ArrayList<>();
        while (true) {
            String line = lines.next();
            if (line.isEmpty()) {
                return out;
            }
            if (out.size() == max) {
                throw NoteKeys.format("a proof has more than " + max + " hashes");
            }
            try {
                out.add(MerkleHash.ofBase64(line));
            } catch (InvalidValueException e) {
                throw NoteKeys.format("a proof hash is 32 bytes in canonical base64");
            }
        }
    }

    static String hashLines(List<MerkleHash> hashes) {
        StringBuilder b = new StringBuilder();
        hashes.forEach(h -> b.append(h.base64()).append('\n'));
        return b.toString();
    }

    /** Opens the checkpoint note and checks its origin; null when accepted (the checkpoint goes to out[0]). */
    static ProofVerification.Rejected openCheckpoint(
            byte[] note, List<NoteVerifierKey> keys, String origin, TlogCheckpoint[] out) {
        NoteVerification v = SignedNote.open(note, keys);
        if (v instanceof NoteVerification.Rejected r) {
            return new ProofVerification.Rejected(r.code(), r.reason());
        }
        TlogCheckpoint cp;
        try {
            cp = TlogCheckpoint.parse(((NoteVerification.Verified) v).note().text());
        } catch (InvalidValueException e) {
            return new ProofVerification.Rejected(ErrorCode.AUDIT_CHECKPOINT_FORMAT, "the note is not a checkpoint");
        }
        if (!cp.origin().equals(origin)) {
            return new ProofVerification.Rejected(
                    ErrorCode.AUDIT_CHECKPOINT_MISMATCH, "the checkpoint is for another log (origin differs)");
        }
        out[0] = cp;
        return null;
    }
}
