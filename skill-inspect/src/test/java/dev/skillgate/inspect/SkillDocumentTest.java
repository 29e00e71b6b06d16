package dev.skillgate.inspect;

import static dev.skillgate.inspect.Bundles.skillMd;
import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Severity;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Preservation (original bytes, raw frontmatter, unknown fields, body) and the YAML limits. */
class SkillDocumentTest {
    private static ValidationReport strict(String content, String dir) {
        return SkillValidator.validateBytes(content.getBytes(StandardCharsets.UTF_8), dir, ValidationProfile.STRICT);
    }

    private static List<ErrorCode> errorCodes(ValidationReport r) {
        return r.portableErrors().stream().map(Diagnostic::code).toList();
    }

    @Test
    void everythingIsPreservedVerbatim() {
        String frontmatter = "name: keep\r\ndescription: \"  a---b  \"\r\nhooks:\r\n  PreToolUse:\r\n"
                + "    - command: touch /tmp/never\r\nx-private: [1, 2]\r\nmetadata:\r\n  version: 1.10\r\n";
        String content = "---\r\n" + frontmatter + "---\r\n\r\n# Body\r\n---\r\nstill body\r\n";
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        ValidationReport r = SkillValidator.validateBytes(bytes, "keep", ValidationProfile.STRICT);
        SkillDocument doc = r.document().orElseThrow();
        assertThat(doc.bytes()).isEqualTo(bytes);
        assertThat(doc.frontmatterText()).isEqualTo(frontmatter);
        assertThat(doc.body()).isEqualTo("\r\n# Body\r\n---\r\nstill body\r\n");
        assertThat(doc.description()).contains("  a---b  ");
        assertThat(r.skillDescription()).contains("a---b");
        assertThat(doc.stringMetadata()).containsExactly(Map.entry("version", "1.10"));
        assertThat(doc.fields().entries().keySet())
                .containsExactly("name", "description", "hooks", "x-private", "metadata");
        assertThat(doc.preservedFields()).extracting(PreservedField::key).containsExactly("hooks", "x-private");
        assertThat(doc.preservedFields().get(0).host()).contains("Claude Code");
        assertThat(doc.preservedFields().get(1).isHostExtension()).isFalse();
        assertThat(doc.preservedFields().get(1).value())
                .isEqualTo(new FrontmatterValue.Sequence(
                        List.of(new FrontmatterValue.Scalar("1"), new FrontmatterValue.Scalar("2"))));
        assertThat(r.portable()).isFalse();
        assertThat(r.loadable()).isTrue();
        assertThat(errorCodes(r)).containsExactly(ErrorCode.KEYS_HOST_EXTENSION, ErrorCode.KEYS_UNKNOWN);
        assertThat(r.portableErrors()).allSatisfy(d -> assertThat(d.message()).contains("preserved, not enforced"));
        byte[] copy = doc.bytes();
        copy[0] = 'X';
        assertThat(doc.bytes()[0]).isEqualTo((byte) '-');
    }

    @Test
    void scalarsAreTextNeverTyped() {
        ValidationReport r = strict(
                skillMd(
                        "name: 123\ndescription: 1e3\nlicense: null\ncompatibility: ~\nmetadata:\n  on: yes\n  n: 0x1F"),
                "123");
        SkillDocument doc = r.document().orElseThrow();
        assertThat(doc.name()).contains("123");
        assertThat(doc.description()).contains("1e3");
        assertThat(doc.license()).contains("null");
        assertThat(doc.compatibility()).contains("~");
        assertThat(doc.stringMetadata()).containsExactly(Map.entry("on", "yes"), Map.entry("n", "0x1F"));
        assertThat(r.portable()).isTrue();
    }

    @Test
    void allowedToolsIsDataThatGrantsNothing() {
        ValidationReport r = strict(skillMd("name: t\ndescription: d\nallowed-tools: Bash(*) Write"), "t");
        assertThat(r.document().orElseThrow().allowedTools()).contains(new FrontmatterValue.Scalar("Bash(*) Write"));
        // Issue 18: reported as preserved, not enforced, also when written as a plain string.
        assertThat(r.diagnostics())
                .extracting(d -> d.code() + " " + d.severity())
                .containsExactly("TOOLS_NOT_ENFORCED INFO");
        assertThat(r.portable()).isTrue();
    }

    @Test
    void tagsAnchorsAndMultipleDocumentsAreRefused() {
        assertThat(errorCodes(strict(skillMd("name: !!str t\ndescription: d"), "t")))
                .containsExactly(ErrorCode.FM_TAG);
        assertThat(errorCodes(strict(skillMd("name: t\ndescription: !java.lang.Runtime d"), "t")))
                .containsExactly(ErrorCode.FM_TAG);
        assertThat(errorCodes(strict(skillMd("name: t\ndescription: d\nm: !!map {a: b}"), "t")))
                .containsExactly(ErrorCode.FM_TAG);
        assertThat(errorCodes(strict(skillMd("name: &n t\ndescription: d"), "t")))
                .containsExactly(ErrorCode.FM_ALIAS);
        assertThat(errorCodes(strict(skillMd("name: t\ndescription: d\n--- x\n"), "t")))
                .containsExactly(ErrorCode.FM_YAML);
        assertThat(errorCodes(strict(skillMd("name: t\ndescription: d\n? [a]\n: b"), "t")))
                .containsExactly(ErrorCode.FM_YAML);
        assertThat(errorCodes(strict(skillMd("name: t\ndescription: d\nmetadata:\n  a: 1\n  a: 2"), "t")))
                .containsExactly(ErrorCode.FM_DUPLICATE_KEY);
    }

    @Test
    void depthBoundIsExact() {
        // depth 1 is the top-level mapping; "x" adds 31 more nested flow lists → 32 levels: accepted.
        String ok = "name: t\ndescription: d\nx: " + "[".repeat(31) + "]".repeat(31);
        assertThat(strict(skillMd(ok), "t").has(ErrorCode.FM_DEPTH)).isFalse();
        String over = "name: t\ndescription: d\nx: " + "[".repeat(32) + "]".repeat(32);
        assertThat(errorCodes(strict(skillMd(over), "t"))).containsExactly(ErrorCode.FM_DEPTH);
    }

    @Test
    void yamlErrorMessagesNeverEchoLargeInput() {
        String huge = "name: t\ndescription: " + "y".repeat(5000) + ": z";
        ValidationReport r = strict(skillMd(huge), "t");
        assertThat(errorCodes(r)).containsExactly(ErrorCode.FM_YAML);
        assertThat(r.portableErrors().get(0).message()).hasSizeLessThan(301).doesNotContain("y".repeat(100));
    }

    @Test
    void hostRulesAreNotesThatBlockNothing() {
        ValidationReport r = strict(skillMd("name: claude-helper\ndescription: Use <foo> tags"), "claude-helper");
        assertThat(r.portable()).isTrue();
        assertThat(r.diagnostics())
                .extracting(Diagnostic::code)
                .containsExactly(ErrorCode.HOST_ANTHROPIC_RESERVED, ErrorCode.HOST_ANTHROPIC_NO_XML);
        assertThat(r.diagnostics()).allSatisfy(d -> assertThat(d.severity()).isEqualTo(Severity.INFO));
    }

    @Test
    void manyUnknownKeysAreReportedBoundedly() {
        StringBuilder fm = new StringBuilder("name: t\ndescription: d\n");
        for (int i = 0; i < 500; i++) {
            fm.append("k").append(i).append(": v\n");
        }
        ValidationReport r = strict(skillMd(fm.toString()), "t");
        assertThat(r.diagnostics()).hasSize(21);
        assertThat(r.diagnostics().get(20).message()).startsWith("480 more");
        assertThat(r.document().orElseThrow().preservedFields()).hasSize(500);
    }
}
