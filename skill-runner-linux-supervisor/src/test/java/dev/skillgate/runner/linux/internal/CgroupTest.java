package dev.skillgate.runner.linux.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.skillgate.fixtures.DelegatedCgroup;
import dev.skillgate.model.Confinement;
import dev.skillgate.runner.LaunchConfinement;
import dev.skillgate.runner.ResourceCeilings;
import dev.skillgate.runner.SupervisionListener;
import dev.skillgate.runner.SupervisionResult.Outcome;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hardening layer L2, resources (decision 0543): the run in its own child of a cgroup v2 directory the
 * host delegated, {@code cgroup.kill} and {@code populated 0} as a proof beside {@code ECHILD}, the
 * limits of {@link ResourceCeilings} where the controller is available, a refusal under
 * {@code REQUIRE} where it is not, and a script that tries to leave its cgroup. The test delegates a
 * fresh directory below the cgroup2 mount to the supervisor (it needs to be allowed to create one:
 * root, or a delegated subtree of its own) and removes it afterwards.
 */
@EnabledOnOs(OS.LINUX)
@ExtendWith(Tags.class)
class CgroupTest {
    private static final ResourceCeilings LIMITS = ResourceCeilings.NONE.withCgroupLimits(
            OptionalLong.of(256L * 1024 * 1024), OptionalLong.of(64), OptionalLong.of(50));

    @TempDir
    static Path data;

    @TempDir
    static Path runs;

    static Optional<Path> mount = Optional.empty();
    static DelegatedCgroup cgroup;
    static Path delegated;
    static String unavailable = "";
    static CgroupControllers controllers;
    static SupervisorCore prefer;
    static SupervisorCore require;
    static SupervisorCore notDelegated;

    @BeforeAll
    static void prepare() throws IOException {
        notDelegated =
                SupervisorCore.prepare(data, Wire.POLICY_PREFER, Wire.POLICY_PREFER, HelperLauncher.direct(), false);
        mount = DelegatedCgroup.cgroup2Mount();
        cgroup = DelegatedCgroup.create("skillgate-test-");
        if (cgroup.directory().isEmpty()) {
            unavailable = cgroup.unavailable();
            return;
        }
        delegated = cgroup.directory().get();
        controllers = CgroupControllers.of(Optional.of(delegated));
        prefer = SupervisorCore.prepare(
                data, Wire.POLICY_PREFER, Wire.POLICY_PREFER, Optional.of(delegated), HelperLauncher.direct(), false);
        require = SupervisorCore.prepare(
                data, Wire.POLICY_PREFER, Wire.POLICY_REQUIRE, Optional.of(delegated), HelperLauncher.direct(), false);
    }

    @AfterAll
    static void removeDelegated() throws IOException {
        if (cgroup != null) {
            cgroup.close();
        }
    }

    static List<Path> runCgroups() throws IOException {
        return cgroup.runCgroups();
    }

    static void assumeDelegated() {
        assumeTrue(delegated != null, unavailable);
    }

    static String stdout(HelperRun.Report r) {
        return new String(r.result().stdout(), StandardCharsets.UTF_8);
    }

    @Test
    void withoutADelegatedCgroupTheLimitsAreReportedNotEnforcedAndNoCgroupIsUsed() throws Exception {
        TestRun t = TestRun.of(runs, "cgroup-attack.mjs", "marker");
        t.ceilings = LIMITS;

        HelperRun.Report r = t.run(notDelegated);

        assertThat(r.result().outcome()).as(r.helperDiagnostics()).isEqualTo(Outcome.EXITED);
        assertThat(Files.exists(t.file("ran"))).isTrue();
        Confinement c = r.result().confinement();
        assertThat(List.of(c.memory(), c.processCount(), c.cpu())).containsOnly(Confinement.Part.NOT_ENFORCED);
        assertThat(r.result().cleanup().proof()).isEqualTo("ECHILD");
        assertThat(notDelegated.capabilities().detail()).contains("no delegated cgroup");
        assertThat(notDelegated.capabilities().confinement().memory()).isEqualTo(Confinement.Part.NOT_ENFORCED);
    }

    @Test
    void theRunLivesInItsOwnCgroupAndCgroupKillLeavesItEmpty() throws Exception {
        assumeDelegated();
        TestRun t = TestRun.of(runs, "cgroup-attack.mjs", "main", delegated.toString());
        AtomicLong init = new AtomicLong();
        HelperRun run = t.launch(prefer, new SupervisionListener() {
            @Override
            public void started(long childPid) {
                init.set(childPid);
            }
        });
        waitFor(t.file("grandchild.ready"));
        // Every process of the run, the detached grandchild included, is in one new child of the
        // delegated cgroup; the helper (and this JVM) are not.
        List<Long> pids = ProcScan.survivors(t.tag);
        assertThat(pids).hasSizeGreaterThanOrEqualTo(2);
        List<String> where = new ArrayList<>();
        for (long pid : pids) {
            where.add(cgroupOf(pid));
        }
        assertThat(runCgroups()).hasSize(1);
        String runCgroup = "0::/" + mount.get().relativize(runCgroups().get(0));
        assertThat(where).containsOnly(runCgroup);
        assertThat(cgroupOf(init.get())).isEqualTo(runCgroup);
        assertThat(cgroupOf(ProcessHandle.current().pid())).isNotEqualTo(runCgroup);
        Files.writeString(t.file("checked"), "");

        HelperRun.Report r = TestRun.await(run);

        assertThat(r.result().outcome()).as(r.helperDiagnostics()).isEqualTo(Outcome.EXITED);
        assertThat(r.result().cleanup().proven()).isTrue();
        assertThat(r.result().cleanup().detachedSeen()).isTrue();
        assertThat(r.result().cleanup().proof()).isEqualTo("ECHILD+CGROUP_EMPTY");
        assertThat(r.helperResult().orElseThrow().cgroupEmpty()).isTrue();
        assertThat(ProcScan.survivors(t.tag)).isEmpty();
        for (long pid : pids) {
            assertThat(ProcScan.alive(pid)).as("pid " + pid).isFalse();
        }
        assertThat(runCgroups()).as("the run's cgroup is removed").isEmpty();
        // The script saw its own cgroup as the root of its cgroup namespace. With file writes
        // unrestricted (no contract) it could still leave it: this cgroup2 mount has no nsdelegate,
        // so the kernel checks only ordinary write permission on cgroup.procs, which this user has.
        // The escaped script was still killed (it cannot leave the PID namespace), and the proof is
        // still true for what it says: the run's cgroup was empty.
        String out = stdout(r);
        assertThat(out).contains("\"before\":\"0::/\"");
        if (!nsdelegate()) {
            assertThat(out).contains("\"delegated\":\"ok\"", "\"parent\":\"ok\"", "\"after\":\"0::/../..\"");
        } else {
            assertThat(out).contains("\"delegated\":\"ENOENT\"", "\"parent\":\"ENOENT\"", "\"after\":\"0::/\"");
        }
    }

    @Test
    void underAWriteAllowListLandlockAlsoRefusesTheCgroupFiles() throws Exception {
        assumeDelegated();
        TestRun t = TestRun.of(runs, "cgroup-attack.mjs", "main", delegated.toString());
        t.confinement = new LaunchConfinement(Optional.of(List.of(t.dir)), Optional.empty());
        Files.writeString(t.file("checked"), "");

        HelperRun.Report r = t.run(prefer);

        assertThat(r.result().outcome()).as(r.helperDiagnostics()).isEqualTo(Outcome.EXITED);
        assertThat(r.result().confinement().fileWrites()).isEqualTo(Confinement.Part.ENFORCED);
        assertThat(r.result().cleanup().proof()).isEqualTo("ECHILD+CGROUP_EMPTY");
        String out = stdout(r);
        assertThat(out)
                .contains(
                        "\"before\":\"0::/\"",
                        "\"delegated\":\"EACCES\"",
                        "\"parent\":\"EACCES\"",
                        "\"after\":\"0::/\"");
        assertThat(out).doesNotContain("\":\"ok\"");
        assertThat(runCgroups()).isEmpty();
    }

    @Test
    void eachLimitIsItsOwnPartAndAMissingControllerIsReportedNotEnforced() throws Exception {
        assumeDelegated();
        TestRun t = TestRun.of(runs, "cgroup-attack.mjs", "marker");
        t.ceilings = LIMITS;
        t.confinement = new LaunchConfinement(Optional.of(List.of(t.dir)), Optional.empty());

        HelperRun.Report r = t.run(prefer);

        assertThat(r.result().outcome()).as(r.helperDiagnostics()).isEqualTo(Outcome.EXITED);
        assertThat(Files.exists(t.file("ran"))).isTrue();
        Confinement c = r.result().confinement();
        assertThat(c.memory()).isEqualTo(part(controllers.memory()));
        assertThat(c.processCount()).isEqualTo(part(controllers.pids()));
        assertThat(c.cpu()).isEqualTo(part(controllers.cpu()));
        assertThat(prefer.capabilities().confinement().memory()).isEqualTo(part(controllers.memory()));
        assertThat(prefer.capabilities().detail())
                .contains("cgroup " + delegated + " (memory " + (controllers.memory() ? "yes" : "no"));
        assertThat(r.result().cleanup().proof()).isEqualTo("ECHILD+CGROUP_EMPTY");
        assertThat(runCgroups()).isEmpty();
    }

    @Test
    void withoutTheWriteAllowListNoLimitIsReportedEnforced() throws Exception {
        assumeDelegated();
        // The run's cgroup files belong to the script's own user: with writes unrestricted it could
        // rewrite memory.max or pids.max, so the helper never reports them as enforced then.
        TestRun t = TestRun.of(runs, "cgroup-attack.mjs", "marker");
        t.ceilings = LIMITS;

        HelperRun.Report r = t.run(prefer);

        assertThat(r.result().outcome()).as(r.helperDiagnostics()).isEqualTo(Outcome.EXITED);
        Confinement c = r.result().confinement();
        assertThat(List.of(c.memory(), c.processCount(), c.cpu())).containsOnly(Confinement.Part.NOT_ENFORCED);
        assertThat(r.result().cleanup().proof()).isEqualTo("ECHILD+CGROUP_EMPTY");

        TestRun strict = TestRun.of(runs, "cgroup-attack.mjs", "marker");
        strict.ceilings = LIMITS;
        HelperRun.Report refused = strict.run(require);
        assertThat(refused.result().outcome()).isEqualTo(Outcome.SETUP_FAILED);
        assertThat(refused.result().detail())
                .startsWith(
                        controllers.memory()
                                ? "CONFINEMENT_UNAVAILABLE: cgroup limits need the file-write allow-list"
                                : "CONFINEMENT_UNAVAILABLE: controller memory not available in the delegated cgroup");
        assertThat(Files.exists(strict.file("ran"))).isFalse();
        assertThat(runCgroups()).isEmpty();
    }

    @Test
    void underRequireAMissingControllerRefusesTheLaunchBeforeAnythingRuns() throws Exception {
        assumeDelegated();
        assumeTrue(
                !controllers.memory(),
                "the memory controller is available in the delegated cgroup here; the refusal needs a host"
                        + " where it is not");
        TestRun t = TestRun.of(runs, "cgroup-attack.mjs", "marker");
        t.ceilings = ResourceCeilings.NONE.withCgroupLimits(
                OptionalLong.of(256L * 1024 * 1024), OptionalLong.empty(), OptionalLong.empty());
        t.confinement = new LaunchConfinement(Optional.of(List.of(t.dir)), Optional.empty());

        HelperRun.Report r = t.run(require);

        assertThat(r.result().outcome()).isEqualTo(Outcome.SETUP_FAILED);
        assertThat(r.result().detail())
                .startsWith("CONFINEMENT_UNAVAILABLE: controller memory not available in the delegated cgroup");
        assertThat(r.result().cleanup().proof()).isEqualTo("NOTHING_STARTED");
        assertThat(r.spawned()).isEmpty();
        assertThat(Files.exists(t.file("ran"))).as("the script never ran").isFalse();
        assertThat(runCgroups()).as("the run's cgroup is removed again").isEmpty();
    }

    @Test
    void anUnusableDelegatedDirectoryRefusesTheLaunch() throws Exception {
        Path notACgroup = Files.createDirectories(runs.resolve("not-a-cgroup"));
        SupervisorCore bad = SupervisorCore.prepare(
                data, Wire.POLICY_PREFER, Wire.POLICY_PREFER, Optional.of(notACgroup), HelperLauncher.direct(), false);
        TestRun t = TestRun.of(runs, "cgroup-attack.mjs", "marker");

        HelperRun.Report r = t.run(bad);

        assertThat(r.result().outcome()).isEqualTo(Outcome.SETUP_FAILED);
        assertThat(r.result().detail()).startsWith("CONFINEMENT_UNAVAILABLE: delegated cgroup unusable");
        assertThat(Files.exists(t.file("ran"))).isFalse();
        try (Stream<Path> s = Files.list(notACgroup)) {
            assertThat(s.toList()).as("nothing written into it").isEmpty();
        }
    }

    @Test
    void aForkBombEndsAtPidsMax() throws Exception {
        assumeDelegated();
        assumeTrue(
                controllers.pids(),
                "the pids controller is not available in the delegated cgroup v2 directory here ("
                        + delegated.getParent().resolve("cgroup.controllers") + " lists '"
                        + controllersOf(delegated.getParent())
                        + "'; on a hybrid host pids is bound to a cgroup v1 hierarchy), so pids.max cannot be"
                        + " enforced and there is nothing to attack");
        TestRun t = TestRun.of(runs, "fork-bomb.mjs");
        t.ceilings =
                ResourceCeilings.NONE.withCgroupLimits(OptionalLong.empty(), OptionalLong.of(24), OptionalLong.empty());
        t.confinement = new LaunchConfinement(Optional.of(List.of(t.dir)), Optional.empty());

        HelperRun.Report r = t.run(prefer);

        assertThat(r.result().confinement().processCount()).isEqualTo(Confinement.Part.ENFORCED);
        assertThat(r.result().outcome()).as(r.helperDiagnostics()).isEqualTo(Outcome.EXITED);
        String out = stdout(r);
        assertThat(out).contains("\"error\":\"EAGAIN\"");
        int started = Integer.parseInt(out.replaceAll(".*\"started\":(\\d+).*", "$1"));
        assertThat(started).isLessThan(24);
        assertThat(r.result().cleanup().proof()).isEqualTo("ECHILD+CGROUP_EMPTY");
        assertThat(ProcScan.survivors(t.tag)).isEmpty();
    }

    /** Whether the cgroup2 mount has the nsdelegate option (then cgroup namespaces are delegation boundaries). */
    static boolean nsdelegate() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
            String[] halves = line.split(" - ", 2);
            if (halves.length == 2 && halves[1].startsWith("cgroup2 ")) {
                return halves[1].contains("nsdelegate");
            }
        }
        return false;
    }

    private static Confinement.Part part(boolean available) {
        return available ? Confinement.Part.ENFORCED : Confinement.Part.NOT_ENFORCED;
    }

    private static String cgroupOf(long pid) throws IOException {
        return Files.readString(Path.of("/proc/" + pid + "/cgroup"))
                .lines()
                .filter(l -> l.startsWith("0::"))
                .findFirst()
                .orElse("none");
    }

    private static String controllersOf(Path dir) {
        try {
            return Files.readString(dir.resolve("cgroup.controllers")).trim();
        } catch (IOException e) {
            return "unreadable";
        }
    }

    private static void waitFor(Path file) throws InterruptedException {
        long until = System.nanoTime() + 20_000_000_000L;
        while (!Files.exists(file)) {
            if (System.nanoTime() > until) {
                throw new AssertionError("timed out waiting for " + file);
            }
            Thread.sleep(10);
        }
    }
}
