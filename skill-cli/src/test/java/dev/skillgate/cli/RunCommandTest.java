package dev.skillgate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.fixtures.TestNodeBinary;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code skillgate run} through {@link Main#run}, with a real {@code node} and the Linux supervisor:
 * terminal approval, {@code --approve} of the exact revision (and of a wrong one), the JSON document
 * and the exit codes of SPEC §13.
 */
@EnabledOnOs(OS.LINUX)
class RunCommandTest {
    private static final String NODE = TestNodeBinary.require().toString();
    private static final String MARKER =
            "sgcli-" + java.util.UUID.randomUUID().toString().substring(0, 12);
    private static final String WRITER = """
            import { readFileSync, writeFileSync } from 'node:fs';
            const input = JSON.parse(readFileSync(0, 'utf8'));
            writeFileSync(input.file, 'ran');
            process.stdout.write(JSON.stringify({ wrote: input.file }));
            """;

    @TempDir
    Path tmp;

    private Path skill;
    private Path hello;
    private Path data;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeEach
    void skills() throws IOException {
        Path skills = Files.createDirectories(tmp.resolve("skills"));
        skill = Files.createDirectories(skills.resolve("writer"));
        Files.writeString(skill.resolve("SKILL.md"), "---\nname: writer\ndescription: Writes a marker file.\n---\n");
        Files.createDirectories(skill.resolve("scripts"));
        Files.writeString(skill.resolve("scripts/w.mjs"), WRITER);
        Files.writeString(
                skill.resolve("execution.json"),
                "{\"schemaVersion\":1,\"entrypoint\":\"scripts/w.mjs\",\"files\":[\"scripts/w.mjs\"],"
                        + "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"file\":{\"type\":\"string\"}},"
                        + "\"required\":[\"file\"],\"additionalProperties\":false},"
                        + "\"outputSchema\":{\"type\":\"object\",\"properties\":{}},\"timeoutMs\":10000}");
        hello = copy(Path.of("..", "examples", "skills", "hello-world"), skills.resolve("hello-world"));
        data = tmp.resolve(MARKER).resolve("data");
    }

    /** Scripts' HOME and TMPDIR are under the data directory, so every descendant carries the marker. */
    @AfterAll
    static void noSurvivors() throws IOException {
        List<Long> found = new ArrayList<>();
        try (var dirs = Files.newDirectoryStream(
                Path.of("/proc"), p -> p.getFileName().toString().matches("[0-9]+"))) {
            for (Path dir : dirs) {
                long pid = Long.parseLong(dir.getFileName().toString());
                if (pid == ProcessHandle.current().pid()) {
                    continue;
                }
                String text = "";
                for (String f : new String[] {"environ", "cmdline"}) {
                    try {
                        text += new String(Files.readAllBytes(dir.resolve(f)), StandardCharsets.UTF_8);
                    } catch (IOException gone) {
                        // The process ended while it was read.
                    }
                }
                if (text.contains(MARKER)) {
                    found.add(pid);
                    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                }
            }
        }
        assertThat(found).as("processes left behind").isEmpty();
    }

    private static Path copy(Path from, Path to) throws IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Files.createDirectories(to.resolve(from.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.copy(file, to.resolve(from.relativize(file).toString()));
                return FileVisitResult.CONTINUE;
            }
        });
        return to;
    }

    /** The revision over SKILL.md, execution.json and the declared script, as capture computes it. */
    private Revision writerRevision() throws IOException {
        Map<PortablePath, byte[]> files = new TreeMap<>();
        for (String f : new String[] {"SKILL.md", "execution.json", "scripts/w.mjs"}) {
            files.put(PortablePath.of(f), Files.readAllBytes(skill.resolve(f)));
        }
        return Revision.compute(files);
    }

    /** Every run gets a data directory carrying the class's marker (the default is tested in RunSecurityTest). */
    private int run(String stdin, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        if (all.size() > 1 && all.get(0).equals("run") && !all.contains("--data-dir")) {
            all.add("--data-dir");
            all.add(data.toString());
        }
        args = all.toArray(new String[0]);
        out.reset();
        err.reset();
        return Main.run(
                args,
                new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String input(String marker) {
        return "{\"file\":\"" + tmp.resolve(marker).toString().replace("\\", "\\\\") + "\"}";
    }

    @Test
    void yesOnTheTerminalRunsTheSkillAndPrintsTheCheckedResult() {
        int code = run(
                "yes\n",
                "run",
                hello.toString(),
                "--node",
                NODE,
                "--input",
                "{\"name\":\"Ada\"}",
                "--data-dir",
                data.toString());
        assertThat(code).as(stdout() + err).isZero();
        assertThat(stdout())
                .contains("skill: hello-world")
                .contains("==== Skillgate approval request ====")
                .contains("not a sandbox")
                .contains("status: SUCCEEDED")
                .contains("output: {\"greeting\":\"Hello, Ada!\",\"length\":11}")
                .contains("cleanup: PROVEN");
    }

    @Test
    void anythingButYesRefusesWithExit3AndRunsNothing() {
        assertThat(run("n\n", "run", skill.toString(), "--node", NODE, "--input", input("no.txt")))
                .isEqualTo(3);
        assertThat(stdout()).contains("status: REFUSED").contains("CONSENT_DENIED");
        assertThat(run("", "run", skill.toString(), "--node", NODE, "--input", input("eof.txt")))
                .isEqualTo(3);
        assertThat(tmp.resolve("no.txt")).doesNotExist();
        assertThat(tmp.resolve("eof.txt")).doesNotExist();
    }

    @Test
    void approveWithTheCapturedRevisionRunsWithoutReadingTheTerminal() throws IOException {
        int code = run(
                "",
                "run",
                skill.toString(),
                "--node",
                NODE,
                "--input",
                input("ok.txt"),
                "--approve",
                writerRevision().toString());
        assertThat(code).as(stdout()).isZero();
        assertThat(tmp.resolve("ok.txt")).hasContent("ran");
        assertThat(stdout()).contains("--approve names the captured revision");
    }

    @Test
    void approveWithAWrongRevisionRefusesWithExit3AndRunsNothing() throws IOException {
        Revision wrong = writerRevision();
        Files.writeString(skill.resolve("scripts/w.mjs"), WRITER + "// changed after review\n");
        int code = run(
                "yes\n",
                "run",
                skill.toString(),
                "--node",
                NODE,
                "--input",
                input("wrong.txt"),
                "--approve",
                wrong.toString(),
                "--json");
        assertThat(code).isEqualTo(3);
        assertThat(tmp.resolve("wrong.txt")).doesNotExist();
        JsonNode doc = JsonMapper.builder().build().readTree(stdout());
        assertThat(doc.get("schema").asString()).isEqualTo("skillgate.run/1");
        JsonNode env = doc.get("envelope");
        assertThat(env.get("status").asString()).isEqualTo("REFUSED");
        assertThat(env.get("errors").get(0).get("code").asString()).isEqualTo("CONSENT_DENIED");
        assertThat(env.get("errors").get(0).get("message").asString()).contains(wrong.toString());
        assertThat(env.get("cleanup").get("status").asString()).isEqualTo("NOT_STARTED");
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("approval request");
    }

    @Test
    void theJsonDocumentCarriesTheWholeEnvelope() throws IOException {
        int code = run("y\n", "run", hello.toString(), "--node", NODE, "--input", "{\"name\":\"Ada\"}", "--json");
        assertThat(code).isZero();
        JsonNode env = JsonMapper.builder().build().readTree(stdout()).get("envelope");
        assertThat(env.get("status").asString()).isEqualTo("SUCCEEDED");
        assertThat(env.get("output").asString()).isEqualTo("{\"greeting\":\"Hello, Ada!\",\"length\":11}");
        assertThat(env.get("revision").asString()).startsWith("sha256:");
        assertThat(env.get("exit").get("kind").asString()).isEqualTo("code");
        assertThat(env.get("exit").get("code").asInt()).isZero();
        assertThat(env.get("cleanup").get("status").asString()).isEqualTo("PROVEN");
        assertThat(env.get("errors")).isEmpty();
        assertThat(env.get("hardening").asString()).matches("L0|L1|L2");
        List<String> parts = new ArrayList<>();
        env.get("confinement").propertyNames().forEach(parts::add);
        assertThat(parts).containsExactly("processReach", "fileWrites", "network", "memory", "processCount", "cpu");
        for (String part : parts) {
            assertThat(env.get("confinement").get(part).asString()).matches("ENFORCED|NOT_REQUESTED|NOT_ENFORCED");
        }
        // No --cgroup: no resource limit was asked for.
        assertThat(env.get("confinement").get("memory").asString()).isEqualTo("NOT_REQUESTED");
    }

    @Test
    void theConfinementLineNamesEveryPartTheEnvelopeReports() {
        int code = run("yes\n", "run", hello.toString(), "--node", NODE, "--input", "{\"name\":\"Ada\"}");
        assertThat(code).as(stdout() + err).isZero();
        String part = "(ENFORCED|NOT_REQUESTED|NOT_ENFORCED)";
        assertThat(stdout().lines().filter(l -> l.startsWith("confinement: ")).toList())
                .singleElement()
                .asString()
                .matches("confinement: process reach " + part + ", file writes " + part + ", network " + part
                        + ", memory NOT_REQUESTED, process count NOT_REQUESTED, cpu NOT_REQUESTED");
    }

    @Test
    void invalidInputExits1BeforeAnyoneIsAsked() {
        int code = run("yes\n", "run", hello.toString(), "--node", NODE, "--input", "{\"name\":7}");
        assertThat(code).isEqualTo(1);
        assertThat(stdout()).contains("VALUE_TYPE").doesNotContain("approval request");
    }

    @Test
    void inputFromAFileIsReadBounded() throws IOException {
        Path in = Files.writeString(tmp.resolve("in.json"), "{\"name\":\"File\"}");
        assertThat(run("yes\n", "run", hello.toString(), "--node", NODE, "--input", "@" + in))
                .isZero();
        assertThat(stdout()).contains("Hello, File!");
        Files.write(in, new byte[70_000]);
        assertThat(run("yes\n", "run", hello.toString(), "--node", NODE, "--input", "@" + in))
                .isEqualTo(1);
        assertThat(stdout()).contains("JSON_TOO_LARGE");
    }

    @Test
    void usageErrorsExit2() {
        assertThat(run("", "run", hello.toString(), "--input", "{}")).isEqualTo(2);
        assertThat(run("", "run", hello.toString(), "--node", "node", "--input", "{}"))
                .isEqualTo(2);
        assertThat(run("", "run", tmp.resolve("missing").toString(), "--node", NODE, "--input", "{}"))
                .isEqualTo(2);
        assertThat(run("", "run", hello.toString(), "--node", NODE)).isEqualTo(2);
        assertThat(run("", "run", hello.toString(), "--node", NODE, "--input", "{}", "--approve", "sha1:abc"))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).doesNotContain("Exception");
    }

    /**
     * Decision 0866: node is asked on a thread of its own while the data directory is made and the
     * gate opens; a binary that gives no usable answer is still refused with the same code, text and
     * exit status, before the header and before anything runs, and the gate is not used.
     */
    @Test
    void aNodeThatGivesNoUsableAnswerIsRefusedAsBeforeWhileTheGateOpens() throws IOException {
        Path silent = tmp.resolve("silent-node");
        Files.writeString(silent, "#!/bin/sh\nexit 3\n");
        Path chatty = tmp.resolve("chatty-node");
        Files.writeString(chatty, "#!/bin/sh\necho 'not a version'\n");
        for (Path node : new Path[] {silent, chatty}) {
            Files.setPosixFilePermissions(node, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
            String marker = "not-run-" + node.getFileName();
            assertThat(run("yes\n", "run", skill.toString(), "--node", node.toString(), "--input", input(marker)))
                    .as(node.toString())
                    .isEqualTo(3);
            assertThat(err.toString(StandardCharsets.UTF_8))
                    .as(node.toString())
                    .contains("skillgate run: RUNTIME_")
                    .doesNotContain("Exception");
            assertThat(stdout())
                    .as("no header, no envelope")
                    .doesNotContain("skill:")
                    .doesNotContain("status:");
            assertThat(Files.exists(tmp.resolve(marker))).as("nothing ran").isFalse();
        }
        assertThat(run("yes\n", "run", skill.toString(), "--node", silent.toString(), "--input", input("x")))
                .isEqualTo(3);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("did not answer --version");
        assertThat(run("", "run", skill.toString(), "--node", silent.toString(), "--input", input("x"), "--json"))
                .isEqualTo(3);
        JsonNode doc = JsonMapper.builder().build().readTree(stdout());
        assertThat(doc.get("envelope").get("status").asString()).isEqualTo("REFUSED");
        assertThat(doc.get("envelope").get("errors").get(0).get("code").asString())
                .isEqualTo("RUNTIME_UNAVAILABLE");
        assertThat(doc.get("supervisor").isNull()).isTrue();
    }

    @Test
    void aNodePathWithNoBinaryIsRuntimeUnavailableAndNothingRuns() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("not-node"));
        for (Path node : new Path[] {tmp.resolve("no-such-node"), dir}) {
            err.reset();
            assertThat(run(
                            "yes\n",
                            "run",
                            hello.toString(),
                            "--node",
                            node.toString(),
                            "--input",
                            "{\"name\":\"Ada\"}"))
                    .as(node.toString())
                    .isEqualTo(3);
            assertThat(err.toString(StandardCharsets.UTF_8))
                    .contains("RUNTIME_UNAVAILABLE")
                    .contains("not a regular file")
                    .doesNotContain("Exception");
            assertThat(stdout()).doesNotContain("SUCCEEDED");
        }
    }

    @Test
    void aDataDirectoryThatCannotBeUsedIsReportedNeverAnInternalError() throws IOException {
        Path file = Files.writeString(tmp.resolve("a-file"), "x");
        assertThat(run(
                        "",
                        "run",
                        hello.toString(),
                        "--node",
                        NODE,
                        "--input",
                        "{\"name\":\"A\"}",
                        "--data-dir",
                        file.toString()))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--data-dir is not a directory");
        // Its parent is a file, so the engine cannot create it: an I/O fault, exit 1, one line.
        Path under = file.resolve("data");
        assertThat(run(
                        "",
                        "run",
                        hello.toString(),
                        "--node",
                        NODE,
                        "--input",
                        "{\"name\":\"A\"}",
                        "--data-dir",
                        under.toString()))
                .isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("the data directory cannot be used")
                .doesNotContain("internal error")
                .doesNotContain("Exception(");
        assertThat(stdout()).doesNotContain("approval request");
    }

    @Test
    void aLoadableSkillThatDiscoveryOfItsParentDoesNotSelectIsExplainedAndNeverSwapped() throws IOException {
        // An earlier sibling with the same frontmatter name wins discovery of the parent directory.
        Path earlier = Files.createDirectories(skill.getParent().resolve("aaa-copy"));
        Files.writeString(earlier.resolve("SKILL.md"), "---\nname: writer\ndescription: Another writer.\n---\n");
        int code = run("yes\n", "run", skill.toString(), "--node", NODE, "--input", input("shadowed.txt"));
        assertThat(code).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("is a loadable skill, but discovery of its parent directory did not select it")
                .contains("LAYOUT_SHADOWED")
                .contains("aaa-copy");
        assertThat(stdout()).doesNotContain("approval request");
        assertThat(tmp.resolve("shadowed.txt")).doesNotExist();
    }

    @Test
    @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
    void anInputFileThatIsAFifoALinkOrMissingAndAMissingWorkspaceAreUsageErrors() throws Exception {
        Path fifo = tmp.resolve("in.fifo");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor())
                .isZero();
        // Opening a FIFO for reading blocks until a writer comes: the command must not open it.
        assertThat(run("", "run", hello.toString(), "--node", NODE, "--input", "@" + fifo))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("READ_NOT_REGULAR");
        Path in = Files.writeString(tmp.resolve("in.json"), "{\"name\":\"Link\"}");
        Path link = Files.createSymbolicLink(tmp.resolve("in.link"), in);
        assertThat(run("", "run", hello.toString(), "--node", NODE, "--input", "@" + link))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("READ_LINK");
        assertThat(run("", "run", hello.toString(), "--node", NODE, "--input", "@" + tmp.resolve("none.json")))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("READ_NOT_FOUND");
        assertThat(run(
                        "",
                        "run",
                        hello.toString(),
                        "--node",
                        NODE,
                        "--input",
                        "{\"name\":\"Ada\"}",
                        "--workspace",
                        tmp.resolve("no-workspace").toString()))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("--workspace does not exist")
                .doesNotContain("Exception");
        assertThat(stdout()).doesNotContain("approval request");
    }

    @Test
    void aTrustContractAskingMoreThanTheCliOffersExits1BeforeAnyoneIsAsked() throws IOException {
        Files.writeString(
                skill.resolve("skill.contract.json"),
                "{\"schemaVersion\":1,\"recordType\":\"skill-contract\",\"identity\":{\"id\":\"t/writer\","
                        + "\"version\":\"1.0.0\"},\"origin\":{\"type\":\"local-unsigned\"},\"agents\":[{\"kind\":"
                        + "\"skillgate-cli\",\"minVersion\":\"0.0.0\",\"maxVersion\":\"9.0.0\"}],\"inputTypes\":"
                        + "[\"structured-data\"],\"tools\":[\"network\"],\"credentials\":[],\"permissionMode\":"
                        + "\"read-only\",\"networkDestinations\":[],\"sideEffectClass\":\"none\"}");
        int code = run("yes\n", "run", skill.toString(), "--node", NODE, "--input", input("contract.txt"));
        assertThat(code).isEqualTo(1);
        assertThat(stdout()).contains("CONTRACT_TOOL_MISSING").doesNotContain("approval request");
        assertThat(tmp.resolve("contract.txt")).doesNotExist();
    }

    @Test
    void aDirectoryThatIsNotALoadableSkillExits1() throws IOException {
        Path notSkill = Files.createDirectories(tmp.resolve("skills").resolve("empty-dir"));
        assertThat(run("", "run", notSkill.toString(), "--node", NODE, "--input", "{}"))
                .isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("not a loadable skill");
    }
}
