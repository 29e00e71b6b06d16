package dev.skillgate.runner.linux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.RunId;
import dev.skillgate.runner.LaunchSpec;
import dev.skillgate.runner.ResourceCeilings;
import dev.skillgate.runner.SupervisionListener;
import dev.skillgate.runner.SupervisionResult.Outcome;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Attack 1 of issue 15, for real: a same-uid process ({@code attack/swap-attacker.c}) watches the
 * helper's directory with inotify and swaps the helper at a random moment of each launch - on the
 * K-th open, read or close of its name (K = 0: before the launch), after a random delay - by rename,
 * by symbolic link, by rewriting the inode in place, or by the re-exec dance (rewrite, exec away, put
 * the genuine bytes back, exec the genuine file again). The swapped-in impostor records every time
 * it runs and then becomes a genuine helper, so if it were believed the run would look perfect.
 *
 * <p>Shown for every mode: every launch either ran the verified helper (and then the impostor never
 * ran in it) or was refused as {@code SUPERVISOR_TAMPERED} with nothing started; a rename or link
 * swap never lets the impostor run at all; the attacker acted in nearly every launch. {@value
 * #DEFAULT_ITERATIONS} launches per mode unless {@code -Dskillgate.attack.iterations=N}.
 */
@EnabledOnOs(OS.LINUX)
@ExtendWith(Tags.class)
class HelperSwapAttackTest {
    static final int DEFAULT_ITERATIONS = 200;
    static final int ITERATIONS = Integer.getInteger("skillgate.attack.iterations", DEFAULT_ITERATIONS);

    @TempDir
    static Path data;

    @TempDir
    static Path work;

    static SupervisorCore core;
    static Path helper;
    static Path genuineCopy;
    static Path impostor;
    static Path danceImpostor;
    static Path dance;
    static Path attackerBin;
    static Path marker;
    static Path flag;

    @BeforeAll
    static void prepare() throws Exception {
        // The helper in a host-named helper directory, the layout the CLI's temporary runs share
        // (decision 0891): every other helper test uses <data>/supervisor, which goes through the same
        // installer and the same HelperImage start.
        core = SupervisorCore.prepareIn(
                data.resolve("shared-helpers"),
                Wire.POLICY_PREFER,
                Wire.POLICY_PREFER,
                java.util.Optional.empty(),
                HelperLauncher.direct(),
                false,
                Long.MAX_VALUE);
        assertThat(core.capabilities().available()).isTrue();
        helper = core.installed().orElseThrow().binary();
        genuineCopy = work.resolve("genuine-copy");
        Files.copy(helper, genuineCopy, StandardCopyOption.COPY_ATTRIBUTES);
        marker = work.resolve("impostor-ran");
        flag = work.resolve("dance-flag");
        attackerBin = compile("swap-attacker.c", "swap-attacker");
        impostor = compile(
                "impostor.c",
                "impostor",
                AttackFixtures.define("MARKER", marker),
                AttackFixtures.define("NEXT", genuineCopy));
        dance = compile(
                "dance.c", "dance", AttackFixtures.define("FLAG", flag), AttackFixtures.define("HELPER", helper));
        danceImpostor = compile(
                "impostor.c",
                "impostor-dance",
                AttackFixtures.define("MARKER", marker),
                AttackFixtures.define("NEXT", dance));
    }

    @AfterAll
    static void noImpostorStillRuns() throws IOException {
        // Whatever the impostor became, nothing started from these files may outlive the test.
        Set<String> foreign = new HashSet<>();
        for (Path f : List.of(impostor, danceImpostor, dance, genuineCopy)) {
            if (f != null) {
                foreign.add(Files.getAttribute(f, "unix:dev") + ":" + Files.getAttribute(f, "unix:ino"));
            }
        }
        List<String> running = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path p : ds) {
                try {
                    Map<String, Object> exe = Files.readAttributes(p.resolve("exe"), "unix:dev,ino");
                    if (foreign.contains(exe.get("dev") + ":" + exe.get("ino"))) {
                        running.add(p.getFileName().toString());
                    }
                } catch (IOException | SecurityException e) {
                    // gone, a kernel thread, or not ours to inspect
                }
            }
        }
        assertThat(running)
                .as("processes still running an impostor or its stages")
                .isEmpty();
    }

    static Path compile(String source, String name, String... defines) throws Exception {
        return AttackFixtures.compile(work, source, name, defines);
    }

    /** The attacker process and its line protocol. */
    static final class Attacker implements AutoCloseable {
        final Process process;
        final OutputStream in;
        final BufferedReader out;

        Attacker(Path impostorBin) throws IOException {
            process = new ProcessBuilder(
                            attackerBin.toString(),
                            helper.toString(),
                            impostorBin.toString(),
                            genuineCopy.toString(),
                            flag.toString(),
                            marker.toString())
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            in = process.getOutputStream();
            out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII));
        }

        void send(String command) throws IOException {
            in.write((command + "\n").getBytes(StandardCharsets.US_ASCII));
            in.flush();
        }

        /** Lines up to and including the first one starting with {@code prefix}. */
        List<String> until(String prefix) throws IOException {
            List<String> lines = new ArrayList<>();
            while (true) {
                String line = out.readLine();
                if (line == null) {
                    throw new AssertionError("the attacker died; lines so far " + lines);
                }
                lines.add(line);
                if (line.startsWith(prefix)) {
                    return lines;
                }
            }
        }

        @Override
        public void close() throws Exception {
            send("quit");
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    static LaunchSpec trivialLaunch() {
        return new LaunchSpec(
                RunId.random(),
                Path.of("/bin/true"),
                Optional.empty(),
                List.of(),
                work,
                Map.of("PATH", "/usr/bin:/bin"),
                new byte[0],
                1024,
                1024,
                Duration.ofSeconds(10),
                Duration.ZERO,
                Duration.ofSeconds(5),
                ResourceCeilings.NONE,
                owner -> {});
    }

    @Test
    void aHostileApprovedScriptOfAnotherRunCannotGetASwappedHelperBelieved() throws Exception {
        Files.deleteIfExists(marker);
        // The hostile run is supervised itself (L1 where available): it swaps the helper of the very
        // data directory its own supervisor uses, while this test launches other runs from it.
        TestRun hostile = TestRun.of(
                work, "swap-helper.mjs", helper.toString(), impostor.toString(), genuineCopy.toString(), "4000");
        HelperRun hostileRun = hostile.launch(core, SupervisionListener.NONE);
        Map<String, Integer> outcomes = new TreeMap<>();
        Set<Long> believedHelpers = new HashSet<>();
        int launches = 0;
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (System.nanoTime() < until || launches < 20) {
            HelperRun.Report r = TestRun.await((HelperRun) core.launch(trivialLaunch(), SupervisionListener.NONE));
            launches++;
            if (r.result().outcome() == Outcome.EXITED && r.result().cleanup().proven()) {
                believedHelpers.add(r.hello().orElseThrow().pid());
                outcomes.merge("ran the verified helper", 1, Integer::sum);
            } else {
                assertThat(r.result().detail()).startsWith("SUPERVISOR_TAMPERED:");
                assertThat(r.hello()).isEmpty();
                outcomes.merge(r.result().detail(), 1, Integer::sum);
            }
        }
        HelperRun.Report h = TestRun.await(hostileRun);
        String swaps = new String(h.result().stdout(), StandardCharsets.UTF_8);
        Files.copy(genuineCopy, helper.resolveSibling(".restore"), StandardCopyOption.REPLACE_EXISTING);
        Files.move(helper.resolveSibling(".restore"), helper, StandardCopyOption.REPLACE_EXISTING);
        List<Long> impostorRuns = AttackFixtures.impostorRuns(marker);
        System.out.printf(
                "hostile script (%s, %s): %d launches meanwhile, impostor ran %d times; %s%n",
                h.result().hardening(), swaps, launches, impostorRuns.size(), outcomes);

        assertThat(h.result().outcome()).as(h.result().toString()).isEqualTo(Outcome.EXITED);
        assertThat(swaps).matches("\\{\"swaps\":[1-9][0-9]*,\"restored\":true\\}");
        assertThat(impostorRuns).as("a renamed impostor never runs").isEmpty();
        // Whatever ran meanwhile was the verified helper (possibly none: under constant swapping every
        // launch may be refused, which is the right answer).
        assertThat(impostorRuns).doesNotContainAnyElementsOf(believedHelpers);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"rename", "symlink", "inplace", "dance"})
    void aSwappedHelperIsNeverBelievedAndARenamedOneNeverRuns(String mode) throws Exception {
        Files.deleteIfExists(marker);
        Random random = new Random(20261202L + mode.hashCode());
        Map<String, Integer> outcomes = new TreeMap<>();
        Set<Long> believedHelpers = new HashSet<>();
        int fired = 0; // the attacker's trigger came and it acted (its rewrite may have been too late)
        int landed = 0; // ... and the swap or rewrite took effect on the file
        long started = System.nanoTime();
        try (Attacker attacker = new Attacker(mode.equals("dance") ? danceImpostor : impostor)) {
            for (int i = 0; i < ITERATIONS; i++) {
                int k = random.nextInt(9); // 0: before the launch; else the K-th open/read/close of the name
                int delayMicros = random.nextInt(4) == 0 ? 0 : random.nextInt(3000);
                attacker.send("arm " + mode + " " + k + " " + delayMicros);
                attacker.until("armed");
                HelperRun.Report r = TestRun.await((HelperRun) core.launch(trivialLaunch(), SupervisionListener.NONE));
                attacker.send("restore");
                List<String> lines = attacker.until("restored");
                assertThat(lines.get(lines.size() - 1))
                        .as("restored the genuine helper")
                        .isEqualTo("restored");
                String act = lines.stream()
                        .filter(l -> l.startsWith("acted"))
                        .findFirst()
                        .orElse("missed");
                if (act.startsWith("acted ok") || act.startsWith("acted late")) {
                    fired++;
                }
                if (act.startsWith("acted ok")) {
                    landed++;
                }
                String outcome;
                if (r.result().outcome() == Outcome.EXITED
                        && r.result().cleanup().proven()) {
                    outcome = "ran the verified helper";
                    believedHelpers.add(r.hello().orElseThrow().pid());
                } else if (r.result().outcome() == Outcome.SETUP_FAILED
                        && r.result().detail().startsWith("SUPERVISOR_TAMPERED:")) {
                    outcome = r.result().detail();
                    assertThat(r.result().cleanup().proof()).isEqualTo("NOTHING_STARTED");
                    assertThat(r.hello())
                            .as("a refused helper was never sent anything")
                            .isEmpty();
                } else {
                    throw new AssertionError("iteration " + i + " (" + act + ", k=" + k + "): " + r.result());
                }
                outcomes.merge(outcome + " [" + act + "]", 1, Integer::sum);
            }
        }
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        List<Long> impostorRuns = AttackFixtures.impostorRuns(marker);
        System.out.printf(
                "attack %s: %d launches in %d ms, attacker fired in %d, its swap landed in %d, impostor ran %d"
                        + " times; %s%n",
                mode, ITERATIONS, elapsedMs, fired, landed, impostorRuns.size(), outcomes);

        assertThat(impostorRuns)
                .as("no run whose result was believed had the impostor in its helper process")
                .doesNotContainAnyElementsOf(believedHelpers);
        assertThat(fired).as("the attacker raced nearly every launch").isGreaterThan(ITERATIONS * 8 / 10);
        if (mode.equals("rename") || mode.equals("symlink")) {
            assertThat(impostorRuns).as("a swapped name never runs").isEmpty();
        }
        assertThat(outcomes.keySet())
                .as("both branches were reached: swapped before the open (refused) and after it")
                .anyMatch(o -> o.startsWith("SUPERVISOR_TAMPERED"))
                .anyMatch(o -> o.startsWith("ran the verified helper"));
    }
}
