package dev.skillgate.adk.example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.testkit.TestNode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The example host runs the repository's hello-world skill end to end; "no" at the terminal runs nothing. */
class AdkHostTest {
    private static final String SKILLS = Path.of("..", "examples", "skills").toString();

    private static String run(String answers, String input) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Path node = TestNode.binary().orElseThrow();
        int exit = AdkHost.run(
                new String[] {SKILLS, node.toString(), TestNode.version(node).orElseThrow(), "hello-world", input},
                new ByteArrayInputStream(answers.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return exit + "\n" + bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void approvedAtTheTerminalTheAssistantGetsTheGreeting() throws Exception {
        String out = run("yes\nyes\n", "{\"name\":\"Ada\"}");
        assertThat(out).startsWith("0\n").contains("Skillgate approval request", "not a sandbox", "Confirm? [y/N]");
        assertThat(out).contains("assistant: ", "SUCCEEDED", "Hello, Ada!");
    }

    @Test
    void deniedAtTheTerminalNothingRuns() throws Exception {
        String out = run("yes\nno\n", "{\"name\":\"Ada\"}");
        assertThat(out).startsWith("3\n").contains("assistant: ", "CONSENT_DENIED");
    }
}
