package dev.skillgate.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.inspect.StandardRoots.ProjectTrust;
import dev.skillgate.inspect.StandardRoots.Scope;
import dev.skillgate.model.InvalidValueException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18 item 4: the Agent Skills client conventions as an API — project {@code .agents/skills/}
 * and {@code .<client>/skills/} up to the repository root, user roots, project over user, project
 * roots only after the host's explicit trust decision (decision 0639). There was no such API.
 */
class StandardRootsTest {
    @TempDir
    Path tmp;

    @Test
    void projectOverUserNearestFirstClientBeforeAgentsUpToTheRepositoryRoot() throws IOException {
        Path repo = Files.createDirectories(tmp.resolve("work/repo"));
        Files.createDirectories(repo.resolve(".git"));
        Path sub = Files.createDirectories(repo.resolve("pkg/sub"));
        Bundles.valid(sub.resolve(".claude/skills"), "near");
        Bundles.valid(repo.resolve(".agents/skills"), "top");
        Bundles.valid(repo.resolve(".claude/skills"), "top-claude");
        Bundles.valid(tmp.resolve("work/.agents/skills"), "above-the-repository");
        Path home = Files.createDirectories(tmp.resolve("home"));
        Bundles.valid(home.resolve(".agents/skills"), "mine");
        Bundles.valid(home.resolve(".codex/skills"), "codex-only");

        StandardRoots.Resolution r = StandardRoots.builder()
                .client("claude")
                .project(sub, ProjectTrust.TRUSTED)
                .home(home)
                .build()
                .resolve();
        assertThat(r.repositoryRoot()).contains(repo);
        assertThat(r.roots())
                .extracting(root -> tmp.relativize(root.path()).toString() + " " + root.scope() + " " + root.client())
                .containsExactly(
                        "work/repo/pkg/sub/.claude/skills PROJECT claude",
                        "work/repo/.claude/skills PROJECT claude",
                        "work/repo/.agents/skills PROJECT agents",
                        "home/.agents/skills USER agents");
        assertThat(r.untrusted()).isEmpty();

        DiscoveryResult found = SkillDiscovery.discover(
                DiscoveryOptions.builder().roots(r.paths()).build());
        assertThat(found.skills())
                .extracting(DiscoveredSkill::name)
                .containsExactly("near", "top-claude", "top", "mine");
    }

    @Test
    void anUntrustedProjectIsReportedNeverSearched() throws IOException {
        Path project = Files.createDirectories(tmp.resolve("clone"));
        Bundles.valid(project.resolve(".agents/skills"), "planted");
        Path home = Files.createDirectories(tmp.resolve("home"));
        Bundles.valid(home.resolve(".agents/skills"), "planted");
        StandardRoots.Resolution r = StandardRoots.builder()
                .project(project, ProjectTrust.UNTRUSTED)
                .home(home)
                .build()
                .resolve();
        assertThat(r.roots()).extracting(StandardRoots.Root::scope).containsExactly(Scope.USER);
        assertThat(r.untrusted())
                .extracting(StandardRoots.Root::path)
                .containsExactly(project.resolve(".agents/skills"));
        assertThat(r.repositoryRoot()).isEmpty();
    }

    @Test
    void withoutARepositoryOnlyTheProjectDirectoryIsSearched() throws IOException {
        Path project = Files.createDirectories(tmp.resolve("a/b"));
        Bundles.valid(tmp.resolve("a/.agents/skills"), "parent");
        StandardRoots.Resolution r = StandardRoots.builder()
                .project(project, ProjectTrust.TRUSTED)
                .build()
                .resolve();
        assertThat(r.roots()).isEmpty();
    }

    @Test
    void theHomeAsProjectIsListedOnceAndClientNamesCannotEscape() throws IOException {
        Path home = Files.createDirectories(tmp.resolve("home"));
        Bundles.valid(home.resolve(".agents/skills"), "mine");
        StandardRoots.Resolution r = StandardRoots.builder()
                .project(home, ProjectTrust.TRUSTED)
                .home(home)
                .build()
                .resolve();
        assertThat(r.roots()).extracting(StandardRoots.Root::scope).containsExactly(Scope.PROJECT);
        assertThatThrownBy(() -> StandardRoots.builder().client("../etc")).isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> StandardRoots.builder().client("Claude")).isInstanceOf(InvalidValueException.class);
        assertThat(StandardRoots.homeFromEnvironment(java.util.Map.of("HOME", "relative")))
                .isEmpty();
        assertThat(StandardRoots.homeFromEnvironment(java.util.Map.of("HOME", home.toString())))
                .contains(home);
        assertThat(List.of()).isEmpty();
    }
}
