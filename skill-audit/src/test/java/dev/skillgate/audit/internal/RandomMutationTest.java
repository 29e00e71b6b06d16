package dev.skillgate.audit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AuditLog;
import dev.skillgate.audit.AuditLogOptions;
import dev.skillgate.audit.AuditState;
import dev.skillgate.audit.Fixtures;
import dev.skillgate.audit.TrustScope;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The mutation property with seeded generators: 20,000 mutated logs in memory, and 150 through a
 * real {@link AuditLog} on disk, whose verdict must match the in-memory evaluation.
 */
class RandomMutationTest {
    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void everyMutationIsDetectedOrExplained(long seed) throws Exception {
        Random r = new Random(seed);
        int disabled = 0;
        for (int i = 0; i < 5_000; i++) {
            if (MutationOracle.check(MutationOracle.mutate(MutationOracle.of(r)))
                    .disabled()) {
                disabled++;
            }
        }
        assertThat(disabled).isGreaterThan(3_000);
    }

    @Test
    void theRealLogAgreesWithTheEvaluation() throws Exception {
        Random r = new Random(99);
        List<TrustScope> scopes = List.of(
                Fixtures.prompt(0), Fixtures.prompt(1), Fixtures.execution(2), Fixtures.prompt(4), Fixtures.prompt(5));
        for (int i = 0; i < 150; i++) {
            MutationOracle.Mutated m = MutationOracle.mutate(MutationOracle.of(r));
            MutationOracle.Outcome expected = MutationOracle.check(m);
            Path dir = tmp.resolve("case" + i);
            MutationOracle.ORIGINAL.writeTo(dir, m.log(), m.head());
            try (AuditLog log = AuditLog.open(AuditLogOptions.builder(dir)
                    .openWait(Duration.ofSeconds(30))
                    .build())) {
                assertThat(log.status().state() == AuditState.DISABLED)
                        .as(m.program())
                        .isEqualTo(expected.disabled());
                if (!expected.disabled()) {
                    assertThat(log.status().committedSequence()).isEqualTo(expected.committed());
                }
                for (TrustScope s : scopes) {
                    assertThat(log.isTrusted(s))
                            .as(m.program())
                            .isEqualTo(expected.trusted().contains(s.id()));
                }
            }
        }
    }
}
