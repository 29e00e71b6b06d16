package dev.skillgate.consent.internal;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Arrays;

/**
 * Fuzzes the strict JSON reader and writer: any bytes either parse or fail with a
 * {@link JsonException} (never another exception, never a stack overflow), and every accepted value
 * writes to text that reads back to an equal value and writes identically again.
 */
class StrictJsonFuzzTest {
    private static final StrictJsonReader.Bounds BOUNDS = new StrictJsonReader.Bounds(1 << 16, 8, 512, 256);

    @FuzzTest(maxDuration = "30s")
    void acceptedValuesRoundTripAndEverythingElseIsAJsonException(byte[] input) {
        JsonValue value;
        try {
            value = StrictJsonReader.parse(input, BOUNDS);
        } catch (JsonException e) {
            if (e.reason() == null || e.getMessage() == null || e.getMessage().length() > 200) {
                throw new AssertionError("a rejection must carry a reason and a short message");
            }
            return;
        }
        byte[] written = StrictJsonWriter.write(value);
        JsonValue again;
        try {
            again = StrictJsonReader.parse(written, new StrictJsonReader.Bounds(1 << 20, 8, 512, 256));
        } catch (JsonException e) {
            throw new AssertionError("written JSON did not read back: " + e.reason(), e);
        }
        if (!again.equals(value)) {
            throw new AssertionError("round trip changed the value");
        }
        if (!Arrays.equals(StrictJsonWriter.write(again), written)) {
            throw new AssertionError("writing is not deterministic");
        }
    }
}
