package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.ScriptedApprovalChannel;
import dev.skillgate.inspect.AgentContext;
import dev.skillgate.inspect.Inspection;
import dev.skillgate.inspect.SkillValidator;
import dev.skillgate.inspect.ValidationReport;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.InputType;
import dev.skillgate.model.PermissionMode;
import dev.skillgate.model.RunId;
import dev.skillgate.model.SemVer;
import dev.skillgate.model.ToolClass;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The standard-format portability check of issue 10, item 6: a synthetic standard-format bundle
 * (instructions, relative references, assets, a dependency-free script) is validated, catalogued and
 * run with a working directory elsewhere; prompt-only discovery works without {@code execution.json};
 * unknown host fields survive byte for byte; {@code allowed-tools} and other metadata never escalate.
 */
@EnabledOnOs(OS.LINUX)
class StandardFormatPortabilityTest {
    private static final AgentContext READ_ONLY_AGENT = AgentContext.of(
            "test-agent",
            SemVer.parse("1.0.0"),
            Set.of(InputType.TEXT),
            Set.of(ToolClass.AGENT_NATIVE),
            PermissionMode.READ_ONLY);

    private static final String STANDARD_SKILL_MD = """
            ---
            name: csv-columns
            description: Lists the columns of a CSV header line and counts them. Use when the user pastes a CSV header.
            license: Apache-2.0
            compatibility: Requires Node.js 18 or newer for scripts/columns.mjs.
            allowed-tools: Bash(rm:*) Read Write WebFetch
            metadata:
              author: testkit
              permissions: full-access
              sandbox: "true"
            ---
            # CSV columns

            Read [references/FORMAT.md](references/FORMAT.md) first; the separator list is in
            [assets/separators.txt](assets/separators.txt).
            """;

    private static final String SCRIPT = """
            // Reads {"header": string}; finds its separator list next to itself, not in the working directory.
            import { readFileSync } from 'node:fs';
            const input = JSON.parse(readFileSync(0, 'utf8'));
            const separators = readFileSync(new URL('../assets/separators.txt', import.meta.url), 'utf8').trim().split('\\n');
            const sep = separators.find((s) => input.header.includes(s)) || ',';
            const columns = input.header.split(sep).map((c) => c.trim());
            process.stdout.write(JSON.stringify({ separator: sep, columns, count: columns.length, cwd: process.cwd() }));
            """;

    private static final String MARKER = Support.newMarker();

    @TempDir
    Path tmpDir;

    private Path tmp;

    @AfterAll
    static void noSurvivors() {
        assertThat(Support.killSurvivors(MARKER)).as("processes left behind").isEmpty();
    }

    private Path skills;
    private Path workspace;
    private SkillGate gate;
    private ScriptedApprovalChannel channel;

    @BeforeEach
    void bundles() throws IOException {
        tmp = Support.hostileRoot(tmpDir, MARKER);
        skills = Files.createDirectories(tmp.resolve("skills"));
        workspace = Files.createDirectories(tmp.resolve("elsewhere").resolve("workspace"));
        Path csv = Files.createDirectories(skills.resolve("csv-columns"));
        Support.write(csv.resolve("SKILL.md"), STANDARD_SKILL_MD);
        Support.write(csv.resolve("references/FORMAT.md"), "# Format\n\nOne header line; no quoting.\n");
        Support.write(csv.resolve("assets/separators.txt"), ";\n\t\n|\n");
        Support.write(csv.resolve("scripts/columns.mjs"), SCRIPT);
        Support.write(
                csv.resolve("execution.json"),
                "{\"schemaVersion\":1,\"entrypoint\":\"scripts/columns.mjs\","
                        + "\"files\":[\"scripts/columns.mjs\",\"assets/separators.txt\"],"
                        + "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"header\":{\"type\":\"string\"}},"
                        + "\"required\":[\"header\"]},\"outputSchema\":{\"type\":\"object\",\"properties\":{}},"
                        + "\"timeoutMs\":10000}");
        channel = ScriptedApprovalChannel.denyingWhenEmpty();
        gate = SkillGate.builder()
                .dataDirectory(tmp.resolve("data"))
                .skillRoot(skills)
                .nodeRuntime(Support.runtime())
                .approvalChannel(channel)
                .build();
    }

    @AfterEach
    void close() {
        gate.close();
    }

    @Test
    void aStandardBundleIsValidatedCataloguedAndRunWithTheWorkingDirectoryElsewhere() throws IOException {
        ValidationReport report = SkillValidator.validate(skills.resolve("csv-columns"));
        assertThat(report.portable()).as(report.diagnostics().toString()).isTrue();
        assertThat(gate.catalog()).extracting(SkillSummary::name).containsExactly("csv-columns");

        channel.approveNext();
        ExecutionEnvelope env = gate.execute(ExecutionRequest.of(
                RunId.random(), AgentId.of("a-1"), "csv-columns", "{\"header\":\"a;b ; c\"}", workspace));
        assertThat(env.status()).as(env.toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(env.output().orElseThrow())
                .contains("\"separator\":\";\"")
                .contains("\"columns\":[\"a\",\"b\",\"c\"]")
                .contains("\"count\":3");
        assertThat(env.output().orElseThrow()).contains("\"cwd\":\"" + workspace.toRealPath() + "\"");
        assertThat(channel.requests())
                .as("allowed-tools and metadata grant nothing: consent was asked")
                .hasSize(1);
    }

    @Test
    void inspectAlwaysReturnsAReportAndAnUnknownNameIsSkillNotFound() throws IOException {
        // SPEC §12: Inspection report = gate.inspect(name). A name no loadable skill has still gets a
        // report (decision 0361): nothing captured, nothing passes, SKILL_NOT_FOUND says why.
        Path broken = Files.createDirectories(skills.resolve("not-loadable"));
        Support.write(broken.resolve("SKILL.md"), "no frontmatter at all\n");
        for (String name : new String[] {"no-such-skill", "not-loadable"}) {
            Inspection report = gate.inspect(name);
            assertThat(report.passes()).as(name).isFalse();
            assertThat(report.revision()).as(name).isEmpty();
            assertThat(report.executionAvailable()).as(name).isFalse();
            assertThat(report.captureProblem())
                    .as(name)
                    .hasValueSatisfying(d -> assertThat(d.code()).isEqualTo(ErrorCode.SKILL_NOT_FOUND));
            assertThat(report.executionReasons()).extracting(d -> d.code()).containsExactly(ErrorCode.SKILL_NOT_FOUND);
        }
        assertThat(gate.inspect("csv-columns").passes()).isTrue();
    }

    @Test
    void aStringThatIsNoSkillNameGetsAReportNamingTheBrokenRule() {
        // An agent may pass anything as a name: never an exception, never a lookup of a path.
        for (String name :
                new String[] {"../csv-columns", "CSV-Columns", "csv--columns", "", "a\u0000b", "x".repeat(65)}) {
            Inspection report = gate.inspect(name);
            assertThat(report.passes()).as(name).isFalse();
            assertThat(report.revision()).as(name).isEmpty();
            assertThat(report.executionAvailable()).as(name).isFalse();
            assertThat(report.captureProblem())
                    .as(name)
                    .hasValueSatisfying(d -> assertThat(d.code()).isEqualTo(ErrorCode.SKILL_NOT_FOUND));
            assertThat(report.format().findings())
                    .as(name)
                    .extracting(f -> f.diagnostic().code().name())
                    .anyMatch(code -> code.startsWith("NAME_"));
        }
    }

    @Test
    void promptOnlyDiscoveryWorksWithoutAManifestAndExecutionIsSimplyUnavailable() throws IOException {
        Path notes = Files.createDirectories(skills.resolve("style-notes"));
        String md = "---\nname: style-notes\ndescription: House style for prose.\n---\nUse short sentences.\n";
        Support.write(notes.resolve("SKILL.md"), md);
        Support.write(notes.resolve("references/EXAMPLES.md"), "# Examples\n");

        assertThat(gate.catalog()).extracting(SkillSummary::name).containsExactly("csv-columns", "style-notes");
        Inspection notesReport = gate.inspect("style-notes");
        assertThat(notesReport.executionAvailable()).isFalse();
        assertThat(notesReport.executionReasons()).extracting(d -> d.code()).contains(ErrorCode.MANIFEST_ABSENT);
        channel.approveNext();
        Activation a = gate.activate("style-notes", READ_ONLY_AGENT);
        assertThat(a)
                .isInstanceOfSatisfying(
                        Activation.Activated.class,
                        x -> assertThat(x.instructions()).isEqualTo(md));
        ExecutionEnvelope env =
                gate.execute(ExecutionRequest.of(RunId.random(), AgentId.of("a-1"), "style-notes", "{}", workspace));
        assertThat(env.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(env.errorCodes()).containsExactly(ErrorCode.EXECUTION_UNAVAILABLE, ErrorCode.MANIFEST_ABSENT);
    }

    @Test
    void unknownHostFieldsSurviveByteForByteAndAreNotEnforced() throws IOException {
        Path host = Files.createDirectories(skills.resolve("host-flavoured"));
        byte[] md = ("---\nname: host-flavoured\ndescription: Uses fields other hosts define.\n"
                        + "model: opus\nhooks:\n  PreToolUse: \"echo pwned\"\nx-vendor-flag: \"🙂 yes\"\n"
                        + "allowed-tools: Bash\n---\nBody with trailing spaces.   \r\n")
                .getBytes(StandardCharsets.UTF_8);
        Files.write(host.resolve("SKILL.md"), md);

        ValidationReport report = SkillValidator.validate(host);
        assertThat(report.loadable()).isTrue();
        assertThat(report.portable()).isFalse();
        assertThat(gate.catalog()).extracting(SkillSummary::name).contains("host-flavoured");

        channel.approveNext();
        Activation a = gate.activate("host-flavoured", READ_ONLY_AGENT);
        assertThat(a)
                .isInstanceOfSatisfying(
                        Activation.Activated.class,
                        x -> assertThat(x.instructions().getBytes(StandardCharsets.UTF_8))
                                .isEqualTo(md));
        assertThat(channel.activationRequests().get(0).contract())
                .as("frontmatter is not a contract: nothing is declared, nothing is granted")
                .isEmpty();
    }

    @Test
    void frontmatterNeverEscalatesWhatTheContractAsks() throws IOException {
        Path skill = Files.createDirectories(skills.resolve("fetcher"));
        Support.write(
                skill.resolve("SKILL.md"),
                "---\nname: fetcher\ndescription: Fetches things.\nallowed-tools: WebFetch Bash\n"
                        + "metadata:\n  tools: network\n  permissionMode: full-access\n---\nFetch.\n");
        Support.write(
                skill.resolve("skill.contract.json"),
                "{\"schemaVersion\":1,\"recordType\":\"skill-contract\",\"identity\":{\"id\":\"t/fetcher\","
                        + "\"version\":\"1.0.0\"},\"origin\":{\"type\":\"local-unsigned\"},\"agents\":[{\"kind\":"
                        + "\"test-agent\",\"minVersion\":\"1.0.0\",\"maxVersion\":\"1.0.0\"}],\"inputTypes\":[\"text\"],"
                        + "\"tools\":[\"network\"],\"credentials\":[],\"permissionMode\":\"read-only\","
                        + "\"networkDestinations\":[\"https://example.com\"],\"sideEffectClass\":\"none\"}");
        channel.approveNext();
        Activation a = gate.activate("fetcher", READ_ONLY_AGENT);
        assertThat(a)
                .isInstanceOfSatisfying(
                        Activation.Refused.class,
                        r -> assertThat(r.codes()).containsOnly(ErrorCode.CONTRACT_TOOL_MISSING));
        assertThat(channel.activationRequests()).isEmpty();
    }
}
