package dev.skillgate.benchmarks.corpus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.benchmarks.corpus.SkillCorpus.Category;
import dev.skillgate.inspect.SkillValidator;
import dev.skillgate.inspect.ValidationProfile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The peer comparison's corpus is what its tables say it is: deterministic, 1,000 bundles, and
 * each category gives Skillgate the verdicts the category's description implies (so a changed
 * validator or a changed generator shows up here, not as a silently different table).
 */
class SkillCorpusTest {

    @Test
    void theSameSeedGivesTheSameBytesAndADifferentSeedDoesNot() {
        List<SkillCorpus.Bundle> a = SkillCorpus.generate(7);
        List<SkillCorpus.Bundle> b = SkillCorpus.generate(7);
        List<SkillCorpus.Bundle> c = SkillCorpus.generate(8);
        assertThat(a).hasSize(SkillCorpus.SIZE);
        for (int i = 0; i < a.size(); i++) {
            assertThat(a.get(i).skillMd()).isEqualTo(b.get(i).skillMd());
            assertThat(a.get(i).directoryName()).isEqualTo(b.get(i).directoryName());
        }
        assertThat(a.stream()
                        .filter(x -> !java.util.Arrays.equals(
                                x.skillMd(), c.get(x.index()).skillMd())))
                .isNotEmpty();
    }

    @Test
    void everyCategoryGivesSkillgateTheVerdictsItsDescriptionImplies(@TempDir Path root) throws IOException {
        List<SkillCorpus.Bundle> corpus = SkillCorpus.standard();
        List<Path> dirs = SkillCorpus.write(root, corpus);
        Map<Category, int[]> valid = new EnumMap<>(Category.class);
        for (int i = 0; i < corpus.size(); i++) {
            int[] v = valid.computeIfAbsent(corpus.get(i).category(), k -> new int[2]);
            v[0] += SkillValidator.validate(dirs.get(i), ValidationProfile.STRICT)
                            .portable()
                    ? 1
                    : 0;
            v[1] += SkillValidator.validate(dirs.get(i), ValidationProfile.REFERENCE_COMPATIBLE)
                            .portable()
                    ? 1
                    : 0;
        }
        Set<Category> allValid = Set.of(
                Category.VALID_MINIMAL,
                Category.VALID_ALL_FIELDS,
                Category.VALID_CRLF,
                Category.BODY_WITH_DASH_LINE,
                Category.SPLIT_INSIDE_VALUE,
                Category.ASTRAL_DESCRIPTION,
                Category.UNTYPED_SCALARS);
        Set<Category> validOnlyUnderReference = Set.of(
                Category.NFKC_NAME,
                Category.UNICODE_NAME_CYRILLIC_CJK,
                Category.UNICODE_NAME_OTHER_SCRIPTS,
                Category.EMPTY_COMPATIBILITY,
                Category.NESTED_METADATA);
        for (Category c : Category.values()) {
            int[] v = valid.get(c);
            if (allValid.contains(c)) {
                assertThat(v).as(c.name()).containsExactly(c.count(), c.count());
            } else if (validOnlyUnderReference.contains(c)) {
                assertThat(v).as(c.name()).containsExactly(0, c.count());
            } else {
                assertThat(v).as(c.name()).containsExactly(0, 0);
            }
        }
    }
}
