package dev.skillgate.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.Severity;

/**
 * Fuzzes {@code SKILL.md} bytes through both validation profiles: whatever the bytes, the result is
 * a report with diagnostics — never an exception, never a verdict without a reason, never a message
 * longer than the diagnostic bound, and a parsed document always keeps the exact input bytes. Runs
 * its seed corpus in regression mode under {@code mvn test}; {@code JAZZER_FUZZ=1} fuzzes.
 */
class SkillMarkdownFuzzTest {
    private static final String[] DIRECTORIES = {"my-skill", "t", "\u6280\u80fd", "Bad_Dir"};

    @FuzzTest(maxDuration = "30s")
    void anyBytesGiveAReportWithDiagnostics(FuzzedDataProvider data) {
        String directory = DIRECTORIES[data.consumeInt(0, DIRECTORIES.length - 1)];
        byte[] bytes = data.consumeRemainingAsBytes();
        for (ValidationProfile profile : ValidationProfile.values()) {
            ValidationReport report = SkillValidator.validateBytes(bytes, directory, profile);
            assertThat(report.profile()).isEqualTo(profile);
            if (!report.portable()) {
                assertThat(report.portableErrors()).isNotEmpty();
            }
            if (!report.loadable()) {
                assertThat(report.loadErrors()).isNotEmpty();
            }
            if (report.document().isEmpty()) {
                assertThat(report.loadable()).isFalse();
            } else {
                assertThat(report.document().get().bytes()).isEqualTo(bytes);
            }
            if (report.loadable()) {
                assertThat(report.skillName()).isPresent();
                assertThat(report.skillDescription()).isPresent();
            }
            for (Finding f : report.findings()) {
                Diagnostic d = f.diagnostic();
                assertThat(d.message()).isNotEmpty();
                // Diagnostic bounds messages in code points (plus an ellipsis); astral characters take
                // two UTF-16 units each, so String.length() is not the measure (found by fuzzing).
                assertThat(d.message().codePointCount(0, d.message().length()))
                        .isLessThanOrEqualTo(Diagnostic.MAX_MESSAGE_LENGTH + 1);
                if (f.blocksPortable()) {
                    assertThat(d.severity()).isEqualTo(Severity.ERROR);
                }
            }
            String prompt = SkillCatalog.escape(report.skillDescription().orElse(""));
            assertThat(prompt).doesNotContain("<").doesNotContain(">");
        }
    }
}
