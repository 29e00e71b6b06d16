package dev.skillgate.runner.linux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.runner.SupervisionListener;
import dev.skillgate.runner.SupervisionResult;
import dev.skillgate.runner.SupervisionResult.Outcome;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The 1,000-run soak (profile {@code soak}): mixed adversarial fixtures, three at a time. After every
 * run its tagged processes are scanned for in {@code /proc} and its working directory (standing in
 * for the runner's staging directory) is removed only if cleanup was proven; at the end a scan for
 * the soak's own tag must find nothing and no run directory may be left.
 */
@EnabledOnOs(OS.LINUX)
@EnabledIfSystemProperty(named = "skillgate.soak", matches = "true")
class SupervisorSoakTest {
    static final int RUNS = Integer.getInteger("skillgate.soak.runs", 1000);
    static final int PARALLEL = 3;

    @TempDir
    Path data;

    @TempDir
    Path root;

    record Kind(String name, String fixture, List<String> args, Consumer<TestRun> tune, boolean cancelWhenReady) {}

    static final List<Kind> KINDS = List.of(
            new Kind("ok", "ok.mjs", List.of(), t -> {}, false),
            new Kind("double-fork-marker", "detach.mjs", List.of("main", "marker"), t -> {}, false),
            new Kind("double-fork-spin", "detach.mjs", List.of("main", "spin"), t -> {}, false),
            new Kind("outlive-same-group", "outlive-same-group.mjs", List.of(), t -> {}, false),
            new Kind("stopped-descendant", "stopped.mjs", List.of(), t -> {}, false),
            new Kind("inherit-stdout", "inherit-stdout.mjs", List.of(), t -> {}, false),
            new Kind("setsid-chain-10", "chain.mjs", List.of("10"), t -> {}, false),
            new Kind("fork-storm-30", "fork-storm.mjs", List.of("30"), t -> t.wall = Duration.ofSeconds(1), false),
            new Kind("pid-runners-4", "pid-runners.mjs", List.of("4"), t -> t.wall = Duration.ofMillis(800), false),
            new Kind("kill-own-group", "kill-group.mjs", List.of(), t -> {}, false),
            new Kind("uncaught-exception", "exit.mjs", List.of("throw"), t -> {}, false),
            new Kind("stdout-flood", "flood.mjs", List.of("stdout"), t -> {}, false),
            new Kind("stderr-flood", "flood.mjs", List.of("stderr"), t -> {}, false),
            new Kind(
                    "ignores-sigterm",
                    "ignore-term.mjs",
                    List.of(),
                    t -> {
                        t.wall = Duration.ofMillis(500);
                        t.grace = Duration.ofMillis(300);
                    },
                    false),
            new Kind("cancel-with-detached", "hang.mjs", List.of("main", "detach"), t -> {}, true),
            new Kind("two-json-values", "bytes.mjs", List.of("two"), t -> {}, false),
            new Kind("busy-workers", "workers.mjs", List.of(), t -> {}, false),
            new Kind("closed-stdio", "close-stdio.mjs", List.of(), t -> t.wall = Duration.ofMillis(500), false));

    @Test
    void thousandMixedAdversarialRunsLeaveNothingBehind() throws Exception {
        SupervisorCore core = SupervisorCore.prepare(data, Wire.POLICY_PREFER, HelperLauncher.direct());
        String soakTag = "soak-" + UUID.randomUUID();
        Path runs = Files.createDirectory(root.resolve(soakTag));
        Map<Outcome, AtomicInteger> outcomes = new EnumMap<>(Outcome.class);
        for (Outcome o : Outcome.values()) {
            outcomes.put(o, new AtomicInteger());
        }
        AtomicInteger proven = new AtomicInteger();
        AtomicInteger unproven = new AtomicInteger();
        AtomicInteger detached = new AtomicInteger();
        AtomicInteger survivorsAfterRun = new AtomicInteger();
        AtomicLong descendantsKilled = new AtomicLong();
        AtomicLong descendantsSeen = new AtomicLong();
        AtomicInteger next = new AtomicInteger();
        List<String> problems = java.util.Collections.synchronizedList(new ArrayList<>());

        long start = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(PARALLEL);
        List<Future<?>> workers = new ArrayList<>();
        for (int w = 0; w < PARALLEL; w++) {
            workers.add(pool.submit(() -> {
                for (int i = next.getAndIncrement(); i < RUNS; i = next.getAndIncrement()) {
                    Kind kind = KINDS.get(i % KINDS.size());
                    try {
                        TestRun t = TestRun.of(runs, kind.fixture(), kind.args().toArray(String[]::new));
                        t.environment.put("SKILLGATE_SOAK", soakTag);
                        kind.tune().accept(t);
                        HelperRun run = t.launch(core, SupervisionListener.NONE);
                        if (kind.cancelWhenReady()) {
                            t.awaitFile("hang.ready");
                            run.cancel();
                        }
                        HelperRun.Report r = TestRun.await(run);
                        SupervisionResult res = r.result();
                        outcomes.get(res.outcome()).incrementAndGet();
                        descendantsSeen.addAndGet(res.cleanup().descendantsSeen());
                        r.helperResult().ifPresent(h -> descendantsKilled.addAndGet(h.descendantsKilled()));
                        if (res.cleanup().detachedSeen()) {
                            detached.incrementAndGet();
                        }
                        List<Long> left = ProcScan.survivors(t.tag);
                        if (!left.isEmpty()) {
                            survivorsAfterRun.addAndGet(left.size());
                            problems.add(kind.name() + " left " + left);
                            ProcScan.killAll(t.tag);
                        }
                        if (res.cleanup().proven()) {
                            proven.incrementAndGet();
                            deleteTree(t.dir); // the staging stand-in goes only after proof
                        } else {
                            unproven.incrementAndGet();
                            problems.add(kind.name() + " unproven: " + res.detail());
                        }
                        Files.deleteIfExists(runs.resolve("owner-" + t.tag + ".record"));
                    } catch (Exception | AssertionError e) {
                        problems.add(kind.name() + " threw " + e);
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : workers) {
            f.get(2, TimeUnit.HOURS);
        }
        pool.shutdown();
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;

        ProcScan.sleep(2500); // past the detach fixtures' marker delay
        List<Long> finalSurvivors = ProcScan.survivors(soakTag);
        long leftoverDirs;
        try (Stream<Path> s = Files.list(runs)) {
            leftoverDirs = s.filter(Files::isDirectory).count();
        }
        StringBuilder report = new StringBuilder();
        report.append("soak: ").append(RUNS).append(" runs, ").append(PARALLEL).append(" in parallel, ");
        report.append(elapsedMs).append(" ms\n");
        report.append("outcomes: ");
        outcomes.forEach((o, n) -> {
            if (n.get() > 0) {
                report.append(o).append('=').append(n.get()).append(' ');
            }
        });
        report.append("\ncleanup proven: ")
                .append(proven.get())
                .append(", unproven: ")
                .append(unproven.get());
        report.append(", detached seen: ").append(detached.get());
        report.append("\ndescendants seen: ").append(descendantsSeen.get());
        report.append(", descendants killed by the sweep: ").append(descendantsKilled.get());
        report.append("\nsurvivors found after individual runs: ").append(survivorsAfterRun.get());
        report.append("\nsurvivors at the end (/proc scan for ")
                .append(soakTag)
                .append("): ")
                .append(finalSurvivors.size());
        report.append("\nleftover run directories: ").append(leftoverDirs).append('\n');
        System.out.print(report);
        Files.writeString(Path.of("target", "soak-report.txt"), report, StandardCharsets.UTF_8);

        assertThat(problems).isEmpty();
        assertThat(finalSurvivors).isEmpty();
        assertThat(leftoverDirs).isZero();
        assertThat(proven.get()).isEqualTo(RUNS);
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
