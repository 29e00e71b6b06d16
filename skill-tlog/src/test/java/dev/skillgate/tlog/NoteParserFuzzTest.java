package dev.skillgate.tlog;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.skillgate.model.InvalidValueException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Fuzzes the parsers that read bytes from outside: signed notes, checkpoints, tlog-proof files and
 * witness request bodies. Each either refuses with {@link InvalidValueException} or accepts only the
 * canonical encoding of what it returns; opening a note returns a value for any input and verifies
 * only what the reference key signed.
 */
class NoteParserFuzzTest {
    private static final NoteVerifierKey PETER = NoteVerifierKey.parse(Vectors.one("signed-note.txt", "peter-vkey"));
    private static final String TEXT = Vectors.unescape(Vectors.one("signed-note.txt", "text"));

    @FuzzTest(maxDuration = "30s")
    void signedNotes(FuzzedDataProvider data) {
        byte[] input = data.consumeRemainingAsBytes();
        NoteVerification v = SignedNote.open(input, List.of(PETER));
        assertThat(v).isNotNull();
        SignedNote parsed;
        try {
            parsed = SignedNote.parse(input);
        } catch (InvalidValueException e) {
            assertThat(v.verified()).isFalse();
            return;
        }
        assertThat(parsed.encode()).isEqualTo(input);
        if (v.verified()) {
            // Only the reference key's one signed text verifies with it.
            assertThat(parsed.text()).isEqualTo(TEXT);
        }
        try {
            TlogCheckpoint cp = TlogCheckpoint.parse(parsed.text());
            assertThat(cp.text()).isEqualTo(parsed.text());
        } catch (InvalidValueException e) {
            // not a checkpoint: fine
        }
    }

    @FuzzTest(maxDuration = "30s")
    void proofFiles(FuzzedDataProvider data) {
        boolean witness = data.consumeBoolean();
        byte[] input = data.consumeRemainingAsBytes();
        try {
            if (witness) {
                WitnessRequest w = WitnessRequest.parse(input);
                assertThat(w.encode()).isEqualTo(input);
                assertThat(w.verify(List.of(PETER), "o", Rfc6962.emptyRoot())).isNotNull();
            } else {
                TlogProof p = TlogProof.parse(input);
                assertThat(p.encode()).isEqualTo(input);
                assertThat(p.verifyExtraAsLeaf(List.of(PETER), "o")).isNotNull();
            }
        } catch (InvalidValueException e) {
            assertThat(e.getMessage()).startsWith("AUDIT_");
        }
    }

    @FuzzTest(maxDuration = "30s")
    void keys(FuzzedDataProvider data) {
        String s = new String(data.consumeRemainingAsBytes(), StandardCharsets.UTF_8);
        try {
            assertThat(NoteVerifierKey.parse(s).encode()).isEqualToIgnoringCase(s);
        } catch (InvalidValueException e) {
            // refused
        }
        try {
            NoteSigner.parse(s);
        } catch (InvalidValueException e) {
            // refused
        }
    }
}
