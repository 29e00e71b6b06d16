package dev.skillgate.inspect;

import static dev.skillgate.inspect.Bundles.skillMd;
import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Severity;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18 items 4–6 on real directories: every case below failed before (decisions 0635, 0636):
 * a skill with {@code disable-model-invocation: true} in the model-facing block, {@code
 * allowed-tools} never reported as not enforced, a root that is a skill directory listing nothing,
 * an overflowing root listing 0 skills without an error, {@code R R} shadowing every skill by
 * itself, and dot-directories skipped without a word.
 */
class CatalogHonestyTest {
    @TempDir
    Path root;

    private static DiscoveryResult discover(Path... roots) {
        return SkillDiscovery.discover(DiscoveryOptions.of(List.of(roots)));
    }

    private static List<String> names(DiscoveryResult result) {
        return result.skills().stream().map(DiscoveredSkill::name).toList();
    }

    private static List<ErrorCode> codes(List<Diagnostic> diagnostics) {
        return diagnostics.stream().map(Diagnostic::code).toList();
    }

    @Test
    void disableModelInvocationKeepsASkillOutOfThePromptButListedForTheUser() {
        Bundles.skill(root, "user-only", skillMd("name: user-only\ndescription: d\ndisable-model-invocation: true"));
        Bundles.skill(root, "yes-spelled", skillMd("name: yes-spelled\ndescription: d\ndisable-model-invocation: Yes"));
        Bundles.skill(root, "open-skill", skillMd("name: open-skill\ndescription: d\ndisable-model-invocation: false"));
        SkillCatalog catalog = SkillCatalog.of(discover(root));
        assertThat(catalog.entries())
                .extracting(SkillCatalog.Entry::name)
                .containsExactly("open-skill", "user-only", "yes-spelled");
        assertThat(catalog.modelEntries()).extracting(SkillCatalog.Entry::name).containsExactly("open-skill");
        assertThat(catalog.prompt())
                .contains("open-skill")
                .doesNotContain("user-only")
                .doesNotContain("yes-spelled");
        assertThat(catalog.toJson()).doesNotContain("user-only");
        SkillCatalog all = catalog.includingModelInvocationDisabled();
        assertThat(all.prompt()).contains("user-only").contains("yes-spelled");
    }

    @Test
    void aCatalogOfOnlyUserInvocableSkillsHasNoPromptBlock() {
        Bundles.skill(root, "user-only", skillMd("name: user-only\ndescription: d\ndisable-model-invocation: true"));
        SkillCatalog catalog = SkillCatalog.of(discover(root));
        assertThat(catalog.entries()).hasSize(1);
        assertThat(catalog.prompt()).isEmpty();
    }

    @Test
    void disableModelInvocationIsReportedAsHonouredInTheSafeDirection() {
        Path dir = Bundles.skill(
                root, "user-only", skillMd("name: user-only\ndescription: d\ndisable-model-invocation: true"));
        ValidationReport r = SkillValidator.validate(dir, ValidationProfile.STRICT);
        assertThat(r.diagnostics())
                .filteredOn(d -> d.code() == ErrorCode.KEYS_HOST_EXTENSION)
                .singleElement()
                .satisfies(d -> assertThat(d.message()).contains("honoured only in the safe direction"));
    }

    @Test
    void allowedToolsInAnyFormIsReportedAsNotEnforced() {
        Path text = Bundles.skill(root, "as-text", skillMd("name: as-text\ndescription: d\nallowed-tools: Bash Read"));
        Path list = Bundles.skill(
                root, "as-list", skillMd("name: as-list\ndescription: d\nallowed-tools:\n  - Bash\n  - Read"));
        assertThat(codes(SkillValidator.validate(text, ValidationProfile.STRICT).diagnostics()))
                .containsExactly(ErrorCode.TOOLS_NOT_ENFORCED);
        assertThat(codes(SkillValidator.validate(list, ValidationProfile.STRICT).diagnostics()))
                .containsExactly(ErrorCode.TOOLS_TYPE, ErrorCode.TOOLS_NOT_ENFORCED);
    }

    @Test
    void aRootThatIsASkillDirectoryListsThatSkill() {
        Path dir = Bundles.valid(root, "hello");
        Bundles.valid(dir.resolve("references"), "nested"); // inside a skill: never a second skill
        DiscoveryResult result = discover(dir);
        assertThat(names(result)).containsExactly("hello");
        DiscoveredSkill skill = result.skills().get(0);
        assertThat(skill.location()).isEqualTo(dir.resolve("SKILL.md"));
        assertThat(skill.relativePath()).isEmpty();
        assertThat(skill.directory()).contains(dir);
        assertThat(skill.resources(1000)
                        .orElseThrow()
                        .readText("SKILL.md", 1000)
                        .value())
                .isPresent();
    }

    @Test
    void anOverflowingRootIsAnErrorUnlessAPartialCatalogIsAccepted() {
        Bundles.valid(root.resolve("a-group"), "early");
        for (int i = 0; i < 10; i++) {
            Bundles.valid(root.resolve("z-group"), "late-" + i);
        }
        DiscoveryResult refused = SkillDiscovery.discover(
                DiscoveryOptions.builder().root(root).maxEntriesPerRoot(5).build());
        assertThat(refused.incomplete()).isTrue();
        assertThat(refused.skills()).isEmpty();
        assertThat(refused.diagnostics())
                .filteredOn(d -> d.code() == ErrorCode.LAYOUT_WALK_LIMIT)
                .singleElement()
                .satisfies(d -> assertThat(d.severity()).isEqualTo(Severity.ERROR));
        DiscoveryResult partial = SkillDiscovery.discover(DiscoveryOptions.builder()
                .root(root)
                .maxEntriesPerRoot(5)
                .acceptPartial(true)
                .build());
        assertThat(partial.incomplete()).isTrue();
        assertThat(names(partial)).containsExactly("early");
        assertThat(partial.diagnostics())
                .filteredOn(d -> d.code() == ErrorCode.LAYOUT_WALK_LIMIT)
                .singleElement()
                .satisfies(d -> assertThat(d.severity()).isEqualTo(Severity.WARNING));
        DiscoveryResult raised = SkillDiscovery.discover(
                DiscoveryOptions.builder().root(root).maxEntriesPerRoot(100).build());
        assertThat(raised.incomplete()).isFalse();
        assertThat(raised.skills()).hasSize(11);
    }

    @Test
    void aRootGivenTwiceIsSearchedOnceAndShadowsNothing() {
        Bundles.valid(root, "one");
        Bundles.valid(root, "two");
        DiscoveryResult result = discover(root, root);
        assertThat(names(result)).containsExactly("one", "two");
        assertThat(result.shadowed()).isEmpty();
        assertThat(codes(result.diagnostics())).containsExactly(ErrorCode.LAYOUT_SKIPPED);
        assertThat(result.diagnostics().get(0).severity()).isEqualTo(Severity.INFO);
    }

    @Test
    void overlappingRootsDoNotShadowASkillByItself() {
        Path group = root.resolve("group");
        Bundles.valid(group, "inner");
        DiscoveryResult result = discover(root, group);
        assertThat(names(result)).containsExactly("inner");
        assertThat(result.shadowed()).isEmpty();
        assertThat(codes(result.diagnostics())).containsExactly(ErrorCode.LAYOUT_SKIPPED);
    }

    @Test
    void dotDirectoriesAreSearchedAndVersionControlMetadataIsReportedWhenSkipped() {
        Bundles.valid(root.resolve(".curated"), "curated-skill");
        Bundles.valid(root.resolve(".claude/skills"), "claude-skill");
        Bundles.valid(root.resolve(".git"), "in-git");
        Bundles.valid(root.resolve("node_modules"), "in-deps");
        DiscoveryResult result = discover(root);
        assertThat(names(result)).containsExactly("claude-skill", "curated-skill");
        assertThat(result.diagnostics())
                .extracting(d -> d.code() + " " + d.severity() + " "
                        + Path.of(d.location()).getFileName())
                .containsExactly("LAYOUT_SKIPPED INFO .git", "LAYOUT_SKIPPED INFO node_modules");
        DiscoveryResult without = SkillDiscovery.discover(
                DiscoveryOptions.builder().root(root).dotDirectories(false).build());
        assertThat(names(without)).isEmpty();
        assertThat(without.diagnostics())
                .extracting(d -> Path.of(d.location()).getFileName().toString())
                .containsExactly(".claude", ".curated", ".git", "node_modules");
        assertThat(codes(without.diagnostics())).containsOnly(ErrorCode.LAYOUT_SKIPPED);
    }
}
