package dev.skillgate.testkit;

import static dev.skillgate.testkit.SkillgateAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.RunId;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The assertions fail with useful messages. */
class AssertionsTest {
    private final ExecutionEnvelope refused = ExecutionEnvelope.refused(
            RunId.of("r-1"),
            Optional.empty(),
            Duration.ZERO,
            List.of(Diagnostic.error(ErrorCode.VALUE_TYPE, "/name", "expected string")));

    @Test
    void passingAssertionsPass() {
        assertThat(refused)
                .wasRefused()
                .wasRefusedWith(ErrorCode.VALUE_TYPE)
                .hasErrorCodes(ErrorCode.VALUE_TYPE)
                .hasErrorAt(ErrorCode.VALUE_TYPE, "/name");
    }

    @Test
    void failingAssertionsSayWhatWasThere() {
        assertThatThrownBy(() -> assertThat(refused).succeeded())
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("SUCCEEDED")
                .hasMessageContaining("VALUE_TYPE");
        assertThatThrownBy(() -> assertThat(refused).hasErrorAt(ErrorCode.VALUE_TYPE, "/other"))
                .hasMessageContaining("/other");
        assertThatThrownBy(() -> assertThat(refused).hasCleanupProven()).hasMessageContaining("PROVEN");
        assertThatThrownBy(() -> assertThat(refused).hasOutput("{}")).hasMessageContaining("Optional.empty");
        assertThatThrownBy(() -> SkillgateAssertions.assertThatAudit(List.of())
                        .hasNoConsumption()
                        .hasConsumptionFor(RunId.of("x")))
                .hasMessageContaining("x");
    }
}
