package dev.skillgate.audit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Arrays;

/**
 * The payload codec of record schema version 1 accepts only its own output, for every record type:
 * whatever bytes decode as some type re-encode to exactly those bytes, so no two payloads mean the
 * same record and no accepted payload carries anything the writer would drop. Nothing but
 * {@link Frames.FormatException} escapes the decoder. The first input byte picks the type; the rest
 * is the payload. Regression mode under {@code mvn test} (seeds: one valid payload per type);
 * {@code JAZZER_FUZZ=1} fuzzes.
 */
class PayloadFuzzTest {
    @FuzzTest(maxDuration = "30s")
    void acceptedPayloadsOfEveryTypeAreTheirOwnEncoding(byte[] input) {
        if (input.length < 1) {
            return;
        }
        RecordType[] types = RecordType.values();
        RecordType type = types[(input[0] & 0xff) % types.length];
        byte[] payload = Arrays.copyOfRange(input, 1, input.length);
        Payloads.Decoded decoded;
        try {
            decoded = Payloads.decode(type, payload, 0, payload.length);
        } catch (Frames.FormatException e) {
            return;
        }
        assertThat(Payloads.typeOf(decoded.event())).isEqualTo(type);
        assertThat(Payloads.encode(decoded.event(), decoded.recordedAt())).isEqualTo(payload);
    }
}
