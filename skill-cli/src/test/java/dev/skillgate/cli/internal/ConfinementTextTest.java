package dev.skillgate.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.Confinement;
import dev.skillgate.model.Confinement.Part;
import org.junit.jupiter.api.Test;

/** The text form of {@code confinement:}: every part of the envelope, in the model's order. */
class ConfinementTextTest {
    @Test
    void everyPartIsPrintedWithItsOwnOutcome() {
        assertThat(RunReport.confinementText(new Confinement(
                        Part.ENFORCED,
                        Part.NOT_ENFORCED,
                        Part.NOT_REQUESTED,
                        Part.ENFORCED,
                        Part.NOT_ENFORCED,
                        Part.ENFORCED)))
                .isEqualTo("process reach ENFORCED, file writes NOT_ENFORCED, network NOT_REQUESTED, memory ENFORCED,"
                        + " process count NOT_ENFORCED, cpu ENFORCED");
        assertThat(RunReport.confinementText(Confinement.NONE))
                .isEqualTo("process reach NOT_ENFORCED, file writes NOT_REQUESTED, network NOT_REQUESTED,"
                        + " memory NOT_REQUESTED, process count NOT_REQUESTED, cpu NOT_REQUESTED");
    }
}
