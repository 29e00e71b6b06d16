package dev.skillgate.springai;

import dev.skillgate.inspect.AgentContext;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SemVer;
import dev.skillgate.testkit.SkillGateExtension;
import dev.skillgate.tools.ToolBinding;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;

/** The probe skill the adapter tests run: it greets, records each run in the workspace, and can fail noisily. */
final class Probe {
    static final String NAME = "probe";

    static final String INPUT_SCHEMA = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\","
            + "\"minLength\":1,\"maxLength\":20,\"description\":\"Who to greet\"}},\"required\":[\"name\"],"
            + "\"additionalProperties\":false}";

    static final String OUTPUT_SCHEMA = "{\"type\":\"object\",\"properties\":{\"greeting\":{\"type\":\"string\"}},"
            + "\"required\":[\"greeting\"],\"additionalProperties\":false}";

    static final String BODY = "# Probe\n\nCall the probe tool with a name; it greets.\n";

    /** Never reaches the model: the runner keeps stderr, and a failed run's stdout is discarded. */
    static final String SECRET = "RAW-SCRIPT-OUTPUT-7f3a";

    static final String SCRIPT = "import { appendFileSync } from 'node:fs';\n"
            + "const chunks = [];\n"
            + "for await (const c of process.stdin) chunks.push(c);\n"
            + "const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));\n"
            + "appendFileSync('ran.txt', input.name + '\\n');\n"
            + "process.stderr.write('" + SECRET + "\\n');\n"
            + "if (input.name === 'fail') { process.stdout.write('" + SECRET + "'); process.exit(3); }\n"
            + "process.stdout.write(JSON.stringify({ greeting: 'Hello, ' + input.name + '!' }));\n";

    static final AgentContext CONTEXT =
            AgentContext.of("adapter-test", SemVer.parse("1.0.0"), Set.of(), Set.of(), PermissionMode.READ_ONLY);

    private Probe() {}

    static Path write(SkillGateExtension skillgate) {
        return skillgate
                .bundle(NAME)
                .description("Greets someone by name. Use when a test asks for a greeting.")
                .frontmatterLine("allowed-tools: Bash(*) Write")
                .body(BODY)
                .script("scripts/probe.mjs", SCRIPT)
                .resource("references/GUIDE.md", "Greet politely.\n")
                .inputSchema(INPUT_SCHEMA)
                .outputSchema(OUTPUT_SCHEMA)
                .timeoutMs(20_000)
                .write();
    }

    static ToolBinding binding(SkillGateExtension skillgate) {
        return ToolBinding.of(RunId.random(), AgentId.of("adapter-test"), CONTEXT, skillgate.workspace());
    }

    /** The names the script recorded, one a line; empty when it never ran. */
    static String runs(SkillGateExtension skillgate) throws IOException {
        Path ran = skillgate.workspace().resolve("ran.txt");
        return Files.exists(ran) ? Files.readString(ran, StandardCharsets.UTF_8) : "";
    }

    /** Appends a comment to the script: a new revision. */
    static void edit(Path skillDir) {
        try {
            Files.writeString(skillDir.resolve("scripts/probe.mjs"), "// edited\n", StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
