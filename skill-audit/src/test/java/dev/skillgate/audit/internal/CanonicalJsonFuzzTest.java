package dev.skillgate.audit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.skillgate.audit.Checkpoint;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import java.util.Map;

/**
 * The strict readers accept only their own canonical output: any accepted input re-encodes to the
 * same bytes, so no two byte strings mean the same thing. Nothing but the documented exception ever
 * escapes. Regression mode under {@code mvn test}; {@code JAZZER_FUZZ=1} fuzzes.
 */
class CanonicalJsonFuzzTest {
    @FuzzTest(maxDuration = "30s")
    void acceptedPayloadsAreTheirOwnCanonicalForm(byte[] input) {
        Map<String, Object> value;
        try {
            value = CanonicalJson.read(input, 0, input.length);
        } catch (CanonicalJson.NotCanonicalException e) {
            return;
        }
        assertThat(CanonicalJson.write(value)).isEqualTo(input);
    }

    @FuzzTest(maxDuration = "30s")
    void acceptedHeadsAndCheckpointsAreCanonical(byte[] input) {
        try {
            assertThat(Head.parse(input).encode()).isEqualTo(input);
        } catch (Frames.FormatException e) {
            // rejected
        }
        try {
            assertThat(Checkpoint.parse(input).encode()).isEqualTo(input);
        } catch (InvalidValueException e) {
            assertThat(e.code()).isEqualTo(ErrorCode.AUDIT_CHECKPOINT_FORMAT);
        }
    }
}
