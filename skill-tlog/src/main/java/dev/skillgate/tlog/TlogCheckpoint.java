package dev.skillgate.tlog;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apiguardian.api.API;

/**
 * The body of a C2SP {@code tlog-checkpoint} (v1.0.0): an origin line naming the log, the tree size
 * in decimal, the base64 RFC 6962 root, and optional extension lines.
 *
 * <p>A checkpoint is meaningful only inside a signed note whose signature the reader verified
 * ({@link SignedNote#open}); this type is the note's text, nothing more. Two checkpoints of the same
 * origin are consistent only if a {@link ConsistencyProof} between them verifies.
 *
 * @param origin the log's identity line (non-empty)
 * @param size the number of leaves
 * @param root the tree's root
 * @param extensions opaque extension lines (non-empty each; not recommended by the specification)
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record TlogCheckpoint(String origin, long size, MerkleHash root, List<String> extensions) {
    public TlogCheckpoint {
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(root, "root");
        extensions = List.copyOf(extensions);
        if (origin.isEmpty() || origin.contains("\n")) {
            throw NoteKeys.format("a checkpoint origin is one non-empty line");
        }
        if (size < 0 || size > CompactTree.MAX_SIZE) {
            throw NoteKeys.format("a checkpoint size is out of range");
        }
        for (String e : extensions) {
            if (e.isEmpty() || e.contains("\n")) {
                throw NoteKeys.format("a checkpoint extension is one non-empty line");
            }
        }
        SignedNote.checkText(origin + "\n");
    }

    /** A checkpoint without extension lines. */
    public static TlogCheckpoint of(String origin, long size, MerkleHash root) {
        return new TlogCheckpoint(origin, size, root, List.of());
    }

    /** The note text: origin, size, root and extension lines, each ending in a newline. */
    public String text() {
        StringBuilder b = new StringBuilder(origin)
                .append('\n')
                .append(size)
                .append('\n')
                .append(root.base64())
                .append('\n');
        extensions.forEach(e -> b.append(e).append('\n'));
        return b.toString();
    }

    /** Signs {@link #text()} as a note with each signer. */
    public SignedNote sign(List<NoteSigner> signers) {
        return SignedNote.sign(text(), signers);
    }

    /**
     * Parses a note text as a checkpoint.
     *
     * @throws dev.skillgate.model.InvalidValueException ({@code AUDIT_CHECKPOINT_FORMAT}) when it is not one
     */
    public static TlogCheckpoint parse(String text) {
        SignedNote.checkText(text);
        String[] lines = text.substring(0, text.length() - 1).split("\n", -1);
        if (lines.length < 3) {
            throw NoteKeys.format("a checkpoint has at least three lines");
        }
        long size = Numbers.parse(lines[1], "a checkpoint size");
        MerkleHash root;
        try {
            root = MerkleHash.ofBase64(lines[2]);
        } catch (dev.skillgate.model.InvalidValueException e) {
            throw NoteKeys.format("a checkpoint root is 32 bytes in canonical base64");
        }
        return new TlogCheckpoint(lines[0], size, root, Arrays.asList(lines).subList(3, lines.length));
    }
}
