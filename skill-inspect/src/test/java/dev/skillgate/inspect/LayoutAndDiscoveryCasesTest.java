package dev.skillgate.inspect;

import static dev.skillgate.inspect.Bundles.skillMd;
import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Severity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The layout (A), catalog (G) and lenient-discovery (H) cases of {@code agent-skills-cases.md}, and
 * F06, on real directories. (A10 and the CLI side of A02 are in skill-cli's tests.)
 */
class LayoutAndDiscoveryCasesTest {
    @TempDir
    Path root;

    private static List<String> refMessages(ValidationReport r) {
        return r.portableErrors().stream().map(Diagnostic::message).toList();
    }

    private static List<ErrorCode> strictCodes(ValidationReport r) {
        return r.portableErrors().stream().map(Diagnostic::code).toList();
    }

    private static ValidationReport ref(Path p) {
        return SkillValidator.validate(p, ValidationProfile.REFERENCE_COMPATIBLE);
    }

    private static ValidationReport strict(Path p) {
        return SkillValidator.validate(p, ValidationProfile.STRICT);
    }

    @Test
    void a01ValidMinimalSkill() {
        Path dir = Bundles.skill(root, "my-skill", skillMd("name: my-skill\ndescription: A test skill"));
        assertThat(refMessages(ref(dir))).isEmpty();
        assertThat(strict(dir).portable()).isTrue();
        assertThat(strict(dir).loadable()).isTrue();
        assertThat(strict(dir).diagnostics()).isEmpty();
    }

    @Test
    void a02MissingPath() {
        Path missing = root.resolve("nope");
        assertThat(refMessages(ref(missing))).containsExactly("Path does not exist: " + missing);
        assertThat(strictCodes(strict(missing))).containsExactly(ErrorCode.LAYOUT_PATH);
    }

    @Test
    void a03RegularFile() {
        Path file = Bundles.write(root.resolve("file.txt"), "x");
        assertThat(refMessages(ref(file))).containsExactly("Not a directory: " + file);
        assertThat(strictCodes(strict(file))).containsExactly(ErrorCode.LAYOUT_DIR);
    }

    @Test
    void a04EmptyDirectory() throws IOException {
        Path dir = Files.createDirectory(root.resolve("my-skill"));
        assertThat(refMessages(ref(dir))).containsExactly("Missing required file: SKILL.md");
        assertThat(strictCodes(strict(dir))).containsExactly(ErrorCode.LAYOUT_SKILLMD);
        assertThat(strict(dir).loadable()).isFalse();
    }

    @Test
    void a05LowercaseSkillMdIsAcceptedAndReported() {
        Path dir = root.resolve("my-skill");
        Bundles.write(dir.resolve("skill.md"), skillMd("name: my-skill\ndescription: d"));
        assertThat(refMessages(ref(dir))).isEmpty();
        ValidationReport s = strict(dir);
        assertThat(s.portable()).isTrue();
        assertThat(s.diagnostics()).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo(ErrorCode.LAYOUT_SKILLMD_CASE);
            assertThat(d.severity()).isEqualTo(Severity.WARNING);
        });
        assertThat(s.document().orElseThrow().fileName()).isEqualTo("skill.md");
    }

    @Test
    void a06UppercaseWinsOverLowercase() {
        Path dir = Bundles.skill(root, "my-skill", skillMd("name: my-skill\ndescription: upper"));
        Bundles.write(dir.resolve("skill.md"), skillMd("name: other\ndescription: lower"));
        for (ValidationProfile p : ValidationProfile.values()) {
            ValidationReport r = SkillValidator.validate(dir, p);
            assertThat(r.portable()).isTrue();
            assertThat(r.diagnostics()).isEmpty();
            assertThat(r.document().orElseThrow().description()).contains("upper");
        }
    }

    @Test
    void a07MixedCaseFileIsNotFound() {
        Path dir = root.resolve("my-skill");
        Bundles.write(dir.resolve("Skill.md"), skillMd("name: my-skill\ndescription: d"));
        assertThat(refMessages(ref(dir))).containsExactly("Missing required file: SKILL.md");
        assertThat(strictCodes(strict(dir))).containsExactly(ErrorCode.LAYOUT_SKILLMD);
    }

    @Test
    void a08ExtraFilesAndFoldersAreAllowed() throws IOException {
        Path dir = Bundles.skill(root, "my-skill", skillMd("name: my-skill\ndescription: d"));
        Bundles.write(dir.resolve("scripts/run.py"), "print('never run')\n");
        Files.createDirectories(dir.resolve("references"));
        Files.createDirectories(dir.resolve("assets"));
        Files.createDirectories(dir.resolve("examples"));
        Bundles.write(dir.resolve("agents/openai.yaml"), "interface: {}\n");
        Bundles.write(dir.resolve("LICENSE.txt"), "MIT\n");
        assertThat(refMessages(ref(dir))).isEmpty();
        assertThat(strict(dir).diagnostics()).isEmpty();
    }

    @Test
    void a09NoOptionalFoldersIsValid() {
        Path dir = Bundles.skill(root, "my-skill", skillMd("name: my-skill\ndescription: d"));
        assertThat(dir.resolve("scripts")).doesNotExist();
        assertThat(ref(dir).portable()).isTrue();
        assertThat(strict(dir).portable()).isTrue();
    }

    @Test
    void f06HostExtensionFailsThePortableVerdictByName() {
        Path dir = Bundles.skill(
                root, "my-skill", skillMd("name: my-skill\ndescription: d\ndisable-model-invocation: true"));
        ValidationReport r = strict(dir);
        // The packaging validator (S5) refuses this upload; the strict portable verdict agrees and names
        // the key as a Claude Code extension. S5's own message texts are not reproduced (no S5 profile).
        assertThat(r.portable()).isFalse();
        assertThat(r.loadable()).isTrue();
        assertThat(r.portableErrors()).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo(ErrorCode.KEYS_HOST_EXTENSION);
            assertThat(d.message()).contains("disable-model-invocation").contains("Claude Code");
        });
        PreservedField field = r.document().orElseThrow().preservedFields().get(0);
        assertThat(field.key()).isEqualTo("disable-model-invocation");
        assertThat(field.host()).contains("Claude Code");
        assertThat(field.value()).isEqualTo(new FrontmatterValue.Scalar("true"));
    }

    // ---------------------------------------------------------------- G: catalog

    private DiscoveryResult discover(Path... roots) {
        return SkillDiscovery.discover(DiscoveryOptions.of(List.of(roots)));
    }

    @Test
    void g01EmptyCatalog() {
        SkillCatalog catalog = SkillCatalog.of(List.of());
        assertThat(catalog.promptBlock()).isEqualTo("<available_skills>\n</available_skills>");
    }

    @Test
    void g02OneSkill() {
        Bundles.skill(root, "my-skill", skillMd("name: my-skill\ndescription: A test skill"));
        SkillCatalog catalog = SkillCatalog.of(discover(root));
        String location =
                root.toAbsolutePath().normalize().resolve("my-skill/SKILL.md").toString();
        assertThat(catalog.prompt())
                .isEqualTo("<available_skills>\n<skill>\n<name>\nmy-skill\n</name>\n<description>\nA test skill\n"
                        + "</description>\n<location>\n" + location + "\n</location>\n</skill>\n</available_skills>");
    }

    @Test
    void g03TwoSkillsGiveTwoBlocksInNameOrder() {
        Bundles.valid(root, "skill-b");
        Bundles.valid(root, "skill-a");
        String prompt = SkillCatalog.of(discover(root)).prompt();
        assertThat(prompt.split("<skill>", -1)).hasSize(3);
        assertThat(prompt.indexOf("skill-a")).isLessThan(prompt.indexOf("skill-b"));
    }

    @Test
    void g04EveryValueIsEscapedIncludingTheLocation() throws IOException {
        Path odd = Files.createDirectories(root.resolve("r&<o>'\""));
        Bundles.skill(odd, "my-skill", skillMd("name: my-skill\ndescription: Use <foo> & \"bar\" 'baz'"));
        String prompt = SkillCatalog.of(discover(odd)).prompt();
        assertThat(prompt).contains("\nUse &lt;foo&gt; &amp; &quot;bar&quot; &#x27;baz&#x27;\n");
        assertThat(prompt).contains("r&amp;&lt;o&gt;&#x27;&quot;/my-skill/SKILL.md");
        assertThat(prompt).doesNotContain("r&<o>");
    }

    @Test
    void g05KnownFieldsAreReadLikeReadProperties() {
        Path dir = Bundles.skill(
                root,
                "my-skill",
                skillMd("name: my-skill\ndescription: A test skill\nlicense: MIT\nmetadata:\n  author: me"));
        SkillDocument doc = strict(dir).document().orElseThrow();
        assertThat(doc.name()).contains("my-skill");
        assertThat(doc.license()).contains("MIT");
        assertThat(doc.compatibility()).isEmpty();
        assertThat(doc.stringMetadata()).containsExactly(java.util.Map.entry("author", "me"));
    }

    @Test
    void g06AnInvalidNameIsStillCatalogued() {
        Bundles.skill(root, "Bad_Name", skillMd("name: Bad_Name\ndescription: d"));
        DiscoveryResult result = discover(root);
        assertThat(result.skills()).singleElement().satisfies(s -> {
            assertThat(s.name()).isEqualTo("Bad_Name");
            assertThat(s.report().portable()).isFalse();
        });
        assertThat(SkillCatalog.of(result).prompt()).contains("\nBad_Name\n");
    }

    @Test
    void g07NoSkillsMeansNoCatalogBlock() throws IOException {
        Files.createDirectories(root.resolve("empty"));
        assertThat(SkillCatalog.of(discover(root)).prompt()).isEmpty();
    }

    // ---------------------------------------------------------------- H: lenient discovery

    @Test
    void h01NameDirectoryMismatchLoadsUnderTheFrontmatterName() {
        Bundles.skill(root, "wrong-name", skillMd("name: correct-name\ndescription: A test skill"));
        DiscoveryResult result = discover(root);
        assertThat(result.skills()).singleElement().satisfies(s -> {
            assertThat(s.name()).isEqualTo("correct-name");
            assertThat(s.report().has(ErrorCode.NAME_DIR_MATCH)).isTrue();
        });
    }

    @Test
    void h02OverlongNameLoads() {
        String name = "a".repeat(70);
        Bundles.skill(root, name, skillMd("name: " + name + "\ndescription: A test skill"));
        assertThat(discover(root).skills())
                .singleElement()
                .satisfies(
                        s -> assertThat(s.report().has(ErrorCode.NAME_LENGTH)).isTrue());
    }

    @Test
    void h03MissingOrEmptyDescriptionIsSkippedAndRecorded() {
        Bundles.skill(root, "no-desc", skillMd("name: no-desc"));
        Bundles.skill(root, "empty-desc", skillMd("name: empty-desc\ndescription: \"  \""));
        DiscoveryResult result = discover(root);
        assertThat(result.skills()).isEmpty();
        assertThat(result.rejected()).hasSize(2);
        assertThat(result.rejected().get(0).has(ErrorCode.DESC_TYPE)).isTrue();
        assertThat(result.rejected().get(1).has(ErrorCode.DESC_REQUIRED)).isTrue();
    }

    @Test
    void h04UnparseableYamlIsSkippedAndRecorded() {
        Bundles.skill(root, "broken", "---\nname: [invalid\ndescription: broken\n---\nBody");
        DiscoveryResult result = discover(root);
        assertThat(result.skills()).isEmpty();
        assertThat(result.rejected())
                .singleElement()
                .satisfies(r -> assertThat(r.has(ErrorCode.FM_YAML)).isTrue());
    }

    @Test
    void h05FirstRootWinsAndTheOtherIsShadowed() throws IOException {
        Path project = Files.createDirectories(root.resolve("project"));
        Path user = Files.createDirectories(root.resolve("user"));
        Bundles.skill(project, "shared", skillMd("name: shared\ndescription: project copy"));
        Bundles.skill(user, "shared", skillMd("name: shared\ndescription: user copy"));
        Bundles.valid(user, "only-user");
        DiscoveryResult result = discover(project, user);
        assertThat(result.skills()).extracting(DiscoveredSkill::name).containsExactly("shared", "only-user");
        assertThat(result.skills().get(0).description()).isEqualTo("project copy");
        assertThat(result.shadowed()).singleElement().satisfies(s -> {
            assertThat(s.name()).isEqualTo("shared");
            assertThat(s.rootIndex()).isEqualTo(1);
            assertThat(s.location().toString()).contains("user");
            assertThat(s.winner().toString()).contains("project");
        });
        assertThat(result.diagnostics()).anySatisfy(d -> assertThat(d.code()).isEqualTo(ErrorCode.LAYOUT_SHADOWED));
    }

    @Test
    void h06ReadmeBesideSkillsIsIgnored() {
        Bundles.valid(root, "my-skill");
        Bundles.write(root.resolve("README.md"), "# My skills\n\nNotes.\n");
        DiscoveryResult result = discover(root);
        assertThat(result.skills()).extracting(DiscoveredSkill::name).containsExactly("my-skill");
        assertThat(result.rejected()).isEmpty();
        assertThat(result.diagnostics()).isEmpty();
    }
}
