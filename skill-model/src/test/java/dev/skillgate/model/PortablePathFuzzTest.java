package dev.skillgate.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.skillgate.model.shared.Text;
import java.nio.file.Path;
import java.text.Normalizer;

/**
 * Fuzzes {@link PortablePath}: an accepted path never resolves outside its root and never holds a
 * rejected class; a rejected path always carries a path code. Runs its seed corpus in regression
 * mode under {@code mvn test}; {@code JAZZER_FUZZ=1} fuzzes.
 */
class PortablePathFuzzTest {
    private static final Path ROOT = Path.of("/srv/skills/root");

    @FuzzTest(maxDuration = "30s")
    void acceptedPathsStayInsideTheirRoot(FuzzedDataProvider data) {
        String value = data.consumeRemainingAsString();
        boolean valid = PortablePath.isValid(value);
        try {
            PortablePath path = PortablePath.of(value);
            assertThat(valid).isTrue();
            Path resolved = path.resolveUnder(ROOT);
            assertThat(resolved.normalize().startsWith(ROOT)).isTrue();
            assertThat(resolved.normalize()).isNotEqualTo(ROOT);
            assertThat(value).doesNotStartWith("/").doesNotContain("\\").doesNotContain("//");
            assertThat(path.segments()).doesNotContain("..", ".", "");
            assertThat(path.segments()).allSatisfy(s -> assertThat(s).doesNotStartWith("-"));
            assertThat(value.codePoints().noneMatch(cp -> cp == 0 || Text.isUnsafe(cp)))
                    .isTrue();
            assertThat(Normalizer.isNormalized(value, Normalizer.Form.NFC)).isTrue();
        } catch (InvalidValueException e) {
            assertThat(valid).isFalse();
            assertThat(e.code().group()).isEqualTo(ErrorGroup.PATH);
            assertThat(e.getMessage().length()).isLessThan(200);
        }
    }
}
