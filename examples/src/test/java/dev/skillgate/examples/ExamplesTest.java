package dev.skillgate.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.inspect.SkillValidator;
import dev.skillgate.inspect.ValidationReport;
import dev.skillgate.testkit.TestNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The sample skills are valid and the example hosts run them end to end with a real node. */
class ExamplesTest {
    private static final Path SKILLS = Path.of("skills").toAbsolutePath();

    private static final String MARKER =
            "sgex-" + java.util.UUID.randomUUID().toString().substring(0, 12);

    @TempDir
    Path tmp;

    private Path data;

    @org.junit.jupiter.api.BeforeEach
    void dataDirectory() {
        data = tmp.resolve(MARKER);
    }

    /** Scripts' HOME and TMPDIR are under the data directory, so every descendant carries the marker. */
    @org.junit.jupiter.api.AfterAll
    static void noSurvivors() throws java.io.IOException {
        java.util.List<Long> found = new java.util.ArrayList<>();
        Path proc = Path.of("/proc");
        if (!java.nio.file.Files.isDirectory(proc)) {
            return;
        }
        try (var dirs = java.nio.file.Files.newDirectoryStream(
                proc, p -> p.getFileName().toString().matches("[0-9]+"))) {
            for (Path dir : dirs) {
                long pid = Long.parseLong(dir.getFileName().toString());
                String text = "";
                for (String f : new String[] {"environ", "cmdline"}) {
                    try {
                        text += new String(java.nio.file.Files.readAllBytes(dir.resolve(f)), StandardCharsets.UTF_8);
                    } catch (java.io.IOException gone) {
                        // The process ended while it was read.
                    }
                }
                if (pid != ProcessHandle.current().pid() && text.contains(MARKER)) {
                    found.add(pid);
                    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                }
            }
        }
        assertThat(found).as("processes left behind").isEmpty();
    }

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private String output() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static String node() {
        return TestNode.binary().orElseThrow().toString();
    }

    private static String version() {
        return TestNode.version(TestNode.binary().orElseThrow()).orElseThrow();
    }

    private static int count(String text, String needle) {
        Matcher m = Pattern.compile(Pattern.quote(needle)).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    @ParameterizedTest
    @ValueSource(strings = {"hello-world", "word-stats", "release-notes"})
    void everySampleSkillIsPortable(String name) {
        ValidationReport report = SkillValidator.validate(SKILLS.resolve(name));
        assertThat(report.portable()).as(report.diagnostics().toString()).isTrue();
    }

    @ParameterizedTest
    @EnabledOnOs(OS.LINUX)
    @CsvSource(
            delimiter = '|',
            value = {
                "hello-world   | {\"name\":\"Ada\"}                                              | {\"greeting\":\"Hello, Ada!\",\"length\":11}",
                "word-stats    | {\"text\":\"the cat saw the other cat\",\"top\":1}            | {\"words\":6,\"lines\":1,\"characters\":25,\"top\":[{\"word\":\"cat\",\"count\":2}]}",
                "release-notes | {\"version\":\"2.0.0\",\"changes\":[{\"kind\":\"fixed\",\"text\":\"Fixed a leak.\"}]} | {\"markdown\":\"## 2.0.0\\n\\n### Fixed\\n\\n- Fixed a leak\\n\\n\"}"
            })
    void theConsoleHostRunsEachSampleSkillAfterTheTerminalApproves(String skill, String input, String expected)
            throws Exception {
        int code = ConsoleHost.run(
                new String[] {SKILLS.toString(), node(), version(), skill, input, data.toString()},
                new StringReader("yes\n"),
                out);
        assertThat(code).as(output()).isZero();
        assertThat(output())
                .contains("not a sandbox")
                .contains("status: SUCCEEDED")
                .contains("output: " + expected);
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void theConsoleHostRunsNothingWhenTheTerminalSaysNo() throws Exception {
        int code = ConsoleHost.run(
                new String[] {SKILLS.toString(), node(), version(), "hello-world", "{\"name\":\"Ada\"}", data.toString()
                },
                new StringReader("no\n"),
                out);
        assertThat(code).isEqualTo(1);
        assertThat(output()).contains("status: REFUSED").contains("CONSENT_DENIED");
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void theTrustedRevisionsHostAsksOnceThenRunsTheTrustedRevisionWithoutAsking() throws Exception {
        int code = TrustedRevisionsHost.run(
                new String[] {SKILLS.toString(), node(), version(), "hello-world", data.toString()},
                new StringReader("yes\ny\n"),
                out);
        assertThat(code).as(output()).isZero();
        assertThat(count(output(), "Approve this exact run?")).isEqualTo(1);
        assertThat(output())
                .contains("policy: TRUST_SELECTED_REVISIONS")
                .contains("Barbara: SUCCEEDED {\"greeting\":\"Hello, Barbara!\",\"length\":15}");
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void withoutTheUsersTrustEveryRunAsks() throws Exception {
        int code = TrustedRevisionsHost.run(
                new String[] {SKILLS.toString(), node(), version(), "hello-world", data.toString()},
                new StringReader("yes\nn\n"),
                out);
        assertThat(code).isEqualTo(1);
        assertThat(output()).contains("policy: ASK_EACH_TIME");
        assertThat(count(output(), "Approve this exact run?")).isEqualTo(4);
    }
}
