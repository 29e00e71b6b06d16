package dev.skillgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.engine.ExecutionEvent;
import dev.skillgate.engine.ExecutionRequest;
import dev.skillgate.engine.SkillGate;
import dev.skillgate.fixtures.TestNodeBinary;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.RunId;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.runner.ProgressEvent;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 18: a script's stderr could never be seen, so a skill author could not debug. {@code skillgate
 * run --show-stderr} shows it (decision 0632) — only with the flag, escaped, bounded, never in the
 * JSON document or the audit log — with a real {@code node} and the Linux supervisor.
 */
@EnabledOnOs(OS.LINUX)
class RunShowStderrTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String NODE = TestNodeBinary.require().toString();
    /** What the script writes to stderr; it must never appear where stderr is not asked for. */
    private static final String SECRET = "stderr-marker-" + java.util.UUID.randomUUID();

    /**
     * Writes to stderr by mode: {@code debug} a plain line, a line with terminal escapes and a
     * carriage return, and a byte that is not UTF-8; {@code flood} 10 MiB; {@code none} nothing.
     */
    private static final String SCRIPT = """
            import { readFileSync, writeSync } from 'node:fs';
            const input = JSON.parse(readFileSync(0, 'utf8'));
            if (input.mode === 'debug') {
              writeSync(2, 'debug: %s\\n');
              writeSync(2, '\\u001b[31mred\\u001b[0m\\rover\\n');
              writeSync(2, Buffer.from([0x62, 0xff, 0x63, 0x0a]));
            } else if (input.mode === 'flood') {
              const chunk = Buffer.alloc(1 << 20, 0x41);
              for (let i = 0; i < 10; i++) writeSync(2, chunk);
            }
            process.stdout.write('{}');
            """.replace("%s", SECRET);

    @TempDir
    Path tmp;

    private Path skill;
    private Path data;
    private String out = "";
    private String err = "";

    @BeforeEach
    void skill() throws IOException {
        skill = Files.createDirectories(tmp.resolve("skills").resolve("chatty"));
        Files.writeString(skill.resolve("SKILL.md"), "---\nname: chatty\ndescription: Writes to stderr.\n---\n");
        Files.createDirectories(skill.resolve("scripts"));
        Files.writeString(skill.resolve("scripts/c.mjs"), SCRIPT);
        Files.writeString(
                skill.resolve("execution.json"),
                "{\"schemaVersion\":1,\"entrypoint\":\"scripts/c.mjs\",\"files\":[\"scripts/c.mjs\"],"
                        + "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"mode\":{\"type\":\"string\"}},"
                        + "\"required\":[\"mode\"],\"additionalProperties\":false},"
                        + "\"outputSchema\":{\"type\":\"object\",\"properties\":{}},\"timeoutMs\":20000}");
        data = tmp.resolve("data");
    }

    private int run(String mode, String... extra) {
        List<String> args = new java.util.ArrayList<>(List.of(
                "run",
                skill.toString(),
                "--node",
                NODE,
                "--input",
                "{\"mode\":\"" + mode + "\"}",
                "--data-dir",
                data.toString()));
        args.addAll(List.of(extra));
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int code = Main.run(
                args.toArray(new String[0]),
                new ByteArrayInputStream("yes\n".getBytes(StandardCharsets.UTF_8)),
                new PrintStream(o, true, StandardCharsets.UTF_8),
                new PrintStream(e, true, StandardCharsets.UTF_8));
        out = o.toString(StandardCharsets.UTF_8);
        err = e.toString(StandardCharsets.UTF_8);
        return code;
    }

    @Test
    void stderrIsShownOnlyWithTheFlagEscapedAndNeverInTheDocumentOrTheAuditLog() throws IOException {
        assertThat(run("debug")).as(err).isZero();
        assertThat(out + err).doesNotContain(SECRET).doesNotContain("script stderr");

        assertThat(run("debug", "--show-stderr")).as(err).isZero();
        assertThat(out).doesNotContain(SECRET).contains("status: SUCCEEDED");
        assertThat(err)
                .contains("script stderr: ")
                .contains("  | debug: " + SECRET + "\n")
                // Terminal escapes and a carriage return are shown as text, never sent to the terminal.
                .contains("  | \\u001B[31mred\\u001B[0m\\u000Dover\n")
                // A byte that is not UTF-8 is named, not replaced.
                .contains("  | b\\xFFc\n")
                .doesNotContain("\u001b")
                .doesNotContain("\r")
                .doesNotContain("truncated");

        assertThat(run("debug", "--show-stderr", "--json")).as(err).isZero();
        JsonNode doc = JSON.readTree(out);
        assertThat(doc.get("envelope").get("status").asString()).isEqualTo("SUCCEEDED");
        assertThat(out).doesNotContain(SECRET).doesNotContain("script stderr");
        assertThat(err).contains("  | debug: " + SECRET);

        // Neither the audit log nor anything else the runs left in the data directory holds it.
        try (Stream<Path> files = Files.walk(data)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                assertThat(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1))
                        .as(f.toString())
                        .doesNotContain(SECRET);
            }
        }
    }

    @Test
    void tenMebibytesOfStderrAreCutAtTheBoundAndSaidSo() {
        assertThat(run("flood", "--show-stderr")).as(err).isEqualTo(1);
        assertThat(out).contains("status: OUTPUT_LIMIT").contains("OUTPUT_LIMIT at stderr");
        assertThat(err)
                .contains("script stderr: 16384 bytes")
                .contains("  | " + "A".repeat(16384) + "\n")
                .doesNotContain("A".repeat(16385))
                .contains("script stderr truncated: the script wrote more than 16384 bytes, which ended the run"
                        + " (OUTPUT_LIMIT)");
        assertThat(err.length()).isLessThan(24 * 1024);
    }

    @Test
    void anEmptyStderrIsSaidToBeEmpty() {
        assertThat(run("none", "--show-stderr")).as(err).isZero();
        assertThat(err).contains("script stderr: empty");
    }

    /** The engine hands a listener the bytes only when the host asked; by default events carry no output. */
    @Test
    void theEngineDeliversStderrToTheListenerOnlyWhenAsked() throws Exception {
        assertThat(stderrEvents(false)).isEmpty();
        List<ProgressEvent.Stderr> asked = stderrEvents(true);
        assertThat(asked).hasSize(1);
        assertThat(new String(asked.get(0).bytes(), StandardCharsets.ISO_8859_1))
                .startsWith("debug: " + SECRET + "\n");
        assertThat(asked.get(0).truncated()).isFalse();
        assertThat(asked.get(0).toString()).doesNotContain(SECRET);
    }

    private List<ProgressEvent.Stderr> stderrEvents(boolean deliver) throws Exception {
        List<ProgressEvent> events = new CopyOnWriteArrayList<>();
        SkillGate.Builder builder = SkillGate.builder()
                .dataDirectory(tmp.resolve(deliver ? "gate-asked" : "gate-default"))
                .skillRoot(skill.getParent())
                .nodeRuntime(NodeRuntime.pinned(Path.of(NODE), nodeVersion()))
                .approvalChannel(request -> CompletableFuture.completedFuture(request.approve()))
                .listener((ExecutionEvent e) -> e.progress().ifPresent(events::add));
        if (deliver) {
            builder.deliverScriptStderr();
        }
        try (SkillGate gate = builder.build()) {
            ExecutionEnvelope env = gate.execute(ExecutionRequest.of(
                    RunId.random(), AgentId.of("stderr-test"), "chatty", "{\"mode\":\"debug\"}", tmp));
            assertThat(env.status()).as(env.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
        }
        return events.stream()
                .filter(ProgressEvent.Stderr.class::isInstance)
                .map(ProgressEvent.Stderr.class::cast)
                .toList();
    }

    private static String nodeVersion() throws IOException, InterruptedException {
        Process p = new ProcessBuilder(NODE, "--version").start();
        String v = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        p.waitFor();
        return v;
    }
}
