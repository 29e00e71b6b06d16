package dev.skillgate.runner.linux.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.skillgate.model.Confinement;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.runner.SupervisionListener;
import dev.skillgate.runner.SupervisionResult.Outcome;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hardening layer L2, process reach (decision 0542): the script runs in its own user and PID
 * namespace, so the helper and the JVM have no pid it can name. A real attacker ({@code attack/reach.c})
 * calls {@code kill}, {@code prlimit}, {@code setpriority}, {@code sched_setaffinity},
 * {@code sched_setscheduler} and {@code ptrace} on both; every call fails with {@code ESRCH}, the
 * helper's limits are unchanged and its sweep still proves cleanup of the sleeper the attacker left.
 * The contrast under L1 alone shows what L2 adds.
 */
@EnabledOnOs(OS.LINUX)
@ExtendWith(Tags.class)
class ProcessReachTest {
    private static final List<String> OPS = List.of(
            "kill",
            "prlimit-read",
            "prlimit-nofile",
            "getpriority",
            "setpriority",
            "getaffinity",
            "setaffinity",
            "setscheduler",
            "ptrace");

    @TempDir
    static Path data;

    @TempDir
    static Path runs;

    static SupervisorCore l2;
    static SupervisorCore l1;
    static Path attacker;

    @BeforeAll
    static void prepare() throws Exception {
        l2 = SupervisorCore.prepare(data, Wire.POLICY_PREFER, Wire.POLICY_PREFER, HelperLauncher.direct(), false);
        l1 = SupervisorCore.prepare(data, Wire.POLICY_PREFER, Wire.POLICY_OFF, HelperLauncher.direct(), false);
        attacker = AttackFixtures.compile(runs, "reach.c", "reach");
    }

    static void assumeNamespace() {
        assumeTrue(
                l2.probe().orElseThrow().pidNamespace(),
                "this kernel refuses an unprivileged user + PID namespace with a private /proc: "
                        + l2.capabilities().detail());
    }

    /** A run of the attacker; the recorder writes the helper's pid where the attacker waits for it. */
    static TestRun attackRun() throws Exception {
        TestRun t = TestRun.of(runs, "ok.mjs");
        t.executable = attacker;
        t.arguments.clear();
        t.arguments.add(Long.toString(ProcessHandle.current().pid()));
        t.arguments.add("--sg-tag=" + t.tag);
        FsyncRecorder inner = t.fsyncRecorder;
        t.recorder = identity -> {
            inner.record(identity);
            Files.writeString(t.dir.resolve("helper.pid"), Long.toString(identity.pid()));
        };
        return t;
    }

    /** The attacker's lines, from the file it writes in its working directory (never lost with the helper). */
    static Map<String, String> report(TestRun t) throws java.io.IOException {
        Map<String, String> out = new HashMap<>();
        Path file = t.dir.resolve("reach.out");
        String text = Files.exists(file) ? Files.readString(file) : "";
        for (String line : text.split("\n")) {
            String[] f = line.split(" ", 3);
            if (f.length == 3) {
                out.put(f[0] + " " + f[1], f[2]);
            }
        }
        return out;
    }

    static String limits(long pid) throws Exception {
        return Files.readString(Path.of("/proc/" + pid + "/limits"));
    }

    @Test
    void theScriptCannotNameTheHelperOrTheJvm() throws Exception {
        assumeNamespace();
        String jvmLimits = limits(ProcessHandle.current().pid());
        TestRun t = attackRun();

        HelperRun.Report r = t.run(l2);

        Map<String, String> rep = report(t);
        assertThat(r.result().outcome()).as(r.helperDiagnostics() + rep).isEqualTo(Outcome.EXITED);
        assertThat(r.result().hardening()).isEqualTo(HardeningLayer.L2);
        assertThat(r.result().confinement().processReach()).isEqualTo(Confinement.Part.ENFORCED);
        for (String who : List.of("jvm", "helper")) {
            for (String op : OPS) {
                assertThat(rep.get(who + " " + op)).as(who + " " + op).isEqualTo("ESRCH");
            }
        }
        // The script's parent is its namespace's init, not the helper.
        assertThat(rep.get("self ppid")).isEqualTo("1");
        // Nothing changed, and the sweep still killed the detached sleeper and proved it.
        assertThat(limits(ProcessHandle.current().pid())).isEqualTo(jvmLimits);
        assertThat(r.result().cleanup().proven()).isTrue();
        assertThat(r.result().cleanup().proof()).isEqualTo("ECHILD");
        assertThat(r.result().cleanup().detachedSeen()).isTrue();
        assertThat(ProcScan.survivors(t.tag)).isEmpty();
    }

    @Test
    void withL1AloneTheSameScriptReachesTheHelper() throws Exception {
        // The contrast, against the helper only (never against this JVM): under L1 prlimit,
        // setpriority and sched_setaffinity of the helper succeed; Landlock only scopes signals and ptrace.
        // The attacked helper may then fail to sweep (that is the attack): survivors are killed here.
        TestRun t = attackRun();
        try {
            HelperRun.Report r = t.run(l1);

            Map<String, String> rep = report(t);
            assertThat(r.result().confinement().processReach()).isEqualTo(Confinement.Part.NOT_ENFORCED);
            assertThat(rep.get("helper prlimit-nofile")).as(rep.toString()).isEqualTo("ok");
            assertThat(rep.get("helper setpriority")).isEqualTo("ok");
            assertThat(rep.get("helper setaffinity")).isEqualTo("ok");
            assertThat(rep.get("helper kill")).isIn("EPERM", "ok");
        } finally {
            ProcScan.killAll(t.tag);
        }
    }

    @Test
    void aRootScriptCannotReadTheJvmsEnvironmentOrSignalIt() throws Exception {
        // Under L1 a root script still read /proc/<jvm>/environ (HardeningTest row 16); in its own PID
        // namespace with a private /proc the JVM has no entry at all.
        assumeNamespace();
        assumeTrue("root".equals(System.getProperty("user.name")), "shown as root");
        TestRun t = TestRun.of(
                runs, "snoop.mjs", Long.toString(ProcessHandle.current().pid()));

        HelperRun.Report r = t.run(l2);

        assertThat(r.result().outcome()).isEqualTo(Outcome.EXITED);
        assertThat(new String(r.result().stdout(), StandardCharsets.UTF_8))
                .contains("\"targetEnviron\":\"ENOENT\"")
                .contains("\"targetSignal\":\"ESRCH\"")
                .contains("\"supervisorMem\":\"EACCES\"")
                .contains("\"supervisorFrames\":\"EACCES\"");
    }

    @Test
    void killingTheHelperFromOutsideNoLongerLetsADescendantEscape() throws Exception {
        // HardeningTest row 25 under L2: the namespace's init dies with the helper (PDEATHSIG), and
        // with it, by the kernel, every process of the run.
        assumeNamespace();
        TestRun t = TestRun.of(runs, "hang.mjs", "main", "detach");
        HelperRun run = t.launch(l2, SupervisionListener.NONE);
        t.awaitFile("hang.ready");
        long helper = t.fsyncRecorder.recorded.get().pid();
        ProcessHandle.of(helper).orElseThrow().destroyForcibly();
        HelperRun.Report r = TestRun.await(run);

        assertThat(r.result().outcome()).isEqualTo(Outcome.SUPERVISOR_FAILED);
        assertThat(r.result().cleanup().proven())
                .as("the driver still cannot prove it")
                .isFalse();
        long until = System.nanoTime() + 10_000_000_000L;
        while (!ProcScan.survivors(t.tag).isEmpty() && System.nanoTime() < until) {
            ProcScan.sleep(20);
        }
        assertThat(ProcScan.survivors(t.tag))
                .as("nothing of the run outlived its helper")
                .isEmpty();
    }
}
