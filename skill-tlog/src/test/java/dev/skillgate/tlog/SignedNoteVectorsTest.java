package dev.skillgate.tlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The signed-note reference vectors (vectors/signed-note.txt) reproduced exactly, and the spec texts' examples parsed. */
class SignedNoteVectorsTest {
    private static final String FILE = "signed-note.txt";
    private static final String VKEY = Vectors.one(FILE, "peter-vkey");
    private static final String SKEY = Vectors.one(FILE, "peter-skey");
    private static final String ENOCH = Vectors.one(FILE, "enoch-vkey");
    private static final String TEXT = Vectors.unescape(Vectors.one(FILE, "text"));
    private static final String PETER_SIG = Vectors.one(FILE, "peter-sig") + "\n";
    private static final String ENOCH_SIG = Vectors.one(FILE, "enoch-sig") + "\n";

    private static byte[] note(String... sigs) {
        return (TEXT + "\n" + String.join("", sigs)).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void keysParseAndReencode() {
        NoteVerifierKey v = NoteVerifierKey.parse(VKEY);
        assertThat(v.name()).isEqualTo("PeterNeumann");
        assertThat(v.keyId()).isEqualTo(0xc74f20a3);
        assertThat(v.encode()).isEqualTo(VKEY);
        NoteSigner s = NoteSigner.parse(SKEY);
        assertThat(s.verifierKey()).isEqualTo(v);
        assertThat(s.encodePrivate()).isEqualTo(SKEY);
        assertThat(s.toString()).doesNotContain("AYEK");
        assertThat(NoteVerifierKey.parse(ENOCH).keyId()).isEqualTo(0xaf0cfe78);
        for (String bad : Vectors.values(FILE, "bad-vkey")) {
            assertThatThrownBy(() -> NoteVerifierKey.parse(bad)).isInstanceOf(InvalidValueException.class);
        }
    }

    @Test
    void everyManglingOfTheKeysIsRefused() {
        // As the reference test: every proper substring and every single-byte increment fails.
        for (String key : List.of(VKEY, SKEY)) {
            byte[] b = key.getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i <= b.length; i++) {
                for (int j = i + 1; j <= b.length; j++) {
                    if (i == 0 && j == b.length) {
                        continue;
                    }
                    String sub = new String(b, i, j - i, StandardCharsets.US_ASCII);
                    assertThat(parses(key == VKEY, sub)).as(sub).isFalse();
                }
            }
            for (int i = 0; i < b.length; i++) {
                b[i]++;
                String s = new String(b, StandardCharsets.ISO_8859_1);
                assertThat(parses(key == VKEY, s)).as(s).isFalse();
                b[i]--;
            }
        }
    }

    private static boolean parses(boolean verifier, String s) {
        try {
            if (verifier) {
                NoteVerifierKey.parse(s);
            } else {
                NoteSigner.parse(s);
            }
            return true;
        } catch (InvalidValueException e) {
            return false;
        }
    }

    @Test
    void signingReproducesTheReferenceNoteByteForByte() {
        SignedNote n = SignedNote.sign(TEXT, List.of(NoteSigner.parse(SKEY)));
        assertThat(new String(n.encode(), StandardCharsets.UTF_8))
                .isEqualTo(new String(note(PETER_SIG), StandardCharsets.UTF_8));
    }

    @Test
    void openAsTheReferenceDoes() {
        NoteVerifierKey peter = NoteVerifierKey.parse(VKEY);
        NoteVerifierKey enoch = NoteVerifierKey.parse(ENOCH);
        // One known, one unknown: accepted, the unknown one listed and ignored.
        NoteVerification one = SignedNote.open(note(PETER_SIG, ENOCH_SIG), List.of(peter));
        assertThat(one).isInstanceOf(NoteVerification.Verified.class);
        NoteVerification.Verified v = (NoteVerification.Verified) one;
        assertThat(v.note().text()).isEqualTo(TEXT);
        assertThat(v.verifiedBy()).containsExactly(peter);
        assertThat(v.unknownSignatures()).extracting(NoteSignature::name).containsExactly("EnochRoot");
        // Both known.
        NoteVerification both = SignedNote.open(note(PETER_SIG, ENOCH_SIG), List.of(peter, enoch));
        assertThat(((NoteVerification.Verified) both).verifiedBy()).containsExactly(peter, enoch);
        // None known.
        assertThat(SignedNote.open(note(PETER_SIG, ENOCH_SIG), List.of()))
                .isEqualTo(new NoteVerification.Rejected(
                        ErrorCode.AUDIT_CHECKPOINT_SIGNATURE, "the note has no signature by a known key"));
        // Too many signatures.
        assertThat(SignedNote.open(note(PETER_SIG.repeat(101)), List.of(peter)))
                .isInstanceOfSatisfying(
                        NoteVerification.Rejected.class,
                        r -> assertThat(r.code()).isEqualTo(ErrorCode.AUDIT_CHECKPOINT_FORMAT));
        // A known key's signature altered: the whole note is refused.
        String altered = PETER_SIG.substring(0, 60) + "ABCD" + PETER_SIG.substring(60);
        assertThat(SignedNote.open(note(altered), List.of(peter)))
                .isEqualTo(new NoteVerification.Rejected(
                        ErrorCode.AUDIT_CHECKPOINT_SIGNATURE, "invalid signature for key PeterNeumann+c74f20a3"));
        // An unknown key's altered signature is ignored.
        String enochAltered = ENOCH_SIG.substring(0, 60) + "ABCD" + ENOCH_SIG.substring(60);
        assertThat(SignedNote.open(note(PETER_SIG, enochAltered), List.of(peter))
                        .verified())
                .isTrue();
        // Ambiguous keys.
        assertThat(SignedNote.open(
                        note(ENOCH_SIG),
                        List.of(enoch, peter, new NoteVerifierKey(enoch.name(), enoch.keyId(), enoch.publicKey()))))
                .isInstanceOf(NoteVerification.Verified.class); // equal keys are one key
        // Malformed messages of the reference test.
        List<String> bad = List.of(
                TEXT,
                TEXT + "\n",
                TEXT + "\n" + PETER_SIG.substring(0, PETER_SIG.length() - 1),
                "\u0001" + TEXT + "\n" + PETER_SIG,
                TEXT + "\n"
                        + "— Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=",
                TEXT + "\n" + PETER_SIG + "Unexpected line.\n");
        for (String m : bad) {
            assertThat(SignedNote.open(m.getBytes(StandardCharsets.UTF_8), List.of(peter)))
                    .as(m)
                    .isInstanceOfSatisfying(
                            NoteVerification.Rejected.class,
                            r -> assertThat(r.code()).isEqualTo(ErrorCode.AUDIT_CHECKPOINT_FORMAT));
        }
        byte[] invalidUtf8 = note(PETER_SIG);
        byte[] withFf = new byte[invalidUtf8.length + 1];
        withFf[0] = (byte) 0xff;
        System.arraycopy(invalidUtf8, 0, withFf, 1, invalidUtf8.length);
        assertThat(SignedNote.open(withFf, List.of(peter)).verified()).isFalse();
        // A misnamed signature with the right key id is an unknown key.
        String misnamed = PETER_SIG.replace("PeterNeumann", "CarmenSandiego");
        assertThat(SignedNote.open(note(misnamed), List.of(peter)).verified()).isFalse();
    }

    @Test
    void theSpecificationExamplesParse() {
        SignedNote n = SignedNote.parse(
                Vectors.unescape(Vectors.one(FILE, "spec-note")).getBytes(StandardCharsets.UTF_8));
        assertThat(n.text())
                .isEqualTo(
                        "Ognuno sta solo sul cuor della terra\ntrafitto da un raggio di sole:\n\ned è subito sera.\n");
        assertThat(n.signatures()).singleElement().satisfies(s -> {
            assertThat(s.name()).isEqualTo("quasimodo.example/salvatore");
            assertThat(s.signature()).hasSize(64);
        });
        SignedNote c = SignedNote.parse(
                Vectors.unescape(Vectors.one(FILE, "spec-checkpoint")).getBytes(StandardCharsets.UTF_8));
        TlogCheckpoint cp = TlogCheckpoint.parse(c.text());
        assertThat(cp.origin()).isEqualTo("example.com/behind-the-sofa");
        assertThat(cp.size()).isEqualTo(20852163L);
        assertThat(cp.root().base64()).isEqualTo("CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=");
        assertThat(cp.text()).isEqualTo(c.text());
        // Re-encoding is the identity.
        assertThat(c.encode())
                .isEqualTo(
                        Vectors.unescape(Vectors.one(FILE, "spec-checkpoint")).getBytes(StandardCharsets.UTF_8));
    }
}
