package dev.skillgate.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class Sha256DigestTest {
    private static final String EMPTY = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    @Test
    void hashesAndPrintsTheKnownVector() {
        assertThat(Sha256Digest.hash(new byte[0]).toString()).isEqualTo(EMPTY);
        assertThat(Sha256Digest.hash("abc".getBytes(StandardCharsets.US_ASCII)).toString())
                .isEqualTo("sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    @Test
    void parseRoundTripsAndRevisionWrapsIt() {
        Sha256Digest digest = Sha256Digest.parse(EMPTY);
        assertThat(digest.toString()).isEqualTo(EMPTY);
        assertThat(Revision.parse(EMPTY).digest()).isEqualTo(digest);
        assertThat(Revision.parse(EMPTY).toString()).isEqualTo(EMPTY);
        assertThat(Sha256Digest.of(digest.bytes())).isEqualTo(digest);
    }

    @Test
    void bytesAreADefensiveCopy() {
        Sha256Digest digest = Sha256Digest.parse(EMPTY);
        byte[] bytes = digest.bytes();
        bytes[0] ^= 1;
        assertThat(digest.toString()).isEqualTo(EMPTY);
        assertThat(digest.matches(bytes)).isFalse();
        bytes[0] ^= 1;
        assertThat(digest.matches(bytes)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "sha256:",
                "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                "SHA256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                "sha256:E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855",
                "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b85",
                "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b8555",
                " sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b85g",
                "sha512:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
            })
    void rejectsEveryNonCanonicalSpelling(String text) {
        assertThatThrownBy(() -> Sha256Digest.parse(text))
                .isInstanceOfSatisfying(
                        InvalidValueException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_DIGEST));
        assertThatThrownBy(() -> Revision.parse(text)).isInstanceOf(InvalidValueException.class);
    }

    @Test
    void rejectsWrongLengthBytes() {
        assertThatThrownBy(() -> Sha256Digest.of(new byte[31])).isInstanceOf(InvalidValueException.class);
    }
}
