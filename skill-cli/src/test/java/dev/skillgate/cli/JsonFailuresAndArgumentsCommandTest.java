package dev.skillgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.fixtures.TestNodeBinary;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 18 item 5 through {@link Main#run}: each case failed before (decision 0637) — {@code --json}
 * printed nothing on exit-1/exit-3 failures, paths were cut to 40 characters, a name that is not
 * UTF-8 was "does not exist", {@code --input @-} did not exist, {@code help CMD} printed the overview
 * and a usage error printed the whole usage.
 */
@EnabledOnOs(OS.LINUX)
class JsonFailuresAndArgumentsCommandTest extends CommandTestSupport {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path tmp;

    private Path skill(Path parent, String dir, String name) throws IOException {
        Path d = Files.createDirectories(parent.resolve(dir));
        write(d.resolve("SKILL.md"), "---\nname: " + name + "\ndescription: The " + name + " skill\n---\n");
        write(d.resolve("scripts/s.mjs"), "process.stdout.write('{}')\n");
        write(
                d.resolve("execution.json"),
                "{\"schemaVersion\":1,\"entrypoint\":\"scripts/s.mjs\",\"files\":[\"scripts/s.mjs\"],"
                        + "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}},"
                        + "\"outputSchema\":{\"type\":\"object\",\"properties\":{}},\"timeoutMs\":10000}");
        return d;
    }

    private int runWithStdin(byte[] stdin, String... args) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int code = Main.run(
                args,
                new ByteArrayInputStream(stdin),
                new PrintStream(o, true, StandardCharsets.UTF_8),
                new PrintStream(e, true, StandardCharsets.UTF_8));
        lastOut = o.toString(StandardCharsets.UTF_8);
        lastErr = e.toString(StandardCharsets.UTF_8);
        return code;
    }

    private String lastOut = "";
    private String lastErr = "";

    @Test
    void runWithAMissingNodePrintsARefusedEnvelope() throws IOException {
        Path s = skill(tmp.resolve("skills"), "one", "one");
        int code = run(
                "run",
                s.toString(),
                "--node",
                "/nonexistent/node",
                "--input",
                "{}",
                "--json",
                "--data-dir",
                tmp.resolve("data").toString());
        assertThat(code).isEqualTo(3);
        JsonNode doc = jsonTree();
        assertThat(doc.get("schema").asString()).isEqualTo("skillgate.run/1");
        assertThat(doc.get("skill").isNull()).isTrue();
        assertThat(doc.get("supervisor").isNull()).isTrue();
        assertThat(doc.get("envelope").get("status").asString()).isEqualTo("REFUSED");
        assertThat(doc.get("envelope").get("errors").get(0).get("code").asString())
                .isEqualTo("RUNTIME_UNAVAILABLE");
        assertThat(doc.get("envelope").get("cleanup").get("status").asString()).isEqualTo("NOT_STARTED");
        assertThat(stderr()).contains("RUNTIME_UNAVAILABLE");
    }

    @Test
    void runOfAShadowedSkillPrintsARefusedEnvelope() throws IOException {
        Path skills = tmp.resolve("skills");
        skill(skills, "a-first", "same");
        Path second = skill(skills, "b-second", "same");
        int code = run(
                "run",
                second.toString(),
                "--node",
                TestNodeBinary.require().toString(),
                "--input",
                "{}",
                "--json",
                "--data-dir",
                tmp.resolve("data").toString());
        assertThat(code).as(stderr()).isEqualTo(1);
        JsonNode env = jsonTree().get("envelope");
        assertThat(env.get("status").asString()).isEqualTo("REFUSED");
        assertThat(env.get("errors").get(0).get("code").asString()).isEqualTo("LAYOUT_SHADOWED");
    }

    @Test
    void malformedAllowedSignersAndCheckpointPrintOneDocument() throws IOException {
        Path s = skill(tmp.resolve("skills"), "one", "one");
        Path signers = write(tmp.resolve("allowed_signers"), "this is not an allowed signers line\n");
        assertThat(run("inspect", s.toString(), "--allowed-signers", signers.toString(), "--json"))
                .isEqualTo(1);
        JsonNode doc = jsonTree();
        assertThat(doc.get("schema").asString()).isEqualTo("skillgate.failure/1");
        assertThat(doc.get("command").asString()).isEqualTo("inspect");
        assertThat(doc.get("exitCode").asInt()).isEqualTo(1);
        assertThat(doc.get("messages").toString()).contains("allowed-signers");
        assertThat(run("verify-signature", s.toString(), "--allowed-signers", signers.toString(), "--json"))
                .isEqualTo(1);
        assertThat(jsonTree().get("schema").asString()).isEqualTo("skillgate.failure/1");

        Path data = Files.createDirectories(tmp.resolve("data"));
        Path checkpoint = write(tmp.resolve("cp"), "not a checkpoint\n");
        int code =
                run("audit", "verify", "--data-dir", data.toString(), "--checkpoint", checkpoint.toString(), "--json");
        assertThat(code).isEqualTo(1);
        assertThat(jsonTree().get("schema").asString()).startsWith("skillgate.");
    }

    @Test
    void usageErrorsStayShortAndPrintNoDocument() {
        assertThat(run("catalog", "--json")).isEqualTo(2);
        assertThat(stdout()).isEmpty();
        assertThat(stderr())
                .isEqualTo("skillgate catalog: needs at least one root directory, --project DIR or --user; see"
                        + " 'skillgate catalog --help'\n");
        assertThat(run("frobnicate")).isEqualTo(2);
        assertThat(stderr().lines()).hasSize(1);
    }

    @Test
    void helpCommandPrintsThatCommandsUsage() {
        assertThat(run("help", "run")).isZero();
        assertThat(stdout()).startsWith("usage: skillgate run DIR|NAME --root DIR...");
        assertThat(run("help", "catalog")).isZero();
        assertThat(stdout()).startsWith("usage: skillgate catalog [ROOT...]");
        assertThat(run("help")).isZero();
        assertThat(stdout()).contains("help CMD");
        assertThat(run("help", "nothing")).isEqualTo(2);
    }

    @Test
    void messagesNameTheFullPath() {
        Path deep = tmp.resolve("a-rather-long-directory-name/another-long-directory-name/missing-skill");
        assertThat(run("validate", deep.toString())).isEqualTo(2);
        assertThat(stderr()).contains("path does not exist: " + deep);
        assertThat(run("catalog", deep.toString())).isEqualTo(2);
        assertThat(stderr()).contains("root does not exist: " + deep);
        assertThat(run("check-input", deep.toString(), "--input", "{}")).isEqualTo(2);
        assertThat(stderr()).contains(deep.toString());
    }

    @Test
    void aNameThatIsNotUtf8IsReportedAsSuch() {
        // What the JVM makes of a byte that is not UTF-8 in an argument: U+FFFD.
        String undecodable = tmp.resolve("caf\uFFFD").toString();
        assertThat(run("validate", undecodable)).isEqualTo(2);
        assertThat(stderr()).contains("is not valid UTF-8").doesNotContain("does not exist");
        assertThat(run("catalog", undecodable)).isEqualTo(2);
        assertThat(stderr()).contains("is not valid UTF-8");
        assertThat(run("check-input", tmp.toString(), "--input", "@" + undecodable))
                .isEqualTo(2);
        assertThat(stderr()).contains("is not valid UTF-8");
    }

    @Test
    void inputAtDashReadsStandardInput() throws IOException {
        Path s = skill(tmp.resolve("skills"), "one", "one");
        assertThat(runWithStdin(
                        "{\"name\":\"Ada\"}".getBytes(StandardCharsets.UTF_8),
                        "check-input",
                        s.toString(),
                        "--input",
                        "@-"))
                .as(lastErr)
                .isZero();
        assertThat(lastOut).startsWith("valid invocation for ");
        assertThat(runWithStdin(
                        new byte[] {'{', '"', 'n', 'a', 'm', 'e', '"', ':', '"', (byte) 0xFF, '"', '}'},
                        "check-input",
                        s.toString(),
                        "--input",
                        "@-",
                        "--json"))
                .isEqualTo(1);
        assertThat(JSON.readTree(lastOut).toString()).contains("JSON_INVALID_UTF8");
        // run: standard input is the invocation, so the approval must come from --approve.
        assertThat(runWithStdin(new byte[0], "run", s.toString(), "--node", "/x/node", "--input", "@-"))
                .isEqualTo(2);
        assertThat(lastErr).contains("--input @- reads standard input").contains("--approve");
    }
}
