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
 * Issue 18: {@code run} took only a directory, never a name from a root, and {@code inspect} showed
 * neither the input nor the output schema. Both failed before (decision 0640).
 */
@EnabledOnOs(OS.LINUX)
class RunByNameAndInspectSchemasCommandTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path tmp;

    private String out = "";
    private String err = "";

    private int run(String stdin, String... args) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int code = Main.run(
                args,
                new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(o, true, StandardCharsets.UTF_8),
                new PrintStream(e, true, StandardCharsets.UTF_8));
        out = o.toString(StandardCharsets.UTF_8);
        err = e.toString(StandardCharsets.UTF_8);
        return code;
    }

    private Path hello(Path root) throws IOException {
        Path source = Path.of("..", "examples", "skills", "hello-world");
        Path target = Files.createDirectories(root.resolve("hello-world"));
        try (var files = Files.walk(source)) {
            for (Path f : files.toList()) {
                Path to = target.resolve(source.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(f, to);
                }
            }
        }
        return target;
    }

    @Test
    void runTakesASkillNameFromTheRoots() throws IOException {
        Path first = Files.createDirectories(tmp.resolve("first"));
        Path second = Files.createDirectories(tmp.resolve("second"));
        Path skill = hello(second);
        int code = run(
                "yes\n",
                "run",
                "hello-world",
                "--root",
                first.toString(),
                "--root",
                second.toString(),
                "--node",
                TestNodeBinary.require().toString(),
                "--input",
                "{\"name\":\"Ada\"}",
                "--data-dir",
                tmp.resolve("data").toString(),
                "--json");
        assertThat(code).as(err).isZero();
        JsonNode doc = JSON.readTree(out);
        assertThat(doc.get("directory").asString())
                .isEqualTo(skill.toAbsolutePath().normalize().toString());
        assertThat(doc.get("envelope").get("output").asString())
                .isEqualTo("{\"greeting\":\"Hello, Ada!\",\"length\":11}");

        assertThat(run(
                        "",
                        "run",
                        "nobody",
                        "--root",
                        first.toString(),
                        "--node",
                        TestNodeBinary.require().toString(),
                        "--input",
                        "{}",
                        "--data-dir",
                        tmp.resolve("data").toString(),
                        "--json"))
                .isEqualTo(1);
        assertThat(JSON.readTree(out)
                        .get("envelope")
                        .get("errors")
                        .get(0)
                        .get("code")
                        .asString())
                .isEqualTo("SKILL_NOT_FOUND");
        assertThat(run("", "run", "../x", "--root", first.toString(), "--node", "/x", "--input", "{}"))
                .isEqualTo(2);
    }

    @Test
    void inspectShowsBothSchemas() throws IOException {
        Path skill = hello(tmp);
        assertThat(run("", "inspect", skill.toString())).isZero();
        assertThat(out).contains("  input schema:").contains("  output schema:").contains("\"greeting\"");
        assertThat(run("", "inspect", skill.toString(), "--json")).isZero();
        JsonNode schemas = JSON.readTree(out).get("schemas");
        assertThat(JSON.readTree(schemas.get("input").get("json").asString())
                        .get("type")
                        .asString())
                .isEqualTo("object");
        assertThat(schemas.get("output").get("json").asString()).contains("greeting");
    }
}
