package dev.skillgate.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The name rules of the conformance cases in {@code reference/agent-skills-cases.md} section C,
 * strict column. Cases about the directory match, a missing field or a non-string value are
 * bundle-level rules checked by the inspector and are listed there, not here.
 */
class SkillNameTest {

    static Stream<Arguments> strictCases() {
        return Stream.of(
                Arguments.of("C01", "pdf-processing", codes()),
                Arguments.of("C02", "data-analysis", codes()),
                Arguments.of("C03", "pdf2-tools", codes()),
                Arguments.of("C04", "123", codes()),
                Arguments.of("C05", "PDF-Processing", codes(ErrorCode.NAME_LOWERCASE)),
                Arguments.of("C06", "MySkill", codes(ErrorCode.NAME_LOWERCASE)),
                Arguments.of("C07", "-my-skill", codes(ErrorCode.NAME_HYPHEN_EDGE)),
                Arguments.of("C08", "my-skill-", codes(ErrorCode.NAME_HYPHEN_EDGE)),
                Arguments.of("C09", "-", codes(ErrorCode.NAME_HYPHEN_EDGE)),
                Arguments.of("C10", "my--skill", codes(ErrorCode.NAME_HYPHEN_DOUBLE)),
                Arguments.of("C11", "pdf--processing", codes(ErrorCode.NAME_HYPHEN_DOUBLE)),
                Arguments.of("C12", "my_skill", codes(ErrorCode.NAME_CHARSET)),
                Arguments.of("C13", "my skill", codes(ErrorCode.NAME_CHARSET)),
                Arguments.of("C14", "my.skill", codes(ErrorCode.NAME_CHARSET)),
                Arguments.of("C15", "a".repeat(64), codes()),
                Arguments.of("C16", "a".repeat(65), codes(ErrorCode.NAME_LENGTH)),
                Arguments.of("C17", "a".repeat(70), codes(ErrorCode.NAME_LENGTH)),
                Arguments.of("C19", "", codes(ErrorCode.NAME_TYPE)),
                Arguments.of("C22", "  my-skill  ", codes(ErrorCode.NAME_CHARSET)),
                Arguments.of("C25", "技能", codes(ErrorCode.NAME_CHARSET)),
                Arguments.of("C26", "мой-навык", codes(ErrorCode.NAME_CHARSET)),
                Arguments.of("C27", "навык", codes(ErrorCode.NAME_CHARSET)),
                Arguments.of("C28", "НАВЫК", codes(ErrorCode.NAME_LOWERCASE, ErrorCode.NAME_CHARSET)),
                Arguments.of("C29", "cafe\u0301", codes(ErrorCode.NAME_CHARSET)),
                Arguments.of("C30", "ａｂｃ", codes(ErrorCode.NAME_CHARSET)),
                Arguments.of("C31", "\u01C5", codes(ErrorCode.NAME_CHARSET)),
                Arguments.of("C32", "\uFB01".repeat(33), codes(ErrorCode.NAME_CHARSET)),
                Arguments.of("C33", "fun😀", codes(ErrorCode.NAME_CHARSET)),
                Arguments.of("C34", "a²", codes(ErrorCode.NAME_CHARSET)),
                Arguments.of("C35", "straße", codes(ErrorCode.NAME_CHARSET)),
                Arguments.of("C36", "v١٢", codes(ErrorCode.NAME_CHARSET)),
                Arguments.of("C37", "true", codes()),
                Arguments.of("C38", "<b>x</b>", codes(ErrorCode.NAME_CHARSET)),
                Arguments.of(
                        "C39",
                        "-Bad--Name_",
                        codes(
                                ErrorCode.NAME_LOWERCASE,
                                ErrorCode.NAME_HYPHEN_EDGE,
                                ErrorCode.NAME_HYPHEN_DOUBLE,
                                ErrorCode.NAME_CHARSET)),
                Arguments.of("C40", "claude-helper", codes()),
                Arguments.of("C41", "कौशल", codes(ErrorCode.NAME_CHARSET)),
                Arguments.of("C42", "ทักษะ", codes(ErrorCode.NAME_CHARSET)),
                Arguments.of("C43", "مهارة", codes(ErrorCode.NAME_CHARSET)));
    }

    private static List<ErrorCode> codes(ErrorCode... codes) {
        return Arrays.asList(codes);
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("strictCases")
    void strictRulesMatchTheConformanceCase(String id, String name, List<ErrorCode> expected) {
        List<ErrorCode> actual =
                SkillName.check(name).stream().map(Diagnostic::code).toList();
        assertThat(actual).as(id).containsExactlyElementsOf(expected);
        assertThat(SkillName.isValid(name)).isEqualTo(expected.isEmpty());
        if (expected.isEmpty()) {
            assertThat(SkillName.of(name).value()).isEqualTo(name);
        } else {
            assertThatThrownBy(() -> SkillName.of(name))
                    .isInstanceOfSatisfying(
                            InvalidValueException.class,
                            e -> assertThat(e.code()).isEqualTo(expected.get(0)));
        }
    }

    @ParameterizedTest
    @MethodSource("strictCases")
    void messagesNeverCarryMoreThanAnExcerptOfTheName(String id, String name, List<ErrorCode> expected) {
        for (Diagnostic d : SkillName.check(name + "x".repeat(10_000))) {
            assertThat(d.message().length()).as(id).isLessThanOrEqualTo(Diagnostic.MAX_MESSAGE_LENGTH + 1);
        }
    }
}
