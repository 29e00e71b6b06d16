package dev.skillgate.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/** Fuzzes digest and revision parsing: only the one canonical spelling parses, and it round-trips. */
class DigestParsingFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void onlyCanonicalTextParses(FuzzedDataProvider data) {
        String text = data.consumeRemainingAsString();
        try {
            Revision revision = Revision.parse(text);
            assertThat(revision.toString()).isEqualTo(text);
            assertThat(text).matches("sha256:[0-9a-f]{64}");
            assertThat(Sha256Digest.of(revision.digest().bytes())).isEqualTo(revision.digest());
        } catch (InvalidValueException e) {
            assertThat(e.code()).isEqualTo(ErrorCode.INVALID_DIGEST);
            assertThat(text).doesNotMatch("sha256:[0-9a-f]{64}");
        }
    }

    @FuzzTest(maxDuration = "30s")
    void everyDigestRoundTrips(FuzzedDataProvider data) {
        byte[] bytes = data.consumeBytes(Sha256Digest.LENGTH);
        if (bytes.length != Sha256Digest.LENGTH) {
            return;
        }
        Sha256Digest digest = Sha256Digest.of(bytes);
        assertThat(Sha256Digest.parse(digest.toString())).isEqualTo(digest);
        assertThat(digest.matches(bytes)).isTrue();
    }
}
