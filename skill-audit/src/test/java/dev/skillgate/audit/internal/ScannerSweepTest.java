package dev.skillgate.audit.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.audit.AuditEvent;
import dev.skillgate.audit.Fixtures;
import org.junit.jupiter.api.Test;

/**
 * Row 2 in full, journald style: every single bit of a small log and of its head is toggled in
 * turn, and every toggle is detected.
 */
class ScannerSweepTest {
    @Test
    void everySingleBitToggleIsDetected() throws Exception {
        LogBuilder b = new LogBuilder(2)
                .add(new AuditEvent.Approved(Fixtures.prompt(0)))
                .add(new AuditEvent.Approved(Fixtures.execution(1)))
                .add(new AuditEvent.Revoked(Fixtures.prompt(0)));
        byte[] log = b.log();
        byte[] head = b.head();
        assertThat(MutationOracle.evaluate(head, log).disabled()).isFalse();
        int toggles = 0;
        for (int i = 0; i < log.length; i++) {
            for (int bit = 0; bit < 8; bit++) {
                log[i] ^= (byte) (1 << bit);
                assertThat(MutationOracle.evaluate(head, log).disabled())
                        .as("log byte %d bit %d", i, bit)
                        .isTrue();
                log[i] ^= (byte) (1 << bit);
                toggles++;
            }
        }
        for (int i = 0; i < head.length; i++) {
            for (int bit = 0; bit < 8; bit++) {
                head[i] ^= (byte) (1 << bit);
                assertThat(MutationOracle.evaluate(head, log).disabled())
                        .as("head byte %d bit %d", i, bit)
                        .isTrue();
                head[i] ^= (byte) (1 << bit);
                toggles++;
            }
        }
        assertThat(toggles).isEqualTo(8 * (log.length + head.length));
    }
}
