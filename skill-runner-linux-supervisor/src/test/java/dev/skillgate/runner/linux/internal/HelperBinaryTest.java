package dev.skillgate.runner.linux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.Sha256Digest;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** The shipped helper: its self-test (SHA-256 and CRC-32C known answers), probe, usage and packaging. */
@EnabledOnOs(OS.LINUX)
class HelperBinaryTest {
    @TempDir
    Path data;

    static Process run(Path helper, String... args) throws Exception {
        String[] cmd = new String[args.length + 1];
        cmd[0] = helper.toString();
        System.arraycopy(args, 0, cmd, 1, args.length);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().clear();
        pb.redirectErrorStream(true);
        Process p = pb.start();
        p.getOutputStream().write(Wire.SEAL_VERIFIED); // the probe waits for the driver's seal
        p.getOutputStream().close();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        return p;
    }

    Path helper() {
        SupervisorCore core = SupervisorCore.prepare(data, Wire.POLICY_PREFER, HelperLauncher.direct());
        return core.installed().orElseThrow().binary();
    }

    @Test
    void selfTestPassesTheKnownAnswerVectors() throws Exception {
        Process p = run(helper(), "--selftest");
        assertThat(new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII))
                .isEqualTo("selftest ok\n");
        assertThat(p.exitValue()).isZero();
    }

    @Test
    void probeReportsTheKernelFeatures() throws Exception {
        Process p = run(helper(), "--probe");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        assertThat(p.exitValue()).isZero();
        HelperProbe.Probe probe = HelperProbe.parse(out).orElseThrow();
        assertThat(probe.protocol()).isEqualTo(Wire.PROTOCOL);
        assertThat(probe.subreaper()).isTrue();
        assertThat(probe.selftestOk()).isTrue();
        assertThat(probe.landlockScope()).isEqualTo(probe.landlockAbi() >= 6);
    }

    @Test
    void unknownArgumentsAreAUsageError() throws Exception {
        Process p = run(helper(), "--frobnicate");
        assertThat(p.exitValue()).isEqualTo(Wire.HELPER_EXIT_USAGE);
    }

    @Test
    void probeParsingRefusesIncompleteOutput() {
        assertThat(HelperProbe.parse("")).isEmpty();
        assertThat(HelperProbe.parse("skillgate-supervisor 1\nprotocol x\n")).isEmpty();
    }

    @Test
    void theJarResourceMatchesItsDigestAndIsExtractedPrivately() throws Exception {
        String platform = HelperInstaller.platform().orElseThrow();
        String base = "/dev/skillgate/runner/linux/" + platform + "/skillgate-supervisor";
        byte[] bin;
        String hex;
        try (InputStream b = HelperBinaryTest.class.getResourceAsStream(base);
                InputStream d = HelperBinaryTest.class.getResourceAsStream(base + ".sha256")) {
            bin = b.readAllBytes();
            hex = new String(d.readAllBytes(), StandardCharsets.US_ASCII).trim();
        }
        assertThat(Sha256Digest.hash(bin).hex()).isEqualTo(hex);
        Path extracted = helper();
        assertThat(Files.readAllBytes(extracted)).isEqualTo(bin);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(extracted)))
                .isEqualTo("r-x------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(extracted.getParent())))
                .isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(extracted.getParent().getParent())))
                .isEqualTo("rwx------");
    }

    @Test
    void aSecondInstallationReusesTheVerifiedFile() throws Exception {
        Path first = helper();
        long inode = (Long) Files.getAttribute(first, "unix:ino");
        Path second = helper();
        assertThat(second).isEqualTo(first);
        assertThat((Long) Files.getAttribute(second, "unix:ino")).isEqualTo(inode);
    }

    @Test
    void aDataDirectoryThatIsAFileMakesTheSupervisorUnavailable() throws Exception {
        Path file = Files.writeString(data.resolve("not-a-dir"), "x");
        SupervisorCore core = SupervisorCore.prepare(file, Wire.POLICY_PREFER, HelperLauncher.direct());
        assertThat(core.capabilities().available()).isFalse();
        assertThat(core.capabilities().detail()).startsWith("SUPERVISOR_UNAVAILABLE:");
        assertThat(core.installed()).isEqualTo(Optional.empty());
    }

    @Test
    void procIdentityParsesCommandNamesWithSpacesAndParentheses() {
        String stat = "123 (a) b (c)) S 1 123 123 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100";
        assertThat(ProcIdentity.parseStartTime(stat)).contains(987654L);
        assertThat(ProcIdentity.parseStartTime("garbage")).isEmpty();
        assertThat(ProcIdentity.startTimeTicks(ProcessHandle.current().pid())).isPresent();
    }

    @Test
    void row35_deadlinesUseOnlyTheMonotonicClock() throws Exception {
        // A wall-clock step cannot be staged safely on a shared machine; instead, no wall-clock source
        // may appear in the helper at all.
        try (var files = Files.list(Path.of("src/main/c"))) {
            for (Path c : files.toList()) {
                String src = Files.readString(c);
                assertThat(src)
                        .as(c.toString())
                        .doesNotContain("CLOCK_REALTIME")
                        .doesNotContain("gettimeofday")
                        .doesNotContainPattern("[^_a-z]time\\(");
            }
        }
    }
}
