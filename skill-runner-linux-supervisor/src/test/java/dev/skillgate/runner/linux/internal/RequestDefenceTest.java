package dev.skillgate.runner.linux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.HardeningLayer;
import dev.skillgate.model.ProcessExit;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.runner.SupervisionResult.CleanupEvidence;
import dev.skillgate.runner.SupervisionResult.Outcome;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Reference §10 rows 27-29 and 38 and the environment promise: the helper re-checks what Java sends
 * (second line of defence), verifies the executable it is about to exec, and reports exec failures
 * with their errno. Raw requests that a {@code LaunchSpec} would never allow go straight to the
 * helper.
 */
@EnabledOnOs(OS.LINUX)
@ExtendWith(Tags.class)
class RequestDefenceTest {
    @TempDir
    static Path data;

    @TempDir
    static Path runs;

    @TempDir
    static Path bins;

    static SupervisorCore core;
    static Path helper;
    static Sha256Digest trueDigest;
    static Sha256Digest nodeDigest;

    @BeforeAll
    static void prepare() throws Exception {
        core = SupervisorCore.prepare(data, Wire.POLICY_PREFER, HelperLauncher.direct());
        helper = core.installed().orElseThrow().binary();
        trueDigest = digestOf(Path.of("/bin/true"));
        nodeDigest = digestOf(TestRun.NODE);
    }

    static Sha256Digest digestOf(Path p) throws Exception {
        MessageDigest md = Sha256Digest.newMessageDigest();
        try (InputStream in = Files.newInputStream(p)) {
            byte[] buf = new byte[1 << 20];
            int n;
            while ((n = in.read(buf)) > 0) {
                md.update(buf, 0, n);
            }
        }
        return Sha256Digest.of(md.digest());
    }

    static Path copyOfTrue(String name) throws Exception {
        Path p = bins.resolve(name);
        Files.copy(Path.of("/bin/true"), p);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    static TestRun runOf(Path executable) throws Exception {
        TestRun t = TestRun.of(runs, "ok.mjs");
        t.executable = executable;
        t.arguments.remove(0); // no script: the tag stays on the command line
        return t;
    }

    static void assertNothingStarted(HelperRun.Report r, Outcome outcome, String codePrefix) {
        assertThat(r.result().outcome()).isEqualTo(outcome);
        assertThat(r.result().detail()).startsWith(codePrefix);
        assertThat(r.result().cleanup()).isEqualTo(CleanupEvidence.nothingStarted());
        assertThat(r.result().exit()).isEqualTo(ProcessExit.notObserved());
        assertThat(r.result().hardening()).isEqualTo(HardeningLayer.NONE);
        assertThat(r.spawned()).isEmpty();
        assertThat(r.helperExit()).isZero();
    }

    @Test
    void theScriptSeesExactlyTheGivenEnvironmentArgumentsAndDirectory() throws Exception {
        TestRun t = TestRun.of(runs, "env.mjs", "a b", "", "--x=1");
        t.environment.put("SKILL_VALUE", "with spaces = and ünïcode");
        HelperRun.Report r = t.run(core);

        assertThat(r.result().outcome()).isEqualTo(Outcome.EXITED);
        String out = new String(r.result().stdout(), StandardCharsets.UTF_8);
        Map<String, String> expected = new TreeMap<>(t.environment);
        StringBuilder env = new StringBuilder();
        // JSON.stringify keeps insertion order, which is the sorted order the encoder sends.
        for (Map.Entry<String, String> e : expected.entrySet()) {
            env.append(env.length() == 0 ? "" : ",")
                    .append('"')
                    .append(e.getKey())
                    .append("\":\"")
                    .append(e.getValue())
                    .append('"');
        }
        assertThat(out).startsWith("{\"env\":{" + env + "},\"cwd\":\"" + t.dir + "\",\"execPath\":\"/usr/bin/node\"");
        assertThat(out)
                .endsWith(
                        "\"argv\":[\"" + t.arguments.get(0) + "\",\"--sg-tag=" + t.tag + "\",\"a b\",\"\",\"--x=1\"]}");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "NODE_OPTIONS",
                "node_options",
                "NODE_PATH",
                "OPENSSL_CONF",
                "LD_PRELOAD",
                "LD_LIBRARY_PATH",
                "GLIBC_TUNABLES",
                "MALLOC_ARENA_MAX",
                "GCONV_PATH",
                "LOCPATH",
                "HOSTALIASES",
                "RES_OPTIONS",
                "LOCALDOMAIN",
                "UV_THREADPOOL_SIZE",
                "SSL_CERT_FILE",
                "http_proxy",
                "HTTPS_PROXY",
                "NO_PROXY",
                "DYLD_INSERT_LIBRARIES",
                "npm_config_registry"
            })
    void row27_injectionVariablesAreRefusedByTheHelperBeforeSpawn(String key) throws Exception {
        TestRun t = TestRun.of(runs, "hang.mjs");
        t.environment.put(key, "--require " + TestRun.fixture("evil-preload.cjs"));
        HelperRun.Report r = t.run(core);

        assertNothingStarted(r, Outcome.SETUP_FAILED, "SUPERVISOR_REQUEST_REJECTED:");
        assertThat(r.result().detail()).contains("denied prefix");
        assertThat(t.file("marker-preload")).doesNotExist();
        assertThat(t.file("hang.ready")).doesNotExist();
    }

    @ParameterizedTest
    @ValueSource(strings = {"NODE", "MY_NODE_OPTIONS", "PROXY", "SKILL_LD_X", "LANGUAGE"})
    void lookAlikesThatLoadNothingAreAllowed(String key) throws Exception {
        TestRun t = TestRun.of(runs, "ok.mjs");
        t.environment.put(key, "1");
        assertThat(t.run(core).result().outcome()).isEqualTo(Outcome.EXITED);
    }

    @Test
    void row28_pinnedNodeIsHashedInFullOnceThenVerifiedByIdentity() throws Exception {
        core.identityCache().clear();
        TestRun first = TestRun.of(runs, "ok.mjs");
        first.digest = Optional.of(nodeDigest);
        HelperRun.Report r1 = first.run(core);
        TestRun second = TestRun.of(runs, "ok.mjs");
        second.digest = Optional.of(nodeDigest);
        HelperRun.Report r2 = second.run(core);

        assertThat(r1.result().outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r1.spawned().orElseThrow().verification()).isEqualTo(Wire.VERIFY_FULL);
        assertThat(r2.result().outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r2.spawned().orElseThrow().verification()).isEqualTo(Wire.VERIFY_IDENTITY);
    }

    @Test
    void row28_aModifiedBinaryIsRefusedBeforeSpawn() throws Exception {
        Path copy = copyOfTrue("true-modified");
        byte[] bytes = Files.readAllBytes(copy);
        bytes[bytes.length / 2] ^= (byte) 0xFF;
        Files.write(copy, bytes, StandardOpenOption.TRUNCATE_EXISTING);
        TestRun t = runOf(copy);
        t.digest = Optional.of(trueDigest);
        HelperRun.Report r = t.run(core);

        assertNothingStarted(r, Outcome.SETUP_FAILED, "RUNTIME_MISMATCH:");
    }

    @Test
    void row28_aSymlinkSwappedToAnotherBinaryIsRefused() throws Exception {
        Path link = bins.resolve("true-link");
        Files.createSymbolicLink(link, Path.of("/bin/false"));
        TestRun t = runOf(link);
        t.digest = Optional.of(trueDigest);
        HelperRun.Report r = t.run(core);

        assertNothingStarted(r, Outcome.SETUP_FAILED, "RUNTIME_MISMATCH:");
    }

    @Test
    void row28_aChangeAfterAFullHashForcesAnotherFullHash() throws Exception {
        Path copy = copyOfTrue("true-changing");
        TestRun first = runOf(copy);
        first.digest = Optional.of(trueDigest);
        HelperRun.Report r1 = first.run(core);
        assertThat(r1.result().outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r1.spawned().orElseThrow().verification()).isEqualTo(Wire.VERIFY_FULL);

        // Same bytes, mtime put back: only the status-change time moves, and that is enough.
        FileTime mtime = Files.getLastModifiedTime(copy);
        Files.setLastModifiedTime(copy, mtime);
        TestRun second = runOf(copy);
        second.digest = Optional.of(trueDigest);
        HelperRun.Report r2 = second.run(core);
        assertThat(r2.result().outcome()).isEqualTo(Outcome.EXITED);
        assertThat(r2.spawned().orElseThrow().verification()).isEqualTo(Wire.VERIFY_FULL);

        // Different bytes of the same size: the cached identity no longer matches, the hash fails.
        byte[] bytes = Files.readAllBytes(copy);
        bytes[bytes.length - 1] ^= 0x01;
        Files.write(copy, bytes);
        Files.setLastModifiedTime(copy, mtime);
        TestRun third = runOf(copy);
        third.digest = Optional.of(trueDigest);
        assertNothingStarted(third.run(core), Outcome.SETUP_FAILED, "RUNTIME_MISMATCH:");
    }

    @Test
    void row29_missingExecutableIsSpawnFailedWithEnoent() throws Exception {
        TestRun t = runOf(bins.resolve("does-not-exist"));
        HelperRun.Report r = t.run(core);
        assertNothingStarted(r, Outcome.SPAWN_FAILED, "EXEC_SPAWN_FAILED:");
        assertThat(r.result().detail()).endsWith("(ENOENT)");
    }

    @Test
    void row29_nonExecutableFileIsSpawnFailedWithEacces() throws Exception {
        Path copy = copyOfTrue("true-not-executable");
        Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rw-r--r--"));
        HelperRun.Report r = runOf(copy).run(core);
        assertNothingStarted(r, Outcome.SPAWN_FAILED, "EXEC_SPAWN_FAILED:");
        assertThat(r.result().detail()).endsWith("(EACCES)");
        assertThat(r.helperResult().orElseThrow().setupCode()).isEqualTo(Wire.SC_CHILD_EXEC);
    }

    @Test
    void row29_directoryAsExecutableIsRefused() throws Exception {
        HelperRun.Report r = runOf(bins).run(core);
        assertNothingStarted(r, Outcome.SPAWN_FAILED, "EXEC_SPAWN_FAILED:");
        assertThat(r.helperResult().orElseThrow().setupCode()).isEqualTo(Wire.SC_EXEC_NOT_REGULAR);
    }

    @Test
    void row29_missingWorkingDirectoryIsSpawnFailed() throws Exception {
        TestRun t = TestRun.of(runs, "ok.mjs");
        Files.delete(t.dir);
        HelperRun.Report r = t.run(core);
        assertNothingStarted(r, Outcome.SPAWN_FAILED, "EXEC_SPAWN_FAILED:");
        assertThat(r.helperResult().orElseThrow().setupCode()).isEqualTo(Wire.SC_CHILD_CHDIR);
        assertThat(r.result().detail()).endsWith("(ENOENT)");
    }

    // ---------------------------------------------------------------------------------------------
    // Row 38: requests the Java side would never send. The helper refuses them on its own.

    static RequestEncoder.Raw valid() {
        return new RequestEncoder.Raw(
                Wire.POLICY_PREFER,
                Wire.VERIFY_NONE,
                new byte[32],
                FileIdentity.NONE,
                5000,
                100,
                5000,
                1024,
                1024,
                0,
                0,
                0,
                0,
                "/bin/true",
                "/",
                Optional.empty(),
                List.of(),
                List.of("PATH=/usr/bin"),
                new byte[0]);
    }

    static RequestEncoder.Raw with(RequestEncoder.Raw v, String field, Object value) {
        long wall = v.wallMs(), grace = v.graceMs(), kill = v.killMs(), out = v.stdoutMax(), err = v.stderrMax();
        String exe = v.executable(), cwd = v.workingDirectory();
        byte[] stdin = v.stdin();
        List<String> args = v.arguments();
        int policy = v.policy(), verify = v.verifyMode();
        long nofile = v.openFiles();
        switch (field) {
            case "wall":
                wall = (Long) value;
                break;
            case "grace":
                grace = (Long) value;
                break;
            case "kill":
                kill = (Long) value;
                break;
            case "stdout":
                out = (Long) value;
                break;
            case "stderr":
                err = (Long) value;
                break;
            case "exe":
                exe = (String) value;
                break;
            case "cwd":
                cwd = (String) value;
                break;
            case "stdin":
                stdin = (byte[]) value;
                break;
            case "args":
                @SuppressWarnings("unchecked")
                List<String> a = (List<String>) value;
                args = a;
                break;
            case "policy":
                policy = (Integer) value;
                break;
            case "verify":
                verify = (Integer) value;
                break;
            case "nofile":
                nofile = (Long) value;
                break;
            default:
                throw new IllegalArgumentException(field);
        }
        return new RequestEncoder.Raw(
                policy,
                verify,
                v.digest(),
                v.identity(),
                wall,
                grace,
                kill,
                out,
                err,
                v.cpuSeconds(),
                v.dataBytes(),
                v.fileSizeBytes(),
                nofile,
                exe,
                cwd,
                v.workingDirectoryIdentity(),
                args,
                v.environment(),
                stdin);
    }

    static void assertRefused(byte[] request, int setupCode) throws Exception {
        RawHelper.Exchange x = RawHelper.exchange(helper, request);
        assertThat(x.endVerified()).isTrue();
        assertThat(x.exit()).isZero();
        assertThat(x.hello().layer()).isEqualTo(Wire.LAYER_NONE);
        assertThat(x.spawned()).isFalse();
        Frames.Result r = x.result();
        assertThat(r.outcome()).isEqualTo(Wire.OUT_SETUP_FAILED);
        assertThat(r.proof()).isEqualTo(Wire.PROOF_NOTHING_STARTED);
        assertThat(r.setupCode()).isEqualTo(setupCode);
    }

    @Test
    void row38_theValidBaseRequestRuns() throws Exception {
        RawHelper.Exchange x = RawHelper.exchange(helper, RequestEncoder.encodeRaw(valid()));
        assertThat(x.endVerified()).isTrue();
        assertThat(x.spawned()).isTrue();
        assertThat(x.result().outcome()).isEqualTo(Wire.OUT_EXITED);
        assertThat(x.result().proof()).isEqualTo(Wire.PROOF_ECHILD);
    }

    @Test
    void row38_relativePathsAreRefused() throws Exception {
        assertRefused(RequestEncoder.encodeRaw(with(valid(), "exe", "bin/true")), Wire.SC_PATH_NOT_ABSOLUTE);
        assertRefused(RequestEncoder.encodeRaw(with(valid(), "cwd", "tmp")), Wire.SC_PATH_NOT_ABSOLUTE);
        assertRefused(RequestEncoder.encodeRaw(with(valid(), "exe", "")), Wire.SC_PATH_NOT_ABSOLUTE);
    }

    @Test
    void row38_boundsOutOfRangeAreRefused() throws Exception {
        RequestEncoder.Raw v = valid();
        assertRefused(RequestEncoder.encodeRaw(with(v, "wall", 0L)), Wire.SC_REQUEST_BOUNDS);
        assertRefused(RequestEncoder.encodeRaw(with(v, "wall", 300_001L)), Wire.SC_REQUEST_BOUNDS);
        assertRefused(RequestEncoder.encodeRaw(with(v, "grace", 30_001L)), Wire.SC_REQUEST_BOUNDS);
        assertRefused(RequestEncoder.encodeRaw(with(v, "kill", 0L)), Wire.SC_REQUEST_BOUNDS);
        assertRefused(RequestEncoder.encodeRaw(with(v, "kill", 60_001L)), Wire.SC_REQUEST_BOUNDS);
        assertRefused(RequestEncoder.encodeRaw(with(v, "stdout", 0L)), Wire.SC_REQUEST_BOUNDS);
        assertRefused(RequestEncoder.encodeRaw(with(v, "stdout", 262_145L)), Wire.SC_REQUEST_BOUNDS);
        assertRefused(RequestEncoder.encodeRaw(with(v, "stderr", 16_385L)), Wire.SC_REQUEST_BOUNDS);
        assertRefused(RequestEncoder.encodeRaw(with(v, "stdin", new byte[1024 * 1024 + 1])), Wire.SC_REQUEST_BOUNDS);
        assertRefused(RequestEncoder.encodeRaw(with(v, "nofile", 1_048_577L)), Wire.SC_REQUEST_BOUNDS);
        List<String> tooMany = new ArrayList<>();
        for (int i = 0; i <= Wire.REQ_MAX_ARGS; i++) {
            tooMany.add("a");
        }
        assertRefused(RequestEncoder.encodeRaw(with(v, "args", tooMany)), Wire.SC_REQUEST_BOUNDS);
    }

    @Test
    void row38_malformedRequestsAreRefused() throws Exception {
        byte[] good = RequestEncoder.encodeRaw(valid());
        byte[] badMagic = good.clone();
        badMagic[0] = 'X';
        assertRefused(badMagic, Wire.SC_REQUEST_MALFORMED);
        byte[] badVersion = good.clone();
        badVersion[4] = 1; // the previous protocol: no working-directory identity, no seal
        assertRefused(badVersion, Wire.SC_REQUEST_MALFORMED);
        byte[] cwdMode = good.clone();
        cwdMode[11] = 2;
        assertRefused(cwdMode, Wire.SC_REQUEST_MALFORMED);
        byte[] reserved = good.clone();
        reserved[12] = 1;
        assertRefused(reserved, Wire.SC_REQUEST_MALFORMED);
        assertRefused(RequestEncoder.encodeRaw(with(valid(), "policy", 3)), Wire.SC_REQUEST_MALFORMED);
        assertRefused(RequestEncoder.encodeRaw(with(valid(), "verify", 3)), Wire.SC_REQUEST_MALFORMED);
        assertRefused(RequestEncoder.encodeRaw(with(valid(), "args", List.of("a\0b"))), Wire.SC_REQUEST_MALFORMED);
        // Body length says one byte more than is there: the helper sees EOF mid-request.
        byte[] trailing = java.util.Arrays.copyOf(good, good.length + 1);
        trailing[8]++;
        assertRefused(trailing, Wire.SC_REQUEST_MALFORMED);
        byte[] huge = good.clone();
        huge[5] = 0x7f;
        assertRefused(huge, Wire.SC_REQUEST_BOUNDS);
        assertRefused(java.util.Arrays.copyOf(good, 5), Wire.SC_REQUEST_MALFORMED);
    }

    @Test
    void row38_malformedEnvironmentIsRefused() throws Exception {
        assertRefused(RequestEncoder.encodeRaw(valid().withEnvironment(List.of("NOEQUALS"))), Wire.SC_ENV_MALFORMED);
        assertRefused(RequestEncoder.encodeRaw(valid().withEnvironment(List.of("=x"))), Wire.SC_ENV_MALFORMED);
        assertRefused(
                RequestEncoder.encodeRaw(valid().withEnvironment(List.of("A=1", "B=2", "A=3"))), Wire.SC_ENV_MALFORMED);
        assertRefused(
                RequestEncoder.encodeRaw(valid().withEnvironment(List.of("A=1", "LD_AUDIT=x"))), Wire.SC_ENV_DENIED);
    }

    @Test
    void row38_seededMutationsNeverCrashTheHelperNorSkipTheEndFrame() throws Exception {
        Path exe = copyOfTrue("true-mutation");
        RequestEncoder.Raw base = with(with(valid(), "exe", exe.toString()), "cwd", bins.toString());
        byte[] good = RequestEncoder.encodeRaw(base);
        Random random = new Random(20261130L);
        int runs = 0;
        for (int i = 0; i < 150; i++) {
            byte[] m = good.clone();
            int flips = 1 + random.nextInt(3);
            for (int f = 0; f < flips; f++) {
                m[random.nextInt(m.length)] = (byte) random.nextInt(256);
            }
            if (random.nextInt(5) == 0) {
                m = java.util.Arrays.copyOf(m, random.nextInt(m.length));
            }
            RawHelper.Exchange x = RawHelper.exchange(helper, m);
            assertThat(x.exit()).as("mutation %d", i).isIn(0, 2);
            assertThat(x.endVerified()).as("mutation %d", i).isTrue();
            assertThat(x.frames().get(0).type()).isEqualTo(Wire.FRAME_HELLO);
            if (x.spawned()) {
                runs++;
            }
        }
        // Most mutations are refused; a few land in harmless fields and run /bin/true.
        assertThat(runs).isLessThan(150);
    }
}
