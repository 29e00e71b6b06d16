package dev.skillgate.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.cli.ExitCode;
import dev.skillgate.fixtures.TestNodeBinary;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Decision 0891: {@code skillgate run} without {@code --data-dir} keeps the supervisor helper beside
 * its temporary data directories, in {@code $XDG_STATE_HOME/skillgate/supervisor}, instead of
 * extracting it anew into each. Real runs of the hello-world sample through the real supervisor: the
 * second run starts the very file the first extracted (a temporary {@code project run} too), and a helper a same-user process rewrote
 * there is refused before it runs, every time, with a line that says what to do.
 */
@EnabledOnOs(OS.LINUX)
class SharedHelperRunTest {
    private static final String NODE = TestNodeBinary.require().toString();
    private static final Path HELLO =
            Path.of("..", "examples", "skills", "hello-world").toAbsolutePath().normalize();

    @TempDir
    Path tmp;

    private record Result(ExitCode code, String out, String err) {}

    private Result run(Path state) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ExitCode code = new RunCommand(Map.of("XDG_STATE_HOME", state.toString()))
                .run(
                        List.of(
                                HELLO.toString(),
                                "--node",
                                NODE,
                                "--input",
                                "{\"name\":\"Ada\"}",
                                "--workspace",
                                tmp.toString(),
                                "--approve",
                                revision()),
                        new ByteArrayInputStream(new byte[0]),
                        RawArguments.none(),
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** The sample's revision, as `skillgate inspect` reports it. */
    private static String revision() {
        try (dev.skillgate.inspect.SkillArtifact artifact =
                dev.skillgate.inspect.SkillArtifact.capture(HELLO).artifact().orElseThrow()) {
            return artifact.revision().toString();
        }
    }

    private static Path onlyHelper(Path shared) throws Exception {
        try (Stream<Path> files = Files.walk(shared)) {
            List<Path> helpers = files.filter(Files::isRegularFile).toList();
            assertThat(helpers).as("one file in the shared helper directory").hasSize(1);
            return helpers.get(0);
        }
    }

    /**
     * What a same-user attacker does to the kept helper: rewrites it in place, name and mode kept,
     * into a script that leaves {@code mark} if it is ever executed. Returns the new content.
     */
    private static String rewriteInPlace(Path helper, Path mark) throws Exception {
        String fake = "#!/bin/sh\ntouch '" + mark + "'\n";
        Files.setPosixFilePermissions(helper, PosixFilePermissions.fromString("rwx------"));
        Files.writeString(helper, fake);
        Files.setPosixFilePermissions(helper, PosixFilePermissions.fromString("r-x------"));
        return fake;
    }

    private static List<String> entries(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).toList();
        }
    }

    @Test
    void twoTemporaryRunsStartTheHelperTheFirstOneExtracted() throws Exception {
        Path state = tmp.resolve("state");
        Result first = run(state);
        assertThat(first.code()).as(first.out() + first.err()).isEqualTo(ExitCode.OK);
        assertThat(first.out()).contains("status: SUCCEEDED").contains("cleanup: PROVEN");
        Path shared = state.resolve("skillgate").resolve("supervisor");
        Path helper = onlyHelper(shared);
        Object inode = Files.getAttribute(helper, "unix:ino", LinkOption.NOFOLLOW_LINKS);
        Object ctime = Files.getAttribute(helper, "unix:ctime", LinkOption.NOFOLLOW_LINKS);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(shared, LinkOption.NOFOLLOW_LINKS)))
                .isEqualTo("rwx------");

        Result second = run(state);
        assertThat(second.code()).as(second.out() + second.err()).isEqualTo(ExitCode.OK);
        assertThat(second.out()).contains("status: SUCCEEDED").contains("cleanup: PROVEN");
        assertThat(onlyHelper(shared)).isEqualTo(helper);
        assertThat(Files.getAttribute(helper, "unix:ino", LinkOption.NOFOLLOW_LINKS))
                .as("the same inode: not extracted again")
                .isEqualTo(inode);
        assertThat(Files.getAttribute(helper, "unix:ctime", LinkOption.NOFOLLOW_LINKS))
                .as("not written to")
                .isEqualTo(ctime);
        assertThat(entries(state.resolve("skillgate")))
                .as("both run directories removed; the helper directory kept")
                .containsExactly("supervisor");
    }

    private ExitCode projectRun(Path state, Path project, ByteArrayOutputStream out) throws Exception {
        return new ProjectCommand(Map.of("XDG_STATE_HOME", state.toString()))
                .run(
                        List.of("run", project.toString(), "--script", "test", "--node", NODE),
                        new ByteArrayInputStream("yes\n".getBytes(StandardCharsets.UTF_8)),
                        RawArguments.none(),
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(out, true, StandardCharsets.UTF_8));
    }

    @Test
    void aTemporaryProjectRunStartsTheSharedHelperTooSoARewrittenOneRefusesIt() throws Exception {
        Path state = tmp.resolve("state");
        assertThat(run(state).code()).isEqualTo(ExitCode.OK);
        Path shared = state.resolve("skillgate").resolve("supervisor");
        Path helper = onlyHelper(shared);
        Path project = tmp.resolve("project");
        Path fixture = Path.of("..", "test-fixtures", "projects", "js-node-test");
        try (Stream<Path> files = Files.walk(fixture)) {
            for (Path f : files.toList()) {
                Path to = project.resolve(fixture.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(f, to);
                }
            }
        }
        ByteArrayOutputStream first = new ByteArrayOutputStream();
        assertThat(projectRun(state, project, first))
                .as(first.toString(StandardCharsets.UTF_8))
                .isEqualTo(ExitCode.OK);
        assertThat(first.toString(StandardCharsets.UTF_8)).contains("status: SUCCEEDED");
        assertThat(onlyHelper(shared)).isEqualTo(helper);

        // The shared helper rewritten by the same user: the project run uses that file, not a copy of
        // its own, so it is refused as run is, and nothing of the project runs.
        Path mark = tmp.resolve("the-fake-helper-ran");
        rewriteInPlace(helper, mark);
        ByteArrayOutputStream refused = new ByteArrayOutputStream();
        ExitCode code = projectRun(state, project, refused);
        String shown = refused.toString(StandardCharsets.UTF_8);
        assertThat(code).as(shown).isNotEqualTo(ExitCode.OK);
        assertThat(shown).contains("SUPERVISOR_TAMPERED").doesNotContain("status: SUCCEEDED");
        assertThat(mark).doesNotExist();
        assertThat(entries(state.resolve("skillgate"))).containsExactly("supervisor");
    }

    @Test
    void aSharedHelperRewrittenByAProcessOfTheSameUserNeverRunsAndIsNotReplaced() throws Exception {
        Path state = tmp.resolve("state");
        assertThat(run(state).code()).isEqualTo(ExitCode.OK);
        Path shared = state.resolve("skillgate").resolve("supervisor");
        Path helper = onlyHelper(shared);
        // The attacker: the same user, rewriting the kept helper in place with a program that leaves a mark.
        Path mark = tmp.resolve("the-fake-helper-ran");
        String fake = rewriteInPlace(helper, mark);

        for (int attempt = 0; attempt < 2; attempt++) {
            Result refused = run(state);
            assertThat(refused.code()).as(refused.out() + refused.err()).isEqualTo(ExitCode.REFUSED);
            assertThat(refused.out())
                    .contains("status: REFUSED")
                    .contains("SUPERVISOR_TAMPERED")
                    .doesNotContain("SUCCEEDED");
            assertThat(refused.err())
                    .contains("the supervisor helper kept for temporary runs in " + shared)
                    .contains("remove that directory");
            assertThat(mark).as("the rewritten helper was never executed").doesNotExist();
            assertThat(Files.readString(helper))
                    .as("not replaced behind the user's back")
                    .isEqualTo(fake);
        }
        assertThat(entries(state.resolve("skillgate"))).containsExactly("supervisor");

        // What the line says works: without the directory the next run extracts the shipped helper.
        DataDirectories.deleteQuietly(shared);
        Result again = run(state);
        assertThat(again.code()).as(again.out() + again.err()).isEqualTo(ExitCode.OK);
        assertThat(Files.readString(onlyHelper(shared), StandardCharsets.ISO_8859_1))
                .isNotEqualTo(fake);
    }
}
