package dev.skillgate.runner.linux.internal;

import dev.skillgate.fixtures.TestNodeBinary;
import dev.skillgate.model.RunId;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.runner.DirectoryIdentity;
import dev.skillgate.runner.LaunchConfinement;
import dev.skillgate.runner.LaunchSpec;
import dev.skillgate.runner.OwnershipRecorder;
import dev.skillgate.runner.ResourceCeilings;
import dev.skillgate.runner.SupervisedRun;
import dev.skillgate.runner.SupervisionListener;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One tagged test run: a fresh working directory {@code run-<tag>}, the node fixture with
 * {@code --sg-tag=<tag>} on its command line and {@code SKILLGATE_TEST_TAG=<tag>} in its environment,
 * so {@link ProcScan} finds every process of the run. Mutable builder fields with test defaults.
 */
final class TestRun {
    static final Path NODE = TestNodeBinary.require();

    final String tag = UUID.randomUUID().toString();
    final Path dir;
    Path executable = NODE;
    Optional<Sha256Digest> digest = Optional.empty();
    final List<String> arguments = new ArrayList<>();
    final Map<String, String> environment = new LinkedHashMap<>();
    byte[] stdin = "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    int stdoutLimit = 64 * 1024;
    int stderrLimit = 16 * 1024;
    Duration wall = Duration.ofSeconds(10);
    Duration grace = Duration.ofMillis(500);
    Duration killDeadline = Duration.ofSeconds(5);
    ResourceCeilings ceilings = ResourceCeilings.NONE;
    Optional<DirectoryIdentity> dirIdentity = Optional.empty();
    OwnershipRecorder recorder;
    FsyncRecorder fsyncRecorder;
    LaunchConfinement confinement = LaunchConfinement.UNRESTRICTED;

    private TestRun(Path parent, String fixture, String... args) throws IOException {
        Tags.register(tag);
        this.dir = Files.createDirectory(parent.resolve("run-" + tag));
        arguments.add(fixture(fixture).toString());
        arguments.add("--sg-tag=" + tag);
        arguments.addAll(List.of(args));
        environment.put("PATH", "/usr/bin:/bin");
        environment.put("HOME", dir.toString());
        environment.put("LANG", "C.UTF-8");
        environment.put("SKILLGATE_TEST_TAG", tag);
        fsyncRecorder = new FsyncRecorder(parent.resolve("owner-" + tag + ".record"), false);
        recorder = fsyncRecorder;
    }

    static TestRun of(Path parent, String fixture, String... args) throws IOException {
        return new TestRun(parent, fixture, args);
    }

    static Path fixture(String name) {
        try {
            return Path.of(TestRun.class
                    .getResource("/dev/skillgate/runner/linux/fixtures/" + name)
                    .toURI());
        } catch (URISyntaxException | NullPointerException e) {
            throw new IllegalStateException("missing fixture " + name, e);
        }
    }

    LaunchSpec spec() {
        return new LaunchSpec(
                RunId.of("run-" + tag),
                executable,
                digest,
                arguments,
                dir,
                dirIdentity,
                environment,
                stdin,
                stdoutLimit,
                stderrLimit,
                wall,
                grace,
                killDeadline,
                ceilings,
                recorder,
                confinement);
    }

    HelperRun launch(SupervisorCore core, SupervisionListener listener) {
        SupervisedRun run = core.launch(spec(), listener);
        return (HelperRun) run;
    }

    HelperRun.Report run(SupervisorCore core) {
        return await(launch(core, SupervisionListener.NONE));
    }

    static HelperRun.Report await(HelperRun run) {
        try {
            return run.report().toCompletableFuture().get(120, TimeUnit.SECONDS);
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new AssertionError("the run did not settle", e);
        }
    }

    Path file(String name) {
        return dir.resolve(name);
    }

    void awaitFile(String name) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!Files.exists(file(name))) {
            if (System.nanoTime() > until) {
                throw new AssertionError("fixture never wrote " + name);
            }
            ProcScan.sleep(10);
        }
    }
}
