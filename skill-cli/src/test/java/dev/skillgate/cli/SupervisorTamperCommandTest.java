package dev.skillgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A supervisor helper modified in the data directory is named as such by {@code skillgate run} -
 * {@code SUPERVISOR_TAMPERED}, exit 3, nothing asked or run - never as
 * {@code PROCESS_OWNERSHIP_UNSUPPORTED} (issue 15, item 6).
 */
@EnabledOnOs(OS.LINUX)
class SupervisorTamperCommandTest {
    private static final String NODE = System.getProperty("skillgate.test.node", "/usr/bin/node");

    @TempDir
    Path tmp;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    private int run(String stdin, String... args) {
        out.reset();
        return Main.run(
                args,
                new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    }

    @Test
    void aTamperedHelperIsReportedAsTamperedInTextAndJson() throws IOException {
        Path hello = Path.of("..", "examples", "skills", "hello-world").toAbsolutePath();
        Path data = tmp.resolve("data");
        String[] args = {
            "run", hello.toString(), "--node", NODE, "--input", "{\"name\":\"Ada\"}", "--data-dir", data.toString()
        };
        assertThat(run("yes\n", args)).as(out.toString(StandardCharsets.UTF_8)).isZero();

        Path helper;
        try (Stream<Path> s = Files.walk(data.resolve("supervisor"))) {
            helper = s.filter(f -> f.getFileName().toString().equals("skillgate-supervisor"))
                    .findFirst()
                    .orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(helper);
        bytes[bytes.length / 2] ^= 0x01;
        Path swapped = helper.resolveSibling(".swapped");
        Files.write(swapped, bytes);
        Files.setPosixFilePermissions(swapped, PosixFilePermissions.fromString("r-x------"));
        Files.move(swapped, helper, StandardCopyOption.REPLACE_EXISTING);

        assertThat(run("yes\n", args)).isEqualTo(3);
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text)
                .contains("status: REFUSED")
                .contains("error: SUPERVISOR_TAMPERED")
                .doesNotContain("PROCESS_OWNERSHIP_UNSUPPORTED")
                .doesNotContain("==== Skillgate approval request ====");

        String[] json = java.util.Arrays.copyOf(args, args.length + 1);
        json[args.length] = "--json";
        assertThat(run("yes\n", json)).isEqualTo(3);
        JsonNode env = JsonMapper.builder()
                .build()
                .readTree(out.toString(StandardCharsets.UTF_8))
                .get("envelope");
        assertThat(env.get("status").asString()).isEqualTo("REFUSED");
        assertThat(env.get("errors").get(0).get("code").asString()).isEqualTo("SUPERVISOR_TAMPERED");
        assertThat(env.get("cleanup").get("status").asString()).isEqualTo("NOT_STARTED");
    }
}
