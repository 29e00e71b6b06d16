package dev.skillgate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.skillgate.engine.SkillGateAdmin;
import dev.skillgate.fixtures.TestNodeBinary;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.OutputLimit;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.model.Timeout;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code skillgate run} against the attacks of issue 15 that the command line itself answers, with
 * a real {@code node}, the Linux supervisor and real directories: a data directory that another
 * user could change (a group- or other-writable ancestor, a sticky directory that is not root's, a
 * component below {@code /tmp} that is another user's), a launch authorised by a stored receipt,
 * a runtime digest pinned with {@code --node-sha256} (and a {@code node} swapped after the version
 * check), a staging directory the script made unremovable, and the default data directory on a
 * fresh home.
 */
@EnabledOnOs(OS.LINUX)
class RunSecurityTest {
    private static final String NODE = TestNodeBinary.require().toString();
    private static final String MARKER =
            "sgclisec-" + java.util.UUID.randomUUID().toString().substring(0, 12);
    private static final int OTHER_UID = 2_000_000_000 + new Random().nextInt(100_000_000);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String WRITER = """
            import { readFileSync, writeFileSync } from 'node:fs';
            const input = JSON.parse(readFileSync(0, 'utf8'));
            writeFileSync(input.file, 'ran');
            process.stdout.write(JSON.stringify({ wrote: input.file }));
            """;

    @TempDir
    Path tmp;

    private Path skills;
    private Path writer;
    private Path workspace;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeEach
    void skills() throws IOException {
        // The class's marker is in every path, so every descendant of a run carries it (HOME, TMPDIR).
        Path root = Files.createDirectories(tmp.resolve(MARKER));
        skills = Files.createDirectories(root.resolve("skills"));
        writer = Files.createDirectories(skills.resolve("writer"));
        Files.writeString(writer.resolve("SKILL.md"), "---\nname: writer\ndescription: Writes a marker file.\n---\n");
        Files.createDirectories(writer.resolve("scripts"));
        Files.writeString(writer.resolve("scripts/w.mjs"), WRITER);
        Files.writeString(
                writer.resolve("execution.json"),
                "{\"schemaVersion\":1,\"entrypoint\":\"scripts/w.mjs\",\"files\":[\"scripts/w.mjs\"],"
                        + "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"file\":{\"type\":\"string\"}},"
                        + "\"required\":[\"file\"],\"additionalProperties\":false},"
                        + "\"outputSchema\":{\"type\":\"object\",\"properties\":{}},\"timeoutMs\":10000}");
        workspace = Files.createDirectories(root.resolve("workspace"));
    }

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

    private int run(InputStream stdin, String... args) {
        out.reset();
        err.reset();
        return Main.run(
                args,
                stdin,
                new java.io.PrintStream(out, true, StandardCharsets.UTF_8),
                new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private int run(String stdin, String... args) {
        return run(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), args);
    }

    private String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private String input(Path file) {
        return "{\"file\":\"" + file.toString().replace("\\", "\\\\") + "\"}";
    }

    private Revision writerRevision() throws IOException {
        Map<PortablePath, byte[]> files = new TreeMap<>();
        for (String f : new String[] {"SKILL.md", "execution.json", "scripts/w.mjs"}) {
            files.put(PortablePath.of(f), Files.readAllBytes(writer.resolve(f)));
        }
        return Revision.compute(files);
    }

    private static boolean root() {
        try {
            return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException e) {
            return false;
        }
    }

    private static Sha256Digest sha256(Path file) throws IOException {
        MessageDigest md = Sha256Digest.newMessageDigest();
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buf = new byte[1 << 20];
            for (int n; (n = in.read(buf)) > 0; ) {
                md.update(buf, 0, n);
            }
        }
        return Sha256Digest.of(md.digest());
    }

    /** A stand-in {@code node} that records that it ran at all (even for --version) before doing anything. */
    private Path loggingNode(Path log) throws IOException {
        Path fake = Files.createDirectories(tmp.resolve("bin")).resolve("node");
        Files.writeString(fake, "#!/bin/sh\necho \"$@\" >> '" + log + "'\nexec " + NODE + " \"$@\"\n");
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
        return fake;
    }

    // --- a data directory another user could change: refused before anything runs ---

    /** Runs the writer with {@code data} and asserts the refusal: code, the directory named, nothing ran. */
    private void assertRefusedBeforeAnythingRan(Path data, Path component) throws IOException {
        Path ranLog = tmp.resolve("node-ran-" + System.nanoTime() + ".log");
        Path marker = tmp.resolve("ran-" + System.nanoTime() + ".txt");
        int code = run(
                "yes\n",
                "run",
                writer.toString(),
                "--node",
                loggingNode(ranLog).toString(),
                "--input",
                input(marker),
                "--workspace",
                workspace.toString(),
                "--data-dir",
                data.toString());
        assertThat(code).as(stderr()).isEqualTo(3);
        assertThat(stderr())
                .contains("DATA_DIRECTORY_UNSAFE at " + component + ": the data directory " + data)
                .contains("nothing ran")
                .doesNotContain("Exception");
        assertThat(stdout()).doesNotContain("approval request");
        assertThat(marker).as("the script did not run").doesNotExist();
        assertThat(ranLog).as("node was not even asked its version").doesNotExist();
        assertThat(data).as("nothing was created").doesNotExist();
    }

    @Test
    void aGroupOrOtherWritableAncestorThatIsNotStickyIsRefusedAndNothingRuns() throws IOException {
        Path shared = Files.createDirectory(tmp.resolve("shared"));
        for (String mode : new String[] {"rwxrwxr-x", "rwxr-xrwx", "rwxrwxrwx"}) {
            Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString(mode));
            assertRefusedBeforeAnythingRan(shared.resolve("data"), shared);
        }
    }

    @Test
    void aStickyDirectoryThatIsNotRootsIsRefusedAndNothingRuns() throws IOException {
        assumeTrue(root(), "only root can hand a directory to another uid");
        Path sticky = Files.createDirectory(tmp.resolve("sticky"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        Files.setAttribute(sticky, "unix:uid", OTHER_UID);
        assertRefusedBeforeAnythingRan(sticky.resolve("data"), sticky);
    }

    @Test
    void aComponentBelowTmpOwnedByAnotherUserIsRefusedAndNothingRuns() throws Exception {
        assumeTrue(root(), "only root can hand a directory to another uid");
        Path theirs = Files.createTempDirectory(Path.of("/tmp"), "sg-cli-theirs-");
        try {
            Files.setPosixFilePermissions(theirs, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.setAttribute(theirs, "unix:uid", OTHER_UID);
            assertRefusedBeforeAnythingRan(theirs.resolve("data"), theirs);
            // The same user's directory there, but another user's data directory inside it.
            Files.setAttribute(theirs, "unix:uid", 0);
            Path data = Files.createDirectory(theirs.resolve("data"));
            Files.setAttribute(data, "unix:uid", OTHER_UID);
            Path ranLog = tmp.resolve("node-ran-theirs.log");
            assertThat(run(
                            "yes\n",
                            "run",
                            writer.toString(),
                            "--node",
                            loggingNode(ranLog).toString(),
                            "--input",
                            input(tmp.resolve("theirs.txt")),
                            "--data-dir",
                            data.toString()))
                    .isEqualTo(3);
            assertThat(stderr()).contains("DATA_DIRECTORY_UNSAFE at " + data + ":");
            assertThat(ranLog).doesNotExist();
            assertThat(tmp.resolve("theirs.txt")).doesNotExist();
        } finally {
            new ProcessBuilder("rm", "-rf", theirs.toString()).start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void aPrivateDirectoryUnderTmpIsAcceptedAndRuns() throws Exception {
        Path mine = Files.createTempDirectory(Path.of("/tmp"), "sg-cli-mine-");
        try {
            Path marker = tmp.resolve("mine.txt");
            int code = run(
                    "yes\n",
                    "run",
                    writer.toString(),
                    "--node",
                    NODE,
                    "--input",
                    input(marker),
                    "--workspace",
                    workspace.toString(),
                    "--data-dir",
                    mine.resolve("data").toString());
            assertThat(code).as(stdout() + stderr()).isZero();
            assertThat(stdout()).contains("status: SUCCEEDED").contains("cleanup: PROVEN");
            assertThat(marker).hasContent("ran");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(mine.resolve("data"))))
                    .isEqualTo("rwx------");
        } finally {
            new ProcessBuilder("rm", "-rf", mine.toString()).start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    // --- a receipt-authorised run says so ---

    private Path receiptDataDir() throws IOException {
        Path data = tmp.resolve("receipt-data");
        try (SkillGateAdmin admin = SkillGateAdmin.open(data)) {
            admin.trustRevision(
                            writerRevision(),
                            AgentId.of("skillgate-cli"),
                            workspace,
                            new Timeout(60_000),
                            new OutputLimit(OutputLimit.MAX_BYTES))
                    .orElseThrow();
        }
        return data;
    }

    @Test
    void aReceiptAuthorisedRunNamesTheReceiptAndItsScopeInTextAndAsksNothing() throws IOException {
        Path data = receiptDataDir();
        Path marker = tmp.resolve("receipt.txt");
        // End of input: were anybody asked, the answer would be no.
        int code = run(
                "",
                "run",
                writer.toString(),
                "--node",
                NODE,
                "--input",
                input(marker),
                "--workspace",
                workspace.toString(),
                "--data-dir",
                data.toString());
        assertThat(code).as(stdout() + stderr()).isZero();
        assertThat(marker).hasContent("ran");
        String scopeId;
        String receiptId;
        try (SkillGateAdmin admin = SkillGateAdmin.open(data)) {
            var scope = (dev.skillgate.audit.ExecutionScope)
                    admin.trust().list().get(0).scope();
            scopeId = scope.id().toString();
            receiptId = scope.receiptId().toString();
        }
        assertThat(stdout())
                .contains("authorised by a trusted-revision receipt, not asked")
                .contains("receipt: " + receiptId)
                .contains("scope: " + scopeId + ": revision " + writerRevision())
                .contains("agent skillgate-cli")
                .contains("workspace " + workspace.toRealPath())
                .contains("skillgate trust revoke --data-dir " + data + " --scope " + scopeId)
                .contains("status: SUCCEEDED")
                .doesNotContain("approval request");
        // The notice comes before the result.
        assertThat(stdout().indexOf("not asked")).isLessThan(stdout().indexOf("status: SUCCEEDED"));
    }

    @Test
    void aReceiptAuthorisedRunSaysApprovalReceiptInJson() throws IOException {
        Path data = receiptDataDir();
        int code = run(
                "",
                "run",
                writer.toString(),
                "--node",
                NODE,
                "--input",
                input(tmp.resolve("receipt-json.txt")),
                "--workspace",
                workspace.toString(),
                "--data-dir",
                data.toString(),
                "--json");
        assertThat(code).as(stdout() + stderr()).isZero();
        JsonNode doc = JSON.readTree(stdout());
        assertThat(doc.get("approval").asString()).isEqualTo("receipt");
        JsonNode receipt = doc.get("receipt");
        try (SkillGateAdmin admin = SkillGateAdmin.open(data)) {
            var scope = (dev.skillgate.audit.ExecutionScope)
                    admin.trust().list().get(0).scope();
            assertThat(receipt.get("id").asString()).isEqualTo(scope.receiptId().toString());
            assertThat(receipt.get("approvedAt").asString())
                    .isEqualTo(scope.receiptIssuedAt().toString());
            assertThat(receipt.get("scope").get("id").asString())
                    .isEqualTo(scope.id().toString());
        }
        assertThat(receipt.get("scope").get("revision").asString())
                .isEqualTo(writerRevision().toString());
        assertThat(receipt.get("scope").get("agent").asString()).isEqualTo("skillgate-cli");
        assertThat(receipt.get("scope").get("workspace").asString())
                .isEqualTo(workspace.toRealPath().toString());
        assertThat(receipt.get("scope").get("timeoutCeilingMillis").asInt()).isEqualTo(60_000);
        assertThat(doc.get("envelope").get("status").asString()).isEqualTo("SUCCEEDED");
        assertThat(stderr()).contains("authorised by a trusted-revision receipt, not asked");
        // An asked run in the same shape says terminal and carries no receipt.
        assertThat(run(
                        "yes\n",
                        "run",
                        writer.toString(),
                        "--node",
                        NODE,
                        "--input",
                        input(tmp.resolve("asked-json.txt")),
                        "--workspace",
                        workspace.toString(),
                        "--data-dir",
                        tmp.resolve("asked-data").toString(),
                        "--json"))
                .isZero();
        JsonNode asked = JSON.readTree(stdout());
        assertThat(asked.get("approval").asString()).isEqualTo("terminal");
        assertThat(asked.get("receipt").isNull()).isTrue();
    }

    // --- --node-sha256 ---

    @Test
    void aWrongNodeDigestIsRefusedBeforeNodeIsAskedAnything() throws IOException {
        Path ranLog = tmp.resolve("node-ran-digest.log");
        Path node = loggingNode(ranLog);
        Sha256Digest wrong = Sha256Digest.hash("not this binary".getBytes(StandardCharsets.UTF_8));
        Path marker = tmp.resolve("wrong-digest.txt");
        int code = run(
                "yes\n",
                "run",
                writer.toString(),
                "--node",
                node.toString(),
                "--node-sha256",
                wrong.toString(),
                "--input",
                input(marker),
                "--data-dir",
                tmp.resolve("digest-data").toString());
        assertThat(code).isEqualTo(3);
        assertThat(stderr())
                .contains("RUNTIME_MISMATCH")
                .contains("has SHA-256 " + sha256(node))
                .contains("--node-sha256 pins " + wrong)
                .contains("nothing ran");
        assertThat(ranLog).doesNotExist();
        assertThat(marker).doesNotExist();
        assertThat(run("", "run", writer.toString(), "--node", NODE, "--node-sha256", "sha256:12", "--input", "{}"))
                .as("a malformed digest is a usage error")
                .isEqualTo(2);
    }

    @Test
    void theRightNodeDigestRunsAndTheEnvelopeCarriesIt() throws IOException {
        Sha256Digest digest = sha256(Path.of(NODE).toRealPath());
        int code = run(
                "yes\n",
                "run",
                writer.toString(),
                "--node",
                NODE,
                "--node-sha256",
                digest.toString(),
                "--input",
                input(tmp.resolve("right-digest.txt")),
                "--data-dir",
                tmp.resolve("right-data").toString(),
                "--json");
        assertThat(code).as(stderr()).isZero();
        JsonNode env = JSON.readTree(stdout()).get("envelope");
        assertThat(env.get("status").asString()).isEqualTo("SUCCEEDED");
        assertThat(env.get("runtimeSha256").asString()).isEqualTo(digest.toString());
        // Without a pin the envelope says so: no digest was checked.
        assertThat(run(
                        "yes\n",
                        "run",
                        writer.toString(),
                        "--node",
                        NODE,
                        "--input",
                        input(tmp.resolve("no-digest.txt")),
                        "--data-dir",
                        tmp.resolve("no-digest-data").toString(),
                        "--json"))
                .isZero();
        assertThat(JSON.readTree(stdout()).get("envelope").get("runtimeSha256").isNull())
                .isTrue();
    }

    /**
     * The attack of issue 15 ("Also seen"): the user's own {@code node} is replaced after the version
     * check — here while the human reads the approval request — by a program that answers
     * {@code --version} exactly as the real one does. With the digest pinned the swap is refused and
     * the replacement never runs.
     */
    @Test
    void aNodeSwappedAfterTheVersionCheckIsRefusedWhenItsDigestIsPinned() throws Exception {
        Path bin = Files.createDirectories(tmp.resolve("user-bin"));
        Path node = bin.resolve("node");
        Files.copy(Path.of(NODE).toRealPath(), node);
        Files.setPosixFilePermissions(node, PosixFilePermissions.fromString("rwxr-xr-x"));
        Sha256Digest genuine = sha256(node);
        String version = new String(
                        new ProcessBuilder(node.toString(), "--version")
                                .start()
                                .getInputStream()
                                .readAllBytes(),
                        StandardCharsets.UTF_8)
                .strip();
        Path evilRan = tmp.resolve("evil-ran.log");
        Path evil = bin.resolve(".node.new");
        Files.writeString(
                evil,
                "#!/bin/sh\nif [ \"$1\" = --version ]; then echo " + version + "; exit 0; fi\n" + "echo \"$@\" >> '"
                        + evilRan + "'\necho '{\"wrote\":\"pwned\"}'\n");
        Files.setPosixFilePermissions(evil, PosixFilePermissions.fromString("rwxr-xr-x"));
        // The premise: the replacement passes a version check.
        assertThat(new String(
                                new ProcessBuilder(evil.toString(), "--version")
                                        .start()
                                        .getInputStream()
                                        .readAllBytes(),
                                StandardCharsets.UTF_8)
                        .strip())
                .isEqualTo(version);

        // The answer is read after the version check and the engine's own verification: swap then.
        InputStream swapThenYes = new InputStream() {
            private final InputStream yes = new ByteArrayInputStream("yes\n".getBytes(StandardCharsets.UTF_8));
            private boolean swapped;

            @Override
            public int read() throws IOException {
                swap();
                return yes.read();
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                swap();
                return yes.read(b, off, len);
            }

            private void swap() throws IOException {
                if (!swapped) {
                    swapped = true;
                    Files.move(evil, node, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                }
            }
        };
        Path marker = tmp.resolve("swapped.txt");
        int code = run(
                swapThenYes,
                "run",
                writer.toString(),
                "--node",
                node.toString(),
                "--node-sha256",
                genuine.toString(),
                "--input",
                input(marker),
                "--data-dir",
                tmp.resolve("swap-data").toString());
        assertThat(stdout()).contains("approval request");
        assertThat(code).as(stdout() + stderr()).isEqualTo(3);
        assertThat(stdout()).contains("status: REFUSED").contains("RUNTIME_MISMATCH");
        assertThat(evilRan).as("the replacement never ran").doesNotExist();
        assertThat(marker).doesNotExist();
        assertThat(Files.isSymbolicLink(node)).isFalse();
        assertThat(Files.readString(node)).as("the swap did happen").contains("#!/bin/sh");
    }

    // --- reporting ---

    @Test
    void aStagingDirectoryTheScriptMadeUnremovableIsReportedOnASuccessAndTheDataDirectoryKept() throws IOException {
        Path deep = Files.createDirectories(skills.resolve("deep"));
        Files.writeString(deep.resolve("SKILL.md"), "---\nname: deep\ndescription: Leaves a deep tree.\n---\n");
        Files.createDirectories(deep.resolve("scripts"));
        Files.writeString(
                deep.resolve("scripts/d.mjs"),
                "import { mkdirSync } from 'node:fs';\n"
                        + "mkdirSync(process.env.TMPDIR + '/d'.repeat(620), { recursive: true });\n"
                        + "process.stdout.write('{}');\n");
        Files.writeString(
                deep.resolve("execution.json"),
                "{\"schemaVersion\":1,\"entrypoint\":\"scripts/d.mjs\",\"files\":[\"scripts/d.mjs\"],"
                        + "\"inputSchema\":{\"type\":\"object\",\"properties\":{}},"
                        + "\"outputSchema\":{\"type\":\"object\",\"properties\":{}},\"timeoutMs\":10000}");
        Path data = tmp.resolve("deep-data");
        int code = run("yes\n", "run", deep.toString(), "--node", NODE, "--input", "{}", "--data-dir", data.toString());
        assertThat(code).as(stdout() + stderr()).isZero();
        assertThat(stdout())
                .contains("status: SUCCEEDED")
                .contains("staging kept at " + data.resolve("staging"))
                .contains("warning: STAGING_RETAINED");
        code = run(
                "yes\n",
                "run",
                deep.toString(),
                "--node",
                NODE,
                "--input",
                "{}",
                "--data-dir",
                data.toString(),
                "--json");
        JsonNode env = JSON.readTree(stdout()).get("envelope");
        assertThat(env.get("status").asString()).isEqualTo("SUCCEEDED");
        assertThat(env.get("errors").get(0).get("code").asString()).isEqualTo("STAGING_RETAINED");
        assertThat(env.get("errors").get(0).get("severity").asString()).isEqualTo("WARNING");
        assertThat(env.get("cleanup").get("retainedStaging").asString()).startsWith(data.resolve("staging") + "/");
    }

    @Test
    void runningAsRootIsWarnedAbout() {
        assumeTrue(root(), "the warning is for root");
        run(
                "",
                "run",
                writer.toString(),
                "--node",
                NODE,
                "--input",
                input(tmp.resolve("root.txt")),
                "--data-dir",
                tmp.resolve("root-data").toString(),
                "--json");
        assertThat(stderr()).contains("warning: running skills as root").contains("'cleanup: PROVEN' means nothing");
        assertThat(JSON.readTree(stdout()).get("runningAsRoot").asBoolean()).isTrue();
    }

    // --- the default data directory: a fresh home, never /tmp ---

    /** Runs the real command in a child JVM with exactly {@code env}, as a fresh login would. */
    private Process childCli(Map<String, String> env, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Dslf4j.internal.verbosity=ERROR");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(Main.class.getName());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().clear();
        pb.environment().putAll(env);
        return pb.start();
    }

    private static String[] finish(Process p, String stdin) throws Exception {
        p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        var stdout = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        });
        String stderr = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new String[] {String.valueOf(p.exitValue()), stdout.get(), stderr};
    }

    @Test
    void onAFreshHomeTheDefaultDataDirectoryIsCreatedInTheStateHomeAndRemovedAfterAProvenRun() throws Exception {
        Path home = Files.createDirectories(tmp.resolve("home"));
        Path hello = Path.of("..", "examples", "skills", "hello-world")
                .toAbsolutePath()
                .normalize();
        String[] r = finish(
                childCli(
                        Map.of("HOME", home.toString(), "PATH", "/usr/bin:/bin", "LC_ALL", "C.UTF-8"),
                        "run",
                        hello.toString(),
                        "--node",
                        NODE,
                        "--input",
                        "{\"name\":\"Ada\"}"),
                "yes\n");
        assertThat(r[0]).as(r[1] + r[2]).isEqualTo("0");
        assertThat(r[1]).contains("status: SUCCEEDED").contains("output: {\"greeting\":\"Hello, Ada!\",\"length\":11}");
        Path state = home.resolve(".local/state/skillgate");
        String line = r[1].lines()
                .filter(l -> l.startsWith("data directory: "))
                .findFirst()
                .orElseThrow();
        Path used = Path.of(line.substring("data directory: ".length(), line.indexOf(" (temporary)")));
        assertThat(used.getParent()).isEqualTo(state);
        assertThat(used.getFileName().toString()).startsWith("run-");
        assertThat(used).as("removed after the proven run").doesNotExist();
        for (Path p : List.of(home.resolve(".local"), home.resolve(".local/state"), state)) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS)))
                    .as(p.toString())
                    .isEqualTo("rwx------");
        }

        // XDG_STATE_HOME wins when it is absolute; a relative one is ignored, as the XDG rule says.
        Path xdg = tmp.resolve("xdg-state");
        r = finish(
                childCli(
                        Map.of("HOME", home.toString(), "XDG_STATE_HOME", xdg.toString(), "PATH", "/usr/bin:/bin"),
                        "run",
                        hello.toString(),
                        "--node",
                        NODE,
                        "--input",
                        "{\"name\":\"Ada\"}"),
                "yes\n");
        assertThat(r[0]).as(r[1] + r[2]).isEqualTo("0");
        assertThat(r[1]).contains("data directory: " + xdg.resolve("skillgate").resolve("run-"));
    }

    @Test
    void aHomeBelowADirectoryOthersCanWriteIsRefusedNotSwappedForTmp() throws Exception {
        Path shared = Files.createDirectory(tmp.resolve("shared-home"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path home = Files.createDirectories(shared.resolve("home"));
        String[] r = finish(
                childCli(
                        Map.of("HOME", home.toString(), "PATH", "/usr/bin:/bin"),
                        "run",
                        writer.toString(),
                        "--node",
                        NODE,
                        "--input",
                        input(tmp.resolve("home.txt"))),
                "yes\n");
        assertThat(r[0]).as(r[1] + r[2]).isEqualTo("3");
        assertThat(r[2]).contains("DATA_DIRECTORY_UNSAFE at " + shared);
        assertThat(home.resolve(".local")).doesNotExist();
        assertThat(tmp.resolve("home.txt")).doesNotExist();
    }
}
