package dev.skillgate.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LimitsTest {

    @Test
    void timeoutAcceptsItsRangeExactlyAndNeverClamps() {
        assertThat(new Timeout(1_000).millis()).isEqualTo(1_000);
        assertThat(new Timeout(120_000).millis()).isEqualTo(120_000);
        assertThat(Timeout.DEFAULT.millis()).isEqualTo(60_000);
        for (long bad : new long[] {999, 120_001, 0, -1, Long.MAX_VALUE, Long.MIN_VALUE, 1L << 32 | 5_000}) {
            assertThatThrownBy(() -> Timeout.ofMillis(bad))
                    .isInstanceOfSatisfying(
                            InvalidValueException.class,
                            e -> assertThat(e.code()).isEqualTo(ErrorCode.LIMIT_OUT_OF_RANGE));
        }
        assertThatThrownBy(() -> new Timeout(999)).isInstanceOf(InvalidValueException.class);
    }

    @Test
    void outputLimitAcceptsItsRangeExactlyAndNeverClamps() {
        assertThat(new OutputLimit(1).bytes()).isEqualTo(1);
        assertThat(new OutputLimit(262_144).bytes()).isEqualTo(262_144);
        assertThat(OutputLimit.DEFAULT.bytes()).isEqualTo(65_536);
        for (long bad : new long[] {0, 262_145, -1, 1L << 32 | 1}) {
            assertThatThrownBy(() -> OutputLimit.ofBytes(bad))
                    .isInstanceOfSatisfying(
                            InvalidValueException.class,
                            e -> assertThat(e.code()).isEqualTo(ErrorCode.LIMIT_OUT_OF_RANGE));
        }
    }

    @Test
    void fixedBoundsMatchTheSpecification() {
        assertThat(Limits.FRONTMATTER_BYTES).isEqualTo(65_536);
        assertThat(Limits.MANIFEST_BYTES).isEqualTo(65_536);
        assertThat(Limits.JSON_DEPTH).isEqualTo(32);
        assertThat(Limits.JSON_NODES).isEqualTo(4_096);
        assertThat(Limits.DECLARED_FILES).isEqualTo(64);
        assertThat(Limits.FILE_BYTES).isEqualTo(1_048_576);
        assertThat(Limits.CAPTURE_BYTES).isEqualTo(4_194_304);
        assertThat(Limits.INVOCATION_BYTES).isEqualTo(65_536);
        assertThat(Limits.STDERR_BYTES).isEqualTo(16_384);
        assertThat(Limits.TERMINATION_GRACE_MILLIS).isEqualTo(1_000);
        assertThat(Limits.AUTOMATIC_ATTEMPTS).isEqualTo(1);
        assertThat(Limits.CONSENT_WINDOW_NANOS).isEqualTo(300_000_000_000L);
        assertThat(Limits.PROPOSALS_PER_RUN).isEqualTo(64);
        assertThat(Limits.TRUSTED_SCOPES).isEqualTo(64);
        assertThat(Limits.VALIDATION_ISSUES).isEqualTo(20);
        assertThat(Limits.ANY_OF_MIN).isEqualTo(2);
        assertThat(Limits.ANY_OF_MAX).isEqualTo(4);
    }
}
