package dev.skillgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.fixtures.TestNodeBinary;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code skillgate project inspect} and {@code skillgate project run} on the real JavaScript fixture. */
class ProjectCommandTest {
    private static final String NODE = TestNodeBinary.require().toString();

    @TempDir
    Path tmp;

    private Path project;
    private Path data;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeEach
    void copyFixture() throws IOException {
        project = tmp.resolve("js-node-test");
        Path from = Path.of("..", "test-fixtures", "projects", "js-node-test");
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Files.createDirectories(project.resolve(from.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.copy(file, project.resolve(from.relativize(file).toString()));
                return FileVisitResult.CONTINUE;
            }
        });
        data = tmp.resolve("data");
    }

    private int run(String input, String... args) {
        out.reset();
        err.reset();
        return Main.run(
                args,
                new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void inspectReportsEveryScriptAndRunsNothing() {
        assertThat(run("", "project", "inspect", project.toString())).isZero();
        assertThat(stdout())
                .contains("test: supported (NODE_TEST): node --test test/math.test.js test/strings.test.mjs")
                .contains("lint: refused PROJECT_SCRIPT_UNSUPPORTED")
                .contains("nothing was run");
        assertThat(run("", "project", "inspect", project.toString(), "--json")).isZero();
        assertThat(stdout()).contains("\"form\" : \"NODE_TEST\"").contains("\"combined\" : \"sha256:");
    }

    @Test
    void runShowsThePlanAndRunsOnYes() {
        int code = run(
                "yes\n",
                "project",
                "run",
                project.toString(),
                "--script",
                "test",
                "--node",
                NODE,
                "--data-dir",
                data.toString());
        assertThat(code).as(stdout() + err).isZero();
        assertThat(stdout())
                .contains("argv: " + NODE)
                .contains("--test test/math.test.js test/strings.test.mjs")
                .contains("approval digest: sha256:")
                .contains("not a sandbox")
                .contains("status: SUCCEEDED")
                .contains("tests 3, pass 3, fail 0")
                .contains("cleanup PROVEN (ECHILD)");
    }

    /** {@code project run} of the fixture's test script, answered yes, with {@code --node-sha256 digest}. */
    private int runPinned(String digest) {
        return run(
                "yes\n",
                "project",
                "run",
                project.toString(),
                "--script",
                "test",
                "--node",
                NODE,
                "--node-sha256",
                digest,
                "--data-dir",
                data.toString());
    }

    @Test
    void aNodeBinaryThatIsNotThePinnedDigestRunsNothingAndOnlyTheRightOneRuns() throws Exception {
        assertThat(runPinned("sha256:" + "0".repeat(64))).isEqualTo(3);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("RUNTIME_MISMATCH: the Node binary is not the one --node-sha256 pins; nothing ran");
        assertThat(stdout()).doesNotContain("status:");

        String right = "sha256:"
                + java.util.HexFormat.of()
                        .formatHex(java.security.MessageDigest.getInstance("SHA-256")
                                .digest(Files.readAllBytes(Path.of(NODE).toRealPath())));
        assertThat(runPinned(right)).as(stdout() + err).isZero();
        assertThat(stdout()).contains("status: SUCCEEDED");
    }

    @Test
    void anythingButYesRunsNothingAndApproveBindsTheDigest() {
        assertThat(run(
                        "no\n",
                        "project",
                        "run",
                        project.toString(),
                        "--script",
                        "test",
                        "--node",
                        NODE,
                        "--data-dir",
                        data.toString()))
                .isEqualTo(3);
        assertThat(stdout()).contains("status: REFUSED").contains("CONSENT_DENIED");
        Matcher m = Pattern.compile("approval digest: (sha256:[0-9a-f]{64})").matcher(stdout());
        assertThat(m.find()).isTrue();
        String digest = m.group(1);

        assertThat(run(
                        "",
                        "project",
                        "run",
                        project.toString(),
                        "--script",
                        "test",
                        "--node",
                        NODE,
                        "--data-dir",
                        data.toString(),
                        "--approve",
                        digest))
                .isZero();
        assertThat(run(
                        "",
                        "project",
                        "run",
                        project.toString(),
                        "--script",
                        "test:failing",
                        "--node",
                        NODE,
                        "--data-dir",
                        data.toString(),
                        "--approve",
                        digest))
                .isEqualTo(3);
        assertThat(stdout()).contains("not this plan: answering no");
    }

    @Test
    void aFailingTestExitsOneAndAHostileScriptIsRefusedWithItsCode() throws IOException {
        assertThat(run(
                        "yes\n",
                        "project",
                        "run",
                        project.toString(),
                        "--script",
                        "test:failing",
                        "--node",
                        NODE,
                        "--data-dir",
                        data.toString()))
                .isEqualTo(1);
        assertThat(stdout())
                .contains("status: FAILED")
                .contains("EXEC_NONZERO_EXIT")
                .contains("fail 1");
        assertThat(run(
                        "yes\n",
                        "project",
                        "run",
                        project.toString(),
                        "--script",
                        "lint",
                        "--node",
                        NODE,
                        "--data-dir",
                        data.toString()))
                .isEqualTo(1);
        assertThat(stdout()).contains("PROJECT_SCRIPT_UNSUPPORTED");
    }

    @Test
    void usageErrors() {
        assertThat(run("", "project")).isEqualTo(2);
        assertThat(run("", "project", "run", project.toString(), "--node", NODE))
                .isEqualTo(2);
        assertThat(run("", "project", "run", project.toString(), "--script", "test", "--node", "node"))
                .isEqualTo(2);
    }
}
