package dev.skillgate.audit.internal;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;

/**
 * Acceptance (property/fuzz): random byte flips, truncations, splices, reorders and deletions of a
 * valid log (and damage to its head) are always detected — the log is disabled — unless the result
 * is exactly an earlier committed state, which only a checkpoint held elsewhere can reveal, or the
 * change lies beyond the commit point and only reduces trust. See {@link MutationOracle}.
 * Regression mode under {@code mvn test}; {@code JAZZER_FUZZ=1} fuzzes.
 */
class LogMutationFuzzTest {
    @FuzzTest(maxDuration = "30s")
    void mutatedLogsAreAlwaysDetected(FuzzedDataProvider data) throws IOException {
        MutationOracle.check(MutationOracle.mutate(new MutationOracle.Choices() {
            @Override
            public int pick(int bound) {
                return bound <= 1 ? 0 : data.consumeInt(0, bound - 1);
            }

            @Override
            public byte[] bytes(int max) {
                return data.consumeBytes(max);
            }
        }));
    }
}
