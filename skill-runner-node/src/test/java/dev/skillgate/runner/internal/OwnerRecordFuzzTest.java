package dev.skillgate.runner.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Optional;

class OwnerRecordFuzzTest {

    /** Any input either fails to parse or parses to a record that formats back to exactly the input. */
    @FuzzTest(maxDuration = "30s")
    void parseIsExactOrEmpty(byte[] input) {
        Optional<OwnerRecord> r = OwnerRecord.parse(input);
        r.ifPresent(rec -> assertThat(rec.format()).isEqualTo(input));
    }
}
