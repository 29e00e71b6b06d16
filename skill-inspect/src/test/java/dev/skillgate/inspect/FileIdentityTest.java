package dev.skillgate.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Decision 0827: the written-out {@code equals} and {@code hashCode} keep the record's meaning. */
class FileIdentityTest {
    private static final Instant T = Instant.parse("2026-12-02T21:00:00.123456789Z");

    @Test
    void equalExactlyWhenEveryComponentIsEqual() {
        FileIdentity a = new FileIdentity("(dev=fe00,ino=42)", 10, T);
        FileIdentity same = new FileIdentity(new String("(dev=fe00,ino=42)"), 10, Instant.parse(T.toString()));
        assertThat(a).isEqualTo(same).hasSameHashCodeAs(same);
        assertThat(a).isNotEqualTo(new FileIdentity("(dev=fe00,ino=43)", 10, T));
        assertThat(a).isNotEqualTo(new FileIdentity("(dev=fe00,ino=42)", 11, T));
        assertThat(a).isNotEqualTo(new FileIdentity("(dev=fe00,ino=42)", 10, T.plusNanos(1)));
        assertThat(a).isNotEqualTo(null).isNotEqualTo("(dev=fe00,ino=42)");
        assertThat(a.toString()).isEqualTo("FileIdentity[fileKey=(dev=fe00,ino=42), size=10, lastModified=" + T + "]");
    }
}
