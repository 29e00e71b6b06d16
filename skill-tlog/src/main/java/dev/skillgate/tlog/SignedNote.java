package dev.skillgate.tlog;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apiguardian.api.API;

/**
 * A C2SP signed note (signed-note v1.0.0): a text ending in a newline, a blank line, and one or more
 * signature lines {@code — name base64(keyid ‖ signature)}.
 *
 * <p>{@link #parse} checks the syntax only; {@link #open} also verifies: signatures by keys the
 * caller does not know are ignored (so witness cosignatures and rotated keys pass through), a known
 * key whose signature fails rejects the whole note, and a note with no verified signature is
 * rejected. The text of a note means nothing until {@link #open} accepts it.
 *
 * @param text the note text, ending in a newline
 * @param signatures the signature lines, in order (at least one)
 */
@API(status = API.Status.EXPERIMENTAL, since = "0.1.0")
public record SignedNote(String text, List<NoteSignature> signatures) {
    /** Longest note accepted, in bytes. */
    public static final int MAX_SIZE = 128 * 1024;
    /** Most signature lines accepted (the specification asks for at least 16). */
    public static final int MAX_SIGNATURES = 100;

    private static final String SIG_PREFIX = "\u2014 ";

    public SignedNote {
        checkText(Objects.requireNonNull(text, "text"));
        signatures = List.copyOf(signatures);
        if (signatures.isEmpty() || signatures.size() > MAX_SIGNATURES) {
            throw NoteKeys.format("a note has 1 to " + MAX_SIGNATURES + " signatures");
        }
    }

    /** Signs {@code text} with each signer, in order. */
    public static SignedNote sign(String text, List<NoteSigner> signers) {
        checkText(text);
        List<NoteSignature> sigs = new ArrayList<>();
        for (NoteSigner s : signers) {
            sigs.add(s.sign(text));
        }
        return new SignedNote(text, sigs);
    }

    /** This note with {@code signature} appended (a cosignature, say), unless an equal line is already there. */
    public SignedNote with(NoteSignature signature) {
        if (signatures.contains(signature)) {
            return this;
        }
        List<NoteSignature> s = new ArrayList<>(signatures);
        s.add(signature);
        return new SignedNote(text, s);
    }

    /** The note's bytes: text, blank line, signature lines. */
    public byte[] encode() {
        StringBuilder b = new StringBuilder(text).append('\n');
        signatures.forEach(s -> b.append(s.line()));
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The signature lines claiming {@code key}'s name and id. */
    public List<NoteSignature> signaturesBy(NoteVerifierKey key) {
        return signatures.stream().filter(key::names).toList();
    }

    /**
     * Parses a note's syntax (bounded, strict UTF-8, no control character but newline). Verifies
     * nothing.
     *
     * @throws InvalidValueException ({@code AUDIT_CHECKPOINT_FORMAT}) when malformed
     */
    public static SignedNote parse(byte[] note) {
        Objects.requireNonNull(note, "note");
        if (note.length > MAX_SIZE) {
            throw NoteKeys.format("a note is at most " + MAX_SIZE + " bytes");
        }
        String s = utf8(note);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 && c != '\n') {
                throw NoteKeys.format("a note holds a control character");
            }
        }
        int split = s.lastIndexOf("\n\n");
        if (split < 0) {
            throw NoteKeys.format("a note has no blank line before its signatures");
        }
        String text = s.substring(0, split + 1);
        String sigs = s.substring(split + 2);
        if (sigs.isEmpty() || !sigs.endsWith("\n")) {
            throw NoteKeys.format("a note's signature block is empty or does not end with a newline");
        }
        List<NoteSignature> out = new ArrayList<>();
        for (String line : sigs.substring(0, sigs.length() - 1).split("\n", -1)) {
            if (out.size() == MAX_SIGNATURES) {
                throw NoteKeys.format("a note has more than " + MAX_SIGNATURES + " signatures");
            }
            if (!line.startsWith(SIG_PREFIX)) {
                throw NoteKeys.format("a signature line starts with an em dash and a space");
            }
            String rest = line.substring(SIG_PREFIX.length());
            int space = rest.indexOf(' ');
            if (space < 0) {
                throw NoteKeys.format("a signature line is '— name signature'");
            }
            String name = rest.substring(0, space);
            String b64 = rest.substring(space + 1);
            if (!NoteKeys.validName(name) || b64.isEmpty()) {
                throw NoteKeys.format("a signature line has a bad key name or no signature");
            }
            byte[] raw = NoteKeys.base64(b64, "a signature");
            if (raw.length < 5 || raw.length > 4 + NoteSignature.MAX_SIGNATURE) {
                throw NoteKeys.format("a signature is a key id and at least one byte");
            }
            int id = ByteBuffer.wrap(raw, 0, 4).getInt();
            out.add(new NoteSignature(name, id, Arrays.copyOfRange(raw, 4, raw.length)));
        }
        return new SignedNote(text, out);
    }

    /**
     * Parses and verifies a note against the keys the caller trusts.
     *
     * @param knownKeys the verifier keys to check; two keys with the same name and id are refused as
     *     ambiguous when a signature names them
     */
    public static NoteVerification open(byte[] note, List<NoteVerifierKey> knownKeys) {
        Objects.requireNonNull(knownKeys, "knownKeys");
        SignedNote n;
        try {
            n = parse(note);
        } catch (InvalidValueException e) {
            return new NoteVerification.Rejected(
                    e.code(), e.getMessage().substring(e.code().name().length() + 2));
        }
        return n.verify(knownKeys);
    }

    /** Verifies this note's signatures against the caller's keys (see {@link #open}). */
    public NoteVerification verify(List<NoteVerifierKey> knownKeys) {
        byte[] message = text.getBytes(StandardCharsets.UTF_8);
        Set<NoteVerifierKey> verified = new LinkedHashSet<>();
        Set<NoteSignature> unknown = new LinkedHashSet<>();
        for (NoteSignature sig : signatures) {
            List<NoteVerifierKey> matching =
                    knownKeys.stream().filter(k -> k.names(sig)).distinct().toList();
            if (matching.isEmpty()) {
                unknown.add(sig);
                continue;
            }
            if (matching.size() > 1) {
                return new NoteVerification.Rejected(
                        ErrorCode.AUDIT_CHECKPOINT_SIGNATURE,
                        "ambiguous key " + sig.name() + "+" + NoteKeys.hexId(sig.keyId()));
            }
            NoteVerifierKey key = matching.get(0);
            if (!key.verify(message, sig.raw())) {
                return new NoteVerification.Rejected(
                        ErrorCode.AUDIT_CHECKPOINT_SIGNATURE,
                        "invalid signature for key " + sig.name() + "+" + NoteKeys.hexId(sig.keyId()));
            }
            verified.add(key);
        }
        if (verified.isEmpty()) {
            return new NoteVerification.Rejected(
                    ErrorCode.AUDIT_CHECKPOINT_SIGNATURE, "the note has no signature by a known key");
        }
        return new NoteVerification.Verified(this, List.copyOf(verified), List.copyOf(unknown));
    }

    static void checkText(String text) {
        Objects.requireNonNull(text, "text");
        if (text.isEmpty() || !text.endsWith("\n")) {
            throw NoteKeys.format("a note text is non-empty and ends with a newline");
        }
        if (text.getBytes(StandardCharsets.UTF_8).length > MAX_SIZE) {
            throw NoteKeys.format("a note text is at most " + MAX_SIZE + " bytes");
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if ((c < 0x20 && c != '\n') || Character.isSurrogate(c) && !validSurrogateAt(text, i)) {
                throw NoteKeys.format("a note text holds a control character or is not valid Unicode");
            }
        }
    }

    private static boolean validSurrogateAt(String s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
        }
        return i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
    }

    private static String utf8(byte[] bytes) {
        try {
            CharBuffer cb = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes));
            return cb.toString();
        } catch (CharacterCodingException e) {
            throw NoteKeys.format("a note is not valid UTF-8");
        }
    }
}
