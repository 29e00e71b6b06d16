package dev.skillgate.runner.linux.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.skillgate.model.Confinement;
import dev.skillgate.model.HardeningLayer;
import dev.skillgate.runner.LaunchConfinement;
import dev.skillgate.runner.SupervisionResult.Outcome;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hardening layer L2, file writes and TCP (decision 0541): real scripts attack what a
 * {@code workspace-write} or no-destination contract does not grant, and the kernel refuses each
 * attempt; with nothing asked for ({@code full-access}, no contract) the same scripts behave as before.
 */
@EnabledOnOs(OS.LINUX)
@ExtendWith(Tags.class)
class ConfinementTest {
    private static final List<String> WRITES =
            List.of("create", "mkdir", "symlink", "overwrite", "append", "truncate", "rename", "unlink");

    @TempDir
    static Path data;

    @TempDir
    static Path runs;

    static SupervisorCore prefer;

    @BeforeAll
    static void prepare() {
        prefer = SupervisorCore.prepare(data, Wire.POLICY_PREFER, Wire.POLICY_PREFER, HelperLauncher.direct(), false);
    }

    static void assumeParts(boolean fs, boolean net) {
        HelperProbe.Probe p = prefer.probe().orElseThrow();
        assumeTrue(!fs || p.landlockFs(), "Landlock file-system rules (ABI >= 3) unavailable: ABI " + p.landlockAbi());
        assumeTrue(!net || p.landlockNet(), "Landlock network rules (ABI >= 4) unavailable: ABI " + p.landlockAbi());
    }

    /** A directory with the three files the fixture tries to change. */
    static Path target(Path parent, String name) throws Exception {
        Path d = Files.createDirectories(parent.resolve(name));
        for (String v : List.of("victim", "victim2", "victim3")) {
            Files.writeString(d.resolve(v), "original");
        }
        return d;
    }

    /** The fixture's report: one line per attempt, {@code target TAB operation TAB result}. */
    static Map<String, String> report(HelperRun.Report r) {
        Map<String, String> out = new HashMap<>();
        for (String line : new String(r.result().stdout(), StandardCharsets.UTF_8).split("\n")) {
            String[] f = line.split("\t");
            if (f.length == 3) {
                out.put(f[0] + " " + f[1], f[2]);
            }
        }
        return out;
    }

    static String at(Map<String, String> report, Object target, String op) {
        return report.getOrDefault(target + " " + op, "missing");
    }

    @Test
    void workspaceWriteRefusesEveryWriteOutsideHomeTmpAndWorkspace() throws Exception {
        assumeParts(true, false);
        TestRun t = TestRun.of(runs, "write-attack.mjs");
        Path root = Files.createDirectories(runs.resolve("layout-" + t.tag));
        Path home = target(root, "home");
        Path tmp = target(root, "tmp");
        Path workspace = target(root, "workspace");
        // What a workspace-write run must never change: the data directory (receipts, audit), another
        // run's staging, its own staged bundle, and anything else the user owns.
        Path dataDir = target(root, "data");
        Path otherRun = target(root, "data/staging/other-run/home");
        Path ownBundle = target(root, "data/staging/this-run/bundle");
        Path elsewhere = target(root, "elsewhere");
        List<Path> forbidden = List.of(dataDir, otherRun, ownBundle, elsewhere);
        for (Path p : List.of(home, tmp, workspace, dataDir, otherRun, ownBundle, elsewhere)) {
            t.arguments.add(p.toString());
        }
        t.confinement = new LaunchConfinement(Optional.of(List.of(home, tmp, workspace)), Optional.empty());

        HelperRun.Report r = t.run(prefer);

        assertThat(r.result().outcome()).as(r.helperDiagnostics()).isEqualTo(Outcome.EXITED);
        assertThat(r.result().cleanup().proven()).isTrue();
        assertThat(r.result().confinement().fileWrites()).isEqualTo(Confinement.Part.ENFORCED);
        assertThat(r.result().confinement().network()).isEqualTo(Confinement.Part.NOT_REQUESTED);
        assertThat(r.result().hardening()).isEqualTo(HardeningLayer.L2);
        Map<String, String> rep = report(r);
        for (Path allowed : List.of(home, tmp, workspace)) {
            for (String op : WRITES) {
                assertThat(at(rep, allowed.toString(), op))
                        .as(op + " in " + allowed)
                        .isEqualTo("ok");
            }
        }
        for (Path denied : forbidden) {
            for (String op : WRITES) {
                assertThat(at(rep, denied.toString(), op))
                        .as(op + " in " + denied)
                        .isIn("EACCES", "EPERM", "EXDEV");
            }
            // Reads are not restricted, and neither is chmod (Landlock has no right for metadata).
            assertThat(at(rep, denied.toString(), "read")).isEqualTo("ok");
            assertThat(Files.readString(denied.resolve("victim"))).isEqualTo("original");
            assertThat(Files.exists(denied.resolve("victim3"))).isTrue();
            assertThat(Files.exists(denied.resolve("written-by-script"))).isFalse();
        }
        assertThat(at(rep, "devnull", "write")).isEqualTo("ok");
    }

    @Test
    void withoutAnAllowListWritesBehaveAsBefore() throws Exception {
        TestRun t = TestRun.of(runs, "write-attack.mjs");
        Path elsewhere = target(Files.createDirectories(runs.resolve("layout-" + t.tag)), "elsewhere");
        t.arguments.add(elsewhere.toString());

        HelperRun.Report r = t.run(prefer);

        assertThat(r.result().outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r.result().confinement().fileWrites()).isEqualTo(Confinement.Part.NOT_REQUESTED);
        Map<String, String> rep = report(r);
        for (String op : WRITES) {
            assertThat(at(rep, elsewhere.toString(), op)).as(op).isEqualTo("ok");
        }
    }

    @Test
    void noDestinationsRefusesTcpConnectAndListen() throws Exception {
        assumeParts(false, true);
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            TestRun t = TestRun.of(runs, "net-attack.mjs", Integer.toString(server.getLocalPort()));
            t.confinement = new LaunchConfinement(Optional.empty(), Optional.of(List.of()));

            HelperRun.Report r = t.run(prefer);

            assertThat(r.result().outcome()).as(r.helperDiagnostics()).isEqualTo(Outcome.EXITED);
            assertThat(r.result().confinement().network()).isEqualTo(Confinement.Part.ENFORCED);
            Map<String, String> rep = report(r);
            assertThat(at(rep, "net", "connect")).isIn("EACCES", "EPERM");
            assertThat(at(rep, "net", "listen")).isIn("EACCES", "EPERM");
        }
    }

    @Test
    void aDeclaredPortIsReachableAndListeningStaysRefused() throws Exception {
        assumeParts(false, true);
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            TestRun t = TestRun.of(runs, "net-attack.mjs", Integer.toString(server.getLocalPort()));
            t.confinement = new LaunchConfinement(Optional.empty(), Optional.of(List.of(server.getLocalPort())));

            HelperRun.Report r = t.run(prefer);

            assertThat(r.result().confinement().network()).isEqualTo(Confinement.Part.ENFORCED);
            Map<String, String> rep = report(r);
            assertThat(at(rep, "net", "connect")).isEqualTo("ok");
            assertThat(at(rep, "net", "listen")).isIn("EACCES", "EPERM");
        }
    }

    @Test
    void withoutTcpRulesTheNetworkBehavesAsBefore() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            TestRun t = TestRun.of(runs, "net-attack.mjs", Integer.toString(server.getLocalPort()));

            HelperRun.Report r = t.run(prefer);

            assertThat(r.result().confinement().network()).isEqualTo(Confinement.Part.NOT_REQUESTED);
            Map<String, String> rep = report(r);
            assertThat(at(rep, "net", "connect")).isEqualTo("ok");
            assertThat(at(rep, "net", "listen")).isEqualTo("ok");
        }
    }

    @Test
    void policyOffAppliesNoPartAndSaysSo() throws Exception {
        SupervisorCore off =
                SupervisorCore.prepare(data, Wire.POLICY_PREFER, Wire.POLICY_OFF, HelperLauncher.direct(), false);
        TestRun t = TestRun.of(runs, "write-attack.mjs");
        Path elsewhere = target(Files.createDirectories(runs.resolve("layout-" + t.tag)), "elsewhere");
        t.arguments.add(elsewhere.toString());
        t.confinement = new LaunchConfinement(Optional.of(List.of(t.dir)), Optional.of(List.of()));

        HelperRun.Report r = t.run(off);

        assertThat(r.result().outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r.result().confinement())
                .isEqualTo(new Confinement(
                        Confinement.Part.NOT_ENFORCED, Confinement.Part.NOT_ENFORCED, Confinement.Part.NOT_ENFORCED));
        assertThat(r.result().hardening()).isNotEqualTo(HardeningLayer.L2);
        assertThat(at(report(r), elsewhere.toString(), "create")).isEqualTo("ok");
    }

    @Test
    void aWritableDirectoryThatIsALinkIsRefusedBeforeAnythingRuns() throws Exception {
        assumeParts(true, false);
        TestRun t = TestRun.of(runs, "write-attack.mjs");
        Path link = Files.createSymbolicLink(runs.resolve("link-" + t.tag), Path.of("/"));
        t.confinement = new LaunchConfinement(Optional.of(List.of(link)), Optional.empty());

        HelperRun.Report r = t.run(prefer);

        assertThat(r.result().outcome()).isEqualTo(Outcome.SETUP_FAILED);
        assertThat(r.result().detail()).startsWith("CONFINEMENT_UNAVAILABLE:");
        assertThat(r.result().cleanup().proof()).isEqualTo("NOTHING_STARTED");
    }

    @Test
    void aRequiredPartThatWillNotApplyRefusesTheLaunchBeforeAnythingRuns() throws Exception {
        // What the approval showed as enforced is required of the launch (decision 0540): a helper that
        // would apply less (here: L2 off) refuses instead of running with less.
        SupervisorCore off =
                SupervisorCore.prepare(data, Wire.POLICY_PREFER, Wire.POLICY_OFF, HelperLauncher.direct(), false);
        TestRun t = TestRun.of(runs, "write-attack.mjs");
        Path marker = target(Files.createDirectories(runs.resolve("layout-" + t.tag)), "elsewhere");
        t.arguments.add(marker.toString());
        t.confinement = new LaunchConfinement(Optional.of(List.of(t.dir)), Optional.of(List.of()))
                .requiring(java.util.EnumSet.allOf(Confinement.Kind.class));

        HelperRun.Report r = t.run(off);

        assertThat(r.result().outcome()).isEqualTo(Outcome.SETUP_FAILED);
        assertThat(r.result().detail()).startsWith("CONFINEMENT_UNAVAILABLE:");
        assertThat(r.result().cleanup().proof()).isEqualTo("NOTHING_STARTED");
        assertThat(Files.exists(marker.resolve("written-by-script"))).isFalse();
    }

    @Test
    void requiredPartsTheKernelOffersAreApplied() throws Exception {
        assumeParts(true, true);
        TestRun t = TestRun.of(runs, "write-attack.mjs");
        Path elsewhere = target(Files.createDirectories(runs.resolve("layout-" + t.tag)), "elsewhere");
        t.arguments.add(elsewhere.toString());
        t.confinement = new LaunchConfinement(Optional.of(List.of(t.dir)), Optional.of(List.of()))
                .requiring(java.util.EnumSet.of(Confinement.Kind.FILE_WRITES, Confinement.Kind.NETWORK));

        HelperRun.Report r = t.run(prefer);

        assertThat(r.result().outcome()).as(r.helperDiagnostics()).isEqualTo(Outcome.EXITED);
        assertThat(r.result().confinement().fileWrites()).isEqualTo(Confinement.Part.ENFORCED);
        assertThat(r.result().confinement().network()).isEqualTo(Confinement.Part.ENFORCED);
        assertThat(at(report(r), elsewhere, "create")).isEqualTo("EACCES");
    }

    @Test
    void theCapabilitiesNameThePartsALaunchGets() {
        HelperProbe.Probe p = prefer.probe().orElseThrow();
        Confinement offered = prefer.capabilities().confinement();
        assertThat(offered.fileWrites() == Confinement.Part.ENFORCED).isEqualTo(p.landlockFs());
        assertThat(offered.network() == Confinement.Part.ENFORCED).isEqualTo(p.landlockNet());
        assertThat(offered.processReach() == Confinement.Part.ENFORCED).isEqualTo(p.pidNamespace());
        SupervisorCore off =
                SupervisorCore.prepare(data, Wire.POLICY_PREFER, Wire.POLICY_OFF, HelperLauncher.direct(), false);
        assertThat(off.capabilities().confinement()).isEqualTo(Confinement.UNAVAILABLE);
    }
}
