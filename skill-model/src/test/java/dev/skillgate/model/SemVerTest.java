package dev.skillgate.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SemVerTest {

    @Test
    void precedenceFollowsSemverOrg() {
        List<String> ordered = List.of(
                "1.0.0-alpha",
                "1.0.0-alpha.1",
                "1.0.0-alpha.beta",
                "1.0.0-beta",
                "1.0.0-beta.2",
                "1.0.0-beta.11",
                "1.0.0-rc.1",
                "1.0.0",
                "1.0.1",
                "1.1.0",
                "2.0.0",
                "10.0.0",
                "18446744073709551616.0.0");
        for (int i = 0; i + 1 < ordered.size(); i++) {
            SemVer a = SemVer.parse(ordered.get(i));
            SemVer b = SemVer.parse(ordered.get(i + 1));
            assertThat(a.compareTo(b)).as("%s < %s", a, b).isNegative();
            assertThat(b.compareTo(a)).isPositive();
        }
    }

    @Test
    void buildMetadataIsKeptButIgnoredForPrecedence() {
        SemVer a = SemVer.parse("1.0.0+build.1");
        SemVer b = SemVer.parse("1.0.0+build.2");
        assertThat(a.compareTo(b)).isZero();
        assertThat(a).isNotEqualTo(b);
        assertThat(a.toString()).isEqualTo("1.0.0+build.1");
        assertThat(SemVer.parse("1.0.0-x-y.7+b-1").toString()).isEqualTo("1.0.0-x-y.7+b-1");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "1",
                "1.0",
                "1.0.0.0",
                "v1.0.0",
                "01.0.0",
                "1.01.0",
                "1.0.01",
                "1.0.0-",
                "1.0.0+",
                "1.0.0-01",
                "1.0.0-a..b",
                "1.0.0-ä",
                "1.0.0 ",
                " 1.0.0",
                "-1.0.0",
                "1.0.0-alpha_beta",
                "1.2.3+a..b",
                "a.b.c"
            })
    void rejectsNonStrictVersions(String text) {
        assertThatThrownBy(() -> SemVer.parse(text))
                .isInstanceOfSatisfying(
                        InvalidValueException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONTRACT_SEMVER));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0", "1.2.3", "1.0.0-0", "1.0.0-0a", "1.0.0-x.7.z.92", "1.0.0+001", "1.0.0-00a"})
    void acceptsStrictVersions(String text) {
        assertThat(SemVer.parse(text).toString()).isEqualTo(text);
    }
}
