package dev.skillgate.inspect;

import static dev.skillgate.inspect.Bundles.skillMd;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import dev.skillgate.model.Severity;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SkillDiscoveryTest {
    @TempDir
    Path root;

    private static DiscoveryResult discover(DiscoveryOptions options) {
        return SkillDiscovery.discover(options);
    }

    private static List<ErrorCode> codes(List<Diagnostic> diagnostics) {
        return diagnostics.stream().map(Diagnostic::code).toList();
    }

    @Test
    void optionsRejectOutOfRangeValuesInsteadOfClamping() {
        assertThatThrownBy(() -> DiscoveryOptions.builder().maxDepth(0))
                .isInstanceOfSatisfying(
                        InvalidValueException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.LIMIT_OUT_OF_RANGE));
        assertThatThrownBy(() -> DiscoveryOptions.builder().maxDepth(17)).isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> DiscoveryOptions.builder().maxEntriesPerRoot(0))
                .isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> DiscoveryOptions.builder().maxEntriesPerRoot(1_000_001))
                .isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> DiscoveryOptions.builder().build()).isInstanceOf(InvalidValueException.class);
        DiscoveryOptions.Builder many = DiscoveryOptions.builder();
        for (int i = 0; i < 64; i++) {
            many.root(root);
        }
        assertThatThrownBy(() -> many.root(root)).isInstanceOf(InvalidValueException.class);
        DiscoveryOptions edges = DiscoveryOptions.builder()
                .root(root)
                .maxDepth(16)
                .maxEntriesPerRoot(1_000_000)
                .build();
        assertThat(edges.maxDepth()).isEqualTo(16);
        assertThat(edges.profile()).isEqualTo(ValidationProfile.STRICT);
    }

    @Test
    void depthBoundIsHonouredAndReported() {
        Bundles.valid(root.resolve("a/b"), "deep-skill"); // skill directory at depth 3
        DiscoveryResult shallow =
                discover(DiscoveryOptions.builder().root(root).maxDepth(2).build());
        assertThat(shallow.skills()).isEmpty();
        assertThat(codes(shallow.diagnostics())).containsExactly(ErrorCode.LAYOUT_WALK_LIMIT);
        DiscoveryResult deep =
                discover(DiscoveryOptions.builder().root(root).maxDepth(3).build());
        assertThat(deep.skills()).extracting(DiscoveredSkill::name).containsExactly("deep-skill");
        assertThat(deep.skills().get(0).relativePath()).isEqualTo("a/b/deep-skill");
        assertThat(deep.diagnostics()).isEmpty();
    }

    @Test
    void entryBoundStopsTheRootDeterministically() {
        for (int i = 0; i < 10; i++) {
            Bundles.valid(root, "skill-" + i);
        }
        DiscoveryResult limited = discover(
                DiscoveryOptions.builder().root(root).maxEntriesPerRoot(5).build());
        assertThat(limited.skills()).isEmpty();
        assertThat(codes(limited.diagnostics())).containsExactly(ErrorCode.LAYOUT_WALK_LIMIT);
        DiscoveryResult enough = discover(
                DiscoveryOptions.builder().root(root).maxEntriesPerRoot(10).build());
        assertThat(enough.skills()).hasSize(10);
    }

    @Test
    void orderIsDeterministicAndByCodePoint() {
        for (String n : List.of("zeta", "alpha", "mid", "Beta-dir")) {
            Bundles.valid(root, n);
        }
        DiscoveryResult first = discover(DiscoveryOptions.of(List.of(root)));
        DiscoveryResult second = discover(DiscoveryOptions.of(List.of(root)));
        assertThat(first.skills())
                .extracting(DiscoveredSkill::name)
                .containsExactly("Beta-dir", "alpha", "mid", "zeta");
        assertThat(second).isEqualTo(first);
    }

    @Test
    void hiddenDirectoriesNodeModulesAndNestedSkillsAreSkipped() {
        Bundles.valid(root.resolve(".git"), "hidden");
        Bundles.valid(root.resolve("node_modules"), "dependency");
        Path outer = Bundles.valid(root, "outer");
        Bundles.valid(outer.resolve("references"), "inner");
        DiscoveryResult result = discover(DiscoveryOptions.of(List.of(root)));
        assertThat(result.skills()).extracting(DiscoveredSkill::name).containsExactly("outer");
    }

    @Test
    void linkedIntermediateDirectoriesAndFifosAreNeverEntered() throws Exception {
        Path outside = Files.createDirectories(root.resolve("outside"));
        Bundles.valid(outside.resolve("group"), "far-skill");
        Path skills = Files.createDirectories(root.resolve("skills"));
        Files.createSymbolicLink(skills.resolve("group"), outside.resolve("group"));
        HostileInputsTest.mkfifo(skills.resolve("pipe"));
        Bundles.valid(skills, "near-skill");
        DiscoveryResult result = discover(DiscoveryOptions.of(List.of(skills)));
        assertThat(result.skills()).extracting(DiscoveredSkill::name).containsExactly("near-skill");
        assertThat(codes(result.diagnostics())).containsExactly(ErrorCode.LAYOUT_LINK);
    }

    @Test
    void rootProblemsAreReported() throws IOException {
        Path real = Files.createDirectories(root.resolve("real"));
        Path link = Files.createSymbolicLink(root.resolve("link"), real);
        Path file = Bundles.write(root.resolve("file"), "x");
        DiscoveryResult result = discover(DiscoveryOptions.of(List.of(root.resolve("missing"), link, file)));
        assertThat(codes(result.diagnostics()))
                .containsExactly(ErrorCode.LAYOUT_PATH, ErrorCode.LAYOUT_LINK, ErrorCode.LAYOUT_DIR);
    }

    @Test
    void sameNameWithinOneRootFirstInWalkOrderWins() {
        Bundles.skill(root, "a-dir", skillMd("name: dup\ndescription: first"));
        Bundles.skill(root, "b-dir", skillMd("name: dup\ndescription: second"));
        DiscoveryResult result = discover(DiscoveryOptions.of(List.of(root)));
        assertThat(result.skills())
                .singleElement()
                .satisfies(s -> assertThat(s.description()).isEqualTo("first"));
        assertThat(result.shadowed())
                .singleElement()
                .satisfies(s -> assertThat(s.rootIndex()).isZero());
    }

    @Test
    void lowercaseSkillMdIsDiscoveredAndReported() {
        Bundles.write(root.resolve("low/skill.md"), skillMd("name: low\ndescription: d"));
        DiscoveryResult result = discover(DiscoveryOptions.of(List.of(root)));
        assertThat(result.skills()).singleElement().satisfies(s -> {
            assertThat(s.kind()).isEqualTo(SkillKind.LOWERCASE_FILE);
            assertThat(s.location().getFileName()).hasToString("skill.md");
            assertThat(s.report().has(ErrorCode.LAYOUT_SKILLMD_CASE)).isTrue();
        });
    }

    @Test
    void legacyFlatFileIsLoadableNotPortableAndBorrowsNothing() {
        Bundles.write(root.resolve("legacy-one.md"), skillMd("name: legacy-one\ndescription: old style"));
        // A neighbouring folder of the same name with a manifest but no SKILL.md is not borrowed.
        Bundles.write(root.resolve("legacy-one/execution.json"), "{\"schemaVersion\":1}");
        Bundles.write(root.resolve("mismatch.md"), skillMd("name: other-name\ndescription: d"));
        Bundles.write(root.resolve("notes.md"), "# just notes\n");
        DiscoveryResult result = discover(DiscoveryOptions.of(List.of(root)));
        assertThat(result.skills()).extracting(DiscoveredSkill::name).containsExactly("legacy-one", "other-name");
        DiscoveredSkill legacy = result.skills().get(0);
        assertThat(legacy.kind()).isEqualTo(SkillKind.LEGACY_FLAT);
        assertThat(legacy.report().portable()).isFalse();
        assertThat(legacy.report().loadable()).isTrue();
        assertThat(legacy.report().has(ErrorCode.LAYOUT_LEGACY_FLAT)).isTrue();
        assertThat(legacy.directory()).isEmpty();
        assertThat(legacy.resources(1024)).isEmpty();
        assertThat(legacy.location().getFileName()).hasToString("legacy-one.md");
        assertThat(result.skills().get(1).report().diagnostics())
                .anySatisfy(d -> assertThat(d.message()).contains("File name 'mismatch'"));
        DiscoveryResult off = discover(
                DiscoveryOptions.builder().root(root).legacyFlatFiles(false).build());
        assertThat(off.skills()).isEmpty();
    }

    @Test
    void resourcesResolveUnderTheSkillDirectory() {
        Path dir = Bundles.valid(root, "with-refs");
        Bundles.write(dir.resolve("references/REFERENCE.md"), "details");
        DiscoveredSkill skill =
                discover(DiscoveryOptions.of(List.of(root))).skills().get(0);
        assertThat(skill.directory()).contains(dir.toAbsolutePath().normalize());
        BoundedReader reader = skill.resources(1024).orElseThrow();
        assertThat(reader.readText("references/REFERENCE.md", 100)
                        .value()
                        .orElseThrow()
                        .text())
                .contains("details");
        assertThat(reader.readText("../with-refs/SKILL.md", 100)
                        .diagnostic()
                        .orElseThrow()
                        .code())
                .isEqualTo(ErrorCode.PATH_TRAVERSAL);
    }

    @Test
    void promptOnlyDiscoveryNeedsNoManifestAndSurvivesABrokenOne() {
        Path none = Bundles.valid(root, "no-manifest");
        Path broken = Bundles.valid(root, "broken-manifest");
        Bundles.write(broken.resolve("execution.json"), "{ not json, \"schemaVersion\": 99");
        DiscoveryResult result = discover(DiscoveryOptions.of(List.of(root)));
        assertThat(result.skills()).extracting(DiscoveredSkill::name).containsExactly("broken-manifest", "no-manifest");
        assertThat(result.skills())
                .allSatisfy(s -> assertThat(s.report().portable()).isTrue());
        assertThat(none.resolve("execution.json")).doesNotExist();
    }

    @Test
    void referenceProfileCanBeChosen() {
        Bundles.valid(root, "ok-skill");
        Bundles.skill(root, "мой-навык", skillMd("name: мой-навык\ndescription: d"));
        DiscoveryResult ref = discover(DiscoveryOptions.builder()
                .root(root)
                .profile(ValidationProfile.REFERENCE_COMPATIBLE)
                .build());
        assertThat(ref.skills()).allSatisfy(s -> {
            assertThat(s.report().profile()).isEqualTo(ValidationProfile.REFERENCE_COMPATIBLE);
        });
        assertThat(ref.skills()).hasSize(2);
    }

    @Test
    void aDirectoryWhoseNameIsNotUtf8IsReportedNotSilentlySkipped() throws Exception {
        Bundles.valid(root, "ok-skill");
        // The JVM decodes the byte 0xFF as U+FFFD, a name that no longer reaches the directory.
        Process mkdir = new ProcessBuilder(
                        "sh",
                        "-c",
                        "d=\"$1/$(printf 'bad\\377')\" && mkdir \"$d\""
                                + " && printf -- '---\\nname: bad\\ndescription: d\\n---\\n' > \"$d/SKILL.md\"",
                        "sh",
                        root.toString())
                .start();
        assertThat(mkdir.waitFor()).as("mkdir through the shell").isZero();

        DiscoveryResult result = discover(DiscoveryOptions.of(List.of(root)));

        assertThat(result.skills()).extracting(DiscoveredSkill::name).containsExactly("ok-skill");
        assertThat(result.rejected()).isEmpty();
        assertThat(codes(result.diagnostics())).containsExactly(ErrorCode.LAYOUT_NAME_ENCODING);
        assertThat(result.diagnostics().get(0).severity()).isEqualTo(Severity.WARNING);
    }

    @Test
    void aDirectoryThisUserMayNotReadIsAnIoProblemNotALink() throws Exception {
        // Root reads every directory, so the refusal is only observable for an ordinary user.
        org.junit.jupiter.api.Assumptions.assumeFalse(
                "root".equals(System.getProperty("user.name")), "root bypasses directory permissions");
        Bundles.valid(root, "ok-skill");
        Path locked = Files.createDirectory(root.resolve("locked"));
        Files.setPosixFilePermissions(locked, java.util.Set.of());
        try {
            DiscoveryResult result = discover(DiscoveryOptions.of(List.of(root)));
            assertThat(result.skills()).extracting(DiscoveredSkill::name).containsExactly("ok-skill");
            assertThat(codes(result.diagnostics())).containsExactly(ErrorCode.READ_IO);
            assertThat(result.diagnostics().get(0).message()).doesNotContain("link");
        } finally {
            Files.setPosixFilePermissions(locked, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        }
    }
}
