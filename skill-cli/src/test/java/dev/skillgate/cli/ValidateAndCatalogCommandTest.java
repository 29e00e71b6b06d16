package dev.skillgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** {@code skillgate validate} and {@code skillgate catalog} on real directories, through {@link Main#run}. */
class ValidateAndCatalogCommandTest extends CommandTestSupport {
    @TempDir
    Path root;

    private Path skill(String dir, String frontmatter) throws IOException {
        Path d = Files.createDirectories(root.resolve(dir));
        Files.writeString(d.resolve("SKILL.md"), "---\n" + frontmatter + "\n---\n# Body\n");
        return d;
    }

    @Test
    void validSkillExitsZeroWithTheReferenceLine() throws IOException {
        Path dir = skill("my-skill", "name: my-skill\ndescription: A test skill");
        assertThat(run("validate", dir.toString())).isZero();
        assertThat(stdout()).isEqualTo("Valid skill: " + dir + "\n");
        assertThat(stderr()).isEmpty();
    }

    @Test
    void invalidSkillExitsOneWithEveryProblem() throws IOException {
        Path dir = skill("MySkill", "name: MySkill\ndescription: A test skill");
        assertThat(run("validate", "--profile", "reference", dir.toString())).isEqualTo(1);
        assertThat(stderr())
                .isEqualTo("Validation failed for " + dir + ":\n  - Skill name 'MySkill' must be lowercase\n");
        assertThat(run("validate", dir.toString())).isEqualTo(1);
        assertThat(stderr())
                .contains("  - NAME_LOWERCASE: Skill name 'MySkill' must be lowercase")
                .contains("loadable as prompt material: yes");
    }

    @Test
    void a10TheSkillFileStandsForItsDirectory() throws IOException {
        Path dir = skill("my-skill", "name: my-skill\ndescription: A test skill");
        assertThat(run("validate", dir.resolve("SKILL.md").toString())).isZero();
        assertThat(stdout()).isEqualTo("Valid skill: " + dir + "\n");
    }

    @Test
    void a02MissingPathIsAUsageError() {
        assertThat(run("validate", root.resolve("missing").toString())).isEqualTo(2);
        assertThat(stderr()).contains("path does not exist").contains("see 'skillgate validate --help'");
        assertThat(run(
                        "validate",
                        "--profile",
                        "reference",
                        root.resolve("missing").toString()))
                .isEqualTo(2);
    }

    @Test
    void usageErrors() throws IOException {
        Path dir = skill("my-skill", "name: my-skill\ndescription: d");
        assertThat(run("validate")).isEqualTo(2);
        assertThat(run("validate", "--profile", "loose", dir.toString())).isEqualTo(2);
        assertThat(stderr()).contains("unknown profile");
        assertThat(run("validate", "--frobnicate", dir.toString())).isEqualTo(2);
        assertThat(run("catalog")).isEqualTo(2);
        assertThat(run("catalog", "--prompt", "--json", root.toString())).isEqualTo(2);
        assertThat(run("catalog", root.resolve("missing").toString())).isEqualTo(2);
        assertThat(run("validate", "--help")).isZero();
        assertThat(stdout()).contains("--profile reference");
    }

    @Test
    void severalDirectoriesFailIfAnyFails() throws IOException {
        Path good = skill("good", "name: good\ndescription: d");
        Path bad = skill("bad", "name: bad");
        assertThat(run("validate", good.toString(), bad.toString())).isEqualTo(1);
        assertThat(stdout()).contains("Valid skill: " + good);
        assertThat(stderr()).contains("Validation failed for " + bad);
    }

    @Test
    void jsonOutputFollowsTheDocumentedSchema() throws IOException {
        Path dir = skill(
                "my-skill", "name: my-skill\ndescription: d\nlicense: MIT\nmetadata:\n  author: me\nhooks:\n  x: y");
        assertThat(run("validate", "--json", dir.toString())).isEqualTo(1);
        JsonNode doc = JsonMapper.builder().build().readTree(stdout());
        assertThat(doc.get("schema").asString()).isEqualTo("skillgate.validate/1");
        assertThat(doc.get("profile").asString()).isEqualTo("strict");
        assertThat(doc.get("valid").asBoolean()).isFalse();
        JsonNode result = doc.get("results").get(0);
        assertThat(result.get("path").asString()).isEqualTo(dir.toString());
        assertThat(result.get("portable").asBoolean()).isFalse();
        assertThat(result.get("loadable").asBoolean()).isTrue();
        assertThat(result.get("name").asString()).isEqualTo("my-skill");
        assertThat(result.get("file").asString()).isEqualTo("SKILL.md");
        JsonNode d = result.get("diagnostics").get(0);
        assertThat(d.get("code").asString()).isEqualTo("KEYS_HOST_EXTENSION");
        assertThat(d.get("severity").asString()).isEqualTo("ERROR");
        assertThat(d.get("blocksPortable").asBoolean()).isTrue();
        assertThat(d.get("blocksLoading").asBoolean()).isFalse();
        assertThat(result.get("preserved").get(0).get("key").asString()).isEqualTo("hooks");
        assertThat(result.get("preserved").get(0).get("host").asString()).isEqualTo("Claude Code");
        // G05: the reference tool's read-properties shape and order.
        JsonNode props = result.get("properties");
        assertThat(List.copyOf(props.propertyNames())).containsExactly("name", "description", "license", "metadata");
        assertThat(props.get("metadata").get("author").asString()).isEqualTo("me");
    }

    @Test
    void jsonForAnUnreadableSkillHasNullNameAndProperties() throws IOException {
        Path dir = Files.createDirectories(root.resolve("empty"));
        assertThat(run("validate", "--json", dir.toString())).isEqualTo(1);
        JsonNode result =
                JsonMapper.builder().build().readTree(stdout()).get("results").get(0);
        assertThat(result.get("name").isNull()).isTrue();
        assertThat(result.get("properties").isNull()).isTrue();
        assertThat(result.get("diagnostics").get(0).get("code").asString()).isEqualTo("LAYOUT_SKILLMD");
    }

    @Test
    void catalogTextPromptAndJson() throws IOException {
        Path project = Files.createDirectories(root.resolve("project"));
        Path user = Files.createDirectories(root.resolve("user"));
        Files.createDirectories(project.resolve("b-skill"));
        Files.writeString(project.resolve("b-skill/SKILL.md"), "---\nname: b-skill\ndescription: B & co\n---\n");
        Files.createDirectories(user.resolve("b-skill"));
        Files.writeString(user.resolve("b-skill/SKILL.md"), "---\nname: b-skill\ndescription: shadowed\n---\n");
        Files.createDirectories(user.resolve("a-skill"));
        Files.writeString(user.resolve("a-skill/SKILL.md"), "---\nname: a-skill\ndescription: A\n---\n");
        Files.createDirectories(user.resolve("broken"));
        Files.writeString(user.resolve("broken/SKILL.md"), "no frontmatter\n");

        assertThat(run("catalog", project.toString(), user.toString())).isZero();
        Path a = user.toAbsolutePath().normalize().resolve("a-skill/SKILL.md");
        Path b = project.toAbsolutePath().normalize().resolve("b-skill/SKILL.md");
        assertThat(stdout()).isEqualTo("a-skill\t" + a + "\nb-skill\t" + b + "\n");
        assertThat(stderr())
                .contains("shadowed: b-skill")
                .contains("not loadable:")
                .contains("FM_START");

        assertThat(run("catalog", "--prompt", project.toString(), user.toString()))
                .isZero();
        assertThat(stdout())
                .startsWith("<available_skills>\n<skill>\n<name>\na-skill\n")
                .contains("B &amp; co");

        assertThat(run("catalog", "--json", project.toString(), user.toString()))
                .isZero();
        JsonNode doc = JsonMapper.builder().build().readTree(stdout());
        assertThat(doc.get("schema").asString()).isEqualTo("skillgate.catalog/1");
        assertThat(doc.get("skills")).hasSize(2);
        assertThat(doc.get("skills").get(0).get("name").asString()).isEqualTo("a-skill");
        assertThat(doc.get("skills").get(0).get("root").asInt()).isEqualTo(1);
        assertThat(doc.get("skills").get(1).get("kind").asString()).isEqualTo("STANDARD");
        assertThat(doc.get("shadowed").get(0).get("winner").asString()).isEqualTo(b.toString());
        assertThat(doc.get("rejected")
                        .get(0)
                        .get("diagnostics")
                        .get(0)
                        .get("code")
                        .asString())
                .isEqualTo("FM_START");
    }

    @Test
    void terminalControlsFromSkillsAreEscapedInTextOutput() throws IOException {
        Path dir = skill("evil", "name: \"evil\\e[2J\\x9b31m\"\ndescription: \"d\\e]0;title\\a\"");
        assertThat(run("catalog", root.toString())).isZero();
        assertThat(stdout()).contains("evil\\u001B[2J").doesNotContain("\u001b").doesNotContain("\u009b");
        assertThat(run("catalog", "--prompt", root.toString())).isZero();
        assertThat(stdout()).doesNotContain("\u001b").doesNotContain("\u009b").doesNotContain("\u0007");
        assertThat(run("validate", dir.toString())).isEqualTo(1);
        assertThat(stdout() + stderr()).doesNotContain("\u001b");
    }

    @Test
    void emptyCatalogPromptPrintsNothing() throws IOException {
        Path empty = Files.createDirectories(root.resolve("none"));
        assertThat(run("catalog", "--prompt", empty.toString())).isZero();
        assertThat(stdout()).isEmpty();
    }

    @Test
    void linkedOrFileRootsFail() throws IOException {
        Path real = Files.createDirectories(root.resolve("real"));
        Path link = Files.createSymbolicLink(root.resolve("link"), real);
        assertThat(run("catalog", link.toString())).isEqualTo(1);
        assertThat(stderr()).contains("symbolic link");
        Path file = Files.writeString(root.resolve("file"), "x");
        assertThat(run("catalog", file.toString())).isEqualTo(1);
    }

    @Test
    void theShippedSampleSkillIsValidInBothProfiles() {
        Path sample = Path.of("../examples/skills/hello-world");
        assertThat(sample.resolve("SKILL.md")).exists();
        assertThat(run("validate", sample.toString())).isZero();
        assertThat(stderr()).isEmpty();
        assertThat(run("validate", "--profile", "reference", sample.toString())).isZero();
        assertThat(run("catalog", "--json", sample.getParent().toString())).isZero();
        assertThat(stdout()).contains("\"name\" : \"hello-world\"");
    }

    @Test
    void helpListsBothCommands() {
        assertThat(run("--help")).isZero();
        assertThat(stdout()).contains("validate").contains("catalog");
    }

    @Test
    void aRootThisUserMayNotReadExits1() throws Exception {
        // Root lists every directory, so the refusal is only observable for an ordinary user.
        org.junit.jupiter.api.Assumptions.assumeFalse(
                "root".equals(System.getProperty("user.name")), "root bypasses directory permissions");
        Path locked = java.nio.file.Files.createDirectory(root.resolve("locked"));
        java.nio.file.Files.setPosixFilePermissions(locked, java.util.Set.of());
        try {
            assertThat(run("catalog", locked.toString())).isEqualTo(1);
            assertThat(stderr()).contains("READ_IO");
        } finally {
            java.nio.file.Files.setPosixFilePermissions(
                    locked, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        }
    }
}
