package dev.skillgate.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.skillgate.consent.ScriptedApprovalChannel;
import dev.skillgate.consent.spi.ApprovalChannel;
import dev.skillgate.model.AgentId;
import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionEnvelope;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.RunId;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Attacks 1 and 4 of issue 15 through the facade, with real {@code node} and the real Linux
 * supervisor: a workspace renamed away and replaced at the last moment (while the human approves;
 * and, by a same-uid inotify attacker, right after the run starts staging - after every check by path)
 * is refused as {@code WORKSPACE_CHANGED} and never gets the script; a tampered supervisor helper
 * reaches the envelope as {@code SUPERVISOR_TAMPERED}, never as {@code PROCESS_OWNERSHIP_UNSUPPORTED}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@org.junit.jupiter.api.Timeout(300)
@EnabledOnOs(OS.LINUX)
class LastMomentAttackTest extends LiveEngineTest {
    private static final AgentId AGENT = AgentId.of("agent-1");
    /** Launches raced by the workspace attacker. */
    static final int WORKSPACE_ITERATIONS = 20;

    private static final String PROBE = "import { statSync, writeFileSync } from 'node:fs';\n"
            + "const s = statSync('.', { bigint: true });\n"
            + "writeFileSync('script-was-here', 'x');\n"
            + "process.stdout.write(JSON.stringify({ dev: s.dev.toString(), ino: s.ino.toString() }));\n";

    private SkillGateAdmin admin;
    private final List<SkillGate> gates = new ArrayList<>();

    @BeforeEach
    void skill() throws IOException {
        Bundles.skill(
                skills,
                "cwd-probe",
                "probe.mjs",
                PROBE.getBytes(StandardCharsets.UTF_8),
                Bundles.OPEN_OBJECT,
                Bundles.OPEN_OBJECT,
                10_000,
                65536);
        admin = SkillGateAdmin.open(data);
    }

    @AfterEach
    void close() {
        gates.forEach(SkillGate::close);
        gates.clear();
        admin.close();
    }

    private SkillGate gate(ApprovalChannel channel, Consumer<SkillGate.Builder> extra) {
        SkillGate.Builder b = SkillGate.builder()
                .admin(admin)
                .skillRoot(skills)
                .nodeRuntime(Support.runtime())
                .approvalChannel(channel);
        extra.accept(b);
        SkillGate g = b.build();
        gates.add(g);
        return g;
    }

    private ExecutionEnvelope probe(SkillGate gate) {
        return gate.execute(ExecutionRequest.of(RunId.random(), AGENT, "cwd-probe", "{}", workspace));
    }

    private Path away() {
        return workspace.resolveSibling(workspace.getFileName() + ".approved");
    }

    private void swap() throws IOException {
        Files.move(workspace, away());
        Files.createDirectory(workspace);
    }

    /** Puts the approved directory back; returns whether the replacement got the script's file. */
    private boolean restore() throws IOException {
        boolean touched = Files.exists(workspace.resolve("script-was-here"));
        Support.deleteTree(workspace);
        Files.move(away(), workspace);
        Files.deleteIfExists(workspace.resolve("script-was-here"));
        return touched;
    }

    private long inode(Path dir) throws IOException {
        return (Long) Files.getAttribute(dir, "unix:ino");
    }

    @Test
    void aWorkspaceSwappedWhileTheHumanApprovesIsRefusedAsChanged() throws Exception {
        ApprovalChannel swapping = request -> {
            try {
                swap();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            return CompletableFuture.completedFuture(request.approve());
        };
        ExecutionEnvelope env = probe(gate(swapping, b -> {}));

        assertThat(env.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(env.errorCodes()).containsExactly(ErrorCode.WORKSPACE_CHANGED);
        assertThat(env.cleanup().status()).isEqualTo(CleanupStatus.NOT_STARTED);
        assertThat(restore()).as("the replacement never got the script").isFalse();
        assertThat(workspace.resolve("script-was-here")).doesNotExist();
    }

    @Test
    void aWorkspaceSwappedAfterEveryCheckByPathIsRefusedByTheHelperOrChangesNothing() throws Exception {
        ScriptedApprovalChannel channel = ScriptedApprovalChannel.denyingWhenEmpty();
        SkillGate gate = gate(channel, b -> {});
        channel.approveNext();
        ExecutionEnvelope warm = probe(gate); // extracts the helper and creates the staging root
        assertThat(warm.status()).as(warm.errors().toString()).isEqualTo(ExecutionStatus.SUCCEEDED);
        Files.delete(workspace.resolve("script-was-here"));
        long approvedInode = inode(workspace);

        Path attacker = compile("workspace-swapper.c", "workspace-swapper");
        Process p = new ProcessBuilder(
                        attacker.toString(), data.resolve("staging").toString(), workspace.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        Map<String, Integer> outcomes = new TreeMap<>();
        long started = System.nanoTime();
        try (OutputStream in = p.getOutputStream();
                BufferedReader out =
                        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII))) {
            for (int i = 0; i < WORKSPACE_ITERATIONS; i++) {
                in.write("arm\n".getBytes(StandardCharsets.US_ASCII));
                in.flush();
                assertThat(out.readLine()).isEqualTo("armed");
                channel.approveNext();
                ExecutionEnvelope env = probe(gate);
                assertThat(out.readLine())
                        .as("the attacker swapped the workspace")
                        .isEqualTo("acted ok");
                boolean replacementTouched = restore();

                assertThat(replacementTouched)
                        .as("iteration %d: the script never ran in the replacement", i)
                        .isFalse();
                if (env.status() == ExecutionStatus.SUCCEEDED) {
                    // The helper had already opened and checked the approved directory: it ran there.
                    assertThat(env.output().orElseThrow()).contains("\"ino\":\"" + approvedInode + "\"");
                    assertThat(workspace.resolve("script-was-here")).doesNotExist(); // removed by restore()
                    outcomes.merge("ran in the approved directory", 1, Integer::sum);
                } else {
                    assertThat(env.status()).as(env.errors().toString()).isEqualTo(ExecutionStatus.REFUSED);
                    assertThat(env.errorCodes()).containsExactly(ErrorCode.WORKSPACE_CHANGED);
                    assertThat(env.cleanup().status()).isEqualTo(CleanupStatus.NOT_STARTED);
                    outcomes.merge(env.errors().get(0).message(), 1, Integer::sum);
                }
            }
            in.write("quit\n".getBytes(StandardCharsets.US_ASCII));
        } finally {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
        System.out.printf(
                "workspace attack: %d launches in %d ms: %s%n",
                WORKSPACE_ITERATIONS, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), outcomes);
        assertThat(outcomes.keySet())
                .as("the helper's own check refused the swapped directory")
                .anyMatch(m -> m.startsWith("the process was not started: WORKSPACE_CHANGED: working directory"));
    }

    @Test
    void aHelperTamperedBeforeTheFirstExecutionIsReportedAsTamperedEvenWithTheOptIn() throws Exception {
        ScriptedApprovalChannel channel = ScriptedApprovalChannel.denyingWhenEmpty();
        channel.approveNext();
        assertThat(probe(gate(channel, b -> {})).status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        flipABit(helper());

        for (boolean optIn : new boolean[] {false, true}) {
            ScriptedApprovalChannel fresh =
                    ScriptedApprovalChannel.denyingWhenEmpty().approveNext();
            ExecutionEnvelope env = probe(gate(fresh, b -> {
                if (optIn) {
                    b.allowUnprovenCleanup();
                }
            }));
            assertThat(env.status()).as("opt-in %s", optIn).isEqualTo(ExecutionStatus.REFUSED);
            assertThat(env.errorCodes()).containsExactly(ErrorCode.SUPERVISOR_TAMPERED);
            assertThat(env.errors().get(0).message()).contains("SHA-256 differs from the shipped one");
            assertThat(fresh.requests())
                    .as("nobody is asked for a launch that cannot happen")
                    .isEmpty();
        }
    }

    @Test
    void aHelperTamperedAfterTheSupervisorWasChosenIsReportedAsTampered() throws Exception {
        ScriptedApprovalChannel channel = ScriptedApprovalChannel.denyingWhenEmpty();
        SkillGate gate = gate(channel, b -> {});
        channel.approveNext();
        assertThat(probe(gate).status()).isEqualTo(ExecutionStatus.SUCCEEDED);
        Files.delete(workspace.resolve("script-was-here"));
        flipABit(helper());

        channel.approveNext();
        ExecutionEnvelope env = probe(gate);
        assertThat(env.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(env.errorCodes()).containsExactly(ErrorCode.SUPERVISOR_TAMPERED);
        assertThat(env.cleanup().status()).isEqualTo(CleanupStatus.NOT_STARTED);
        assertThat(workspace.resolve("script-was-here")).doesNotExist();
    }

    private Path helper() throws IOException {
        try (Stream<Path> s = Files.walk(data.resolve("supervisor"))) {
            return s.filter(f -> f.getFileName().toString().equals("skillgate-supervisor"))
                    .findFirst()
                    .orElseThrow();
        }
    }

    private static void flipABit(Path bin) throws IOException {
        byte[] bytes = Files.readAllBytes(bin);
        bytes[bytes.length / 3] ^= 0x01;
        Path tmp = bin.resolveSibling(".tampered");
        Files.write(tmp, bytes);
        Files.setPosixFilePermissions(tmp, java.nio.file.attribute.PosixFilePermissions.fromString("r-x------"));
        Files.move(tmp, bin, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    private Path compile(String source, String name) throws Exception {
        Path bin = base.resolve(name);
        Path src = Path.of(LastMomentAttackTest.class
                .getResource("/dev/skillgate/engine/attack/" + source)
                .toURI());
        Process cc = new ProcessBuilder("cc", "-std=c11", "-O2", "-o", bin.toString(), src.toString())
                .redirectErrorStream(true)
                .start();
        String log = new String(cc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assumeTrue(cc.waitFor(60, TimeUnit.SECONDS) && cc.exitValue() == 0, "no C compiler: " + log);
        return bin;
    }
}
