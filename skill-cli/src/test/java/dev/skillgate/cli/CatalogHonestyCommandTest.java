package dev.skillgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Issue 18's catalog cases through {@code skillgate catalog}: each failed before (decisions 0635,
 * 0636) — a skill directory listed nothing, an overflowing root listed 0 skills and exited 0, {@code
 * R R} shadowed every skill by itself, dot-directories vanished without a word, user-only skills
 * reached the prompt block, and {@code --json} printed nothing for a root that is a file or a link.
 */
class CatalogHonestyCommandTest extends CommandTestSupport {
    @TempDir
    Path root;

    private Path skill(Path parent, String name, String extra) throws IOException {
        Path d = Files.createDirectories(parent.resolve(name));
        write(
                d.resolve("SKILL.md"),
                "---\nname: " + name + "\ndescription: The " + name + " skill\n" + extra + "---\n");
        return d;
    }

    @Test
    void aSkillDirectoryAsRootListsThatSkill() throws IOException {
        Path dir = skill(root, "hello", "");
        assertThat(run("catalog", dir.toString())).isZero();
        assertThat(stdout()).isEqualTo("hello\t" + dir.resolve("SKILL.md") + "\n");
        assertThat(run("catalog", "--prompt", dir.toString())).isZero();
        assertThat(stdout()).contains("<name>\nhello\n</name>");
    }

    @Test
    void anOverflowingRootExits1UnlessPartialIsAccepted() throws IOException {
        skill(root.resolve("a"), "early", "");
        for (int i = 0; i < 6; i++) {
            skill(root.resolve("z"), "late-" + i, "");
        }
        assertThat(run("catalog", "--max-entries", "4", root.toString())).isEqualTo(1);
        assertThat(stdout()).isEmpty();
        assertThat(stderr())
                .contains("error: LAYOUT_WALK_LIMIT")
                .contains("raise --max-entries")
                .contains("--partial");
        assertThat(run("catalog", "--json", "--max-entries", "4", root.toString()))
                .isEqualTo(1);
        assertThat(jsonTree().get("complete").asBoolean()).isFalse();
        assertThat(jsonTree().get("skills")).isEmpty();
        assertThat(run("catalog", "--max-entries", "4", "--partial", root.toString()))
                .isZero();
        assertThat(stdout()).startsWith("early\t");
        assertThat(stderr()).contains("warning: LAYOUT_WALK_LIMIT");
        assertThat(run("catalog", "--max-entries", "100", root.toString())).isZero();
        assertThat(stdout().lines()).hasSize(7);
        assertThat(run("catalog", "--max-entries", "0", root.toString())).isEqualTo(2);
        assertThat(run("catalog", "--max-entries", "many", root.toString())).isEqualTo(2);
    }

    @Test
    void theSameRootTwiceShadowsNothing() throws IOException {
        skill(root, "one", "");
        assertThat(run("catalog", root.toString(), root.toString())).isZero();
        assertThat(stdout()).startsWith("one\t");
        assertThat(stderr())
                .doesNotContain("shadowed")
                .contains("note: LAYOUT_SKIPPED")
                .contains("searched once");
        assertThat(run("catalog", "--json", root.toString(), root.toString())).isZero();
        assertThat(jsonTree().get("shadowed")).isEmpty();
    }

    @Test
    void dotDirectoriesAreSearchedAndSkipsAreReported() throws IOException {
        skill(root.resolve(".curated"), "curated", "");
        skill(root.resolve(".agents/skills"), "agent-skill", "");
        skill(root.resolve(".git"), "in-git", "");
        assertThat(run("catalog", root.toString())).isZero();
        assertThat(stdout()).contains("agent-skill\t").contains("curated\t").doesNotContain("in-git");
        assertThat(stderr()).contains("note: LAYOUT_SKIPPED").contains(".git");
        assertThat(run("catalog", "--no-dot-dirs", root.toString())).isZero();
        assertThat(stdout()).isEmpty();
        assertThat(stderr()).contains(".curated").contains(".agents");
    }

    @Test
    void userOnlySkillsStayOutOfThePromptButAreListed() throws IOException {
        skill(root, "user-only", "disable-model-invocation: true\n");
        skill(root, "model-ok", "allowed-tools: Bash\n");
        assertThat(run("catalog", root.toString())).isZero();
        assertThat(stdout()).contains("user-only\t").contains("model-ok\t");
        assertThat(stderr()).contains("user-only: user-only (disable-model-invocation: true; left out of --prompt)");
        assertThat(run("catalog", "--prompt", root.toString())).isZero();
        assertThat(stdout()).contains("model-ok").doesNotContain("user-only");
        assertThat(run("catalog", "--prompt", "--include-user-only", root.toString()))
                .isZero();
        assertThat(stdout()).contains("user-only");
        assertThat(run("catalog", "--json", root.toString())).isZero();
        JsonNode skills = jsonTree().get("skills");
        assertThat(skills.get(1).get("name").asString()).isEqualTo("user-only");
        assertThat(skills.get(1).get("disableModelInvocation").asBoolean()).isTrue();
        assertThat(skills.get(0).get("disableModelInvocation").asBoolean()).isFalse();
        assertThat(skills.get(0).get("diagnostics").get(0).get("code").asString())
                .isEqualTo("TOOLS_NOT_ENFORCED");
        assertThat(run("validate", root.resolve("model-ok").toString())).isZero();
        assertThat(stdout() + stderr()).contains("TOOLS_NOT_ENFORCED");
    }

    @Test
    void jsonIsPrintedForARootThatIsAFileOrALink() throws IOException {
        Path real = Files.createDirectories(root.resolve("real"));
        Path link = Files.createSymbolicLink(root.resolve("link"), real);
        Path file = Files.writeString(root.resolve("file"), "x");
        assertThat(run("catalog", "--json", link.toString())).isEqualTo(1);
        assertThat(jsonTree().get("schema").asString()).isEqualTo("skillgate.catalog/1");
        assertThat(jsonTree().get("complete").asBoolean()).isFalse();
        assertThat(jsonTree().get("diagnostics").get(0).get("code").asString()).isEqualTo("LAYOUT_LINK");
        assertThat(run("catalog", "--json", file.toString())).isEqualTo(1);
        assertThat(jsonTree().get("diagnostics").get(0).get("code").asString()).isEqualTo("LAYOUT_DIR");
        assertThat(jsonTree().get("diagnostics").get(0).get("message").asString())
                .contains(file.toString());
    }
}
