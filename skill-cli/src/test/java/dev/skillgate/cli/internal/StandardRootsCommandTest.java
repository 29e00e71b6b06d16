package dev.skillgate.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.cli.ExitCode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18 item 4 through {@code skillgate catalog}: {@code --project DIR} (with the explicit
 * {@code --trust-project}), {@code --user} and {@code --clients} find the standard roots, project
 * over user (decision 0639). There were no such flags.
 */
class StandardRootsCommandTest {
    @TempDir
    Path tmp;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private ExitCode catalog(Path home, String... args) throws UsageException {
        out.reset();
        err.reset();
        return new CatalogCommand(Map.of("HOME", home.toString()))
                .run(
                        List.of(args),
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private static void skill(Path parent, String name, String description) throws IOException {
        Path d = Files.createDirectories(parent.resolve(name));
        Files.writeString(d.resolve("SKILL.md"), "---\nname: " + name + "\ndescription: " + description + "\n---\n");
    }

    @Test
    void projectOverUserAndOnlyWithTheTrustDecision() throws Exception {
        Path repo = Files.createDirectories(tmp.resolve("repo"));
        Files.createDirectories(repo.resolve(".git"));
        skill(repo.resolve(".claude/skills"), "review", "project review");
        Path home = Files.createDirectories(tmp.resolve("home"));
        skill(home.resolve(".agents/skills"), "review", "my review");
        skill(home.resolve(".agents/skills"), "notes", "my notes");

        assertThat(catalog(home, "--project", repo.toString(), "--user", "--clients", "claude"))
                .isEqualTo(ExitCode.OK);
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("notes\t" + home.resolve(".agents/skills/notes/SKILL.md"));
        assertThat(text).contains("review\t" + home.resolve(".agents/skills/review/SKILL.md"));
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("not searched: " + repo.resolve(".claude/skills"))
                .contains("--trust-project");

        assertThat(catalog(home, "--project", repo.toString(), "--trust-project", "--user", "--clients", "claude"))
                .isEqualTo(ExitCode.OK);
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("review\t" + repo.resolve(".claude/skills/review/SKILL.md"));
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("shadowed: review");

        assertThat(catalog(home, "--json", "--project", repo.toString(), "--user"))
                .isEqualTo(ExitCode.OK);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("\"untrustedRoots\" : [ ]");
    }

    @Test
    void usageErrors() {
        assertThatThrownBy(() -> catalog(tmp, "--trust-project", "--user")).isInstanceOf(UsageException.class);
        assertThatThrownBy(() -> catalog(tmp, "--user", "--clients", "../x")).isInstanceOf(UsageException.class);
        assertThatThrownBy(
                        () -> catalog(tmp, "--project", tmp.resolve("missing").toString()))
                .isInstanceOf(UsageException.class);
        assertThatThrownBy(() -> catalog(tmp)).isInstanceOf(UsageException.class);
    }
}
