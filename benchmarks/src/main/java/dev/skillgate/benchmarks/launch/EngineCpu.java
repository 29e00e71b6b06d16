package dev.skillgate.benchmarks.launch;

import dev.skillgate.benchmarks.Machine;
import dev.skillgate.benchmarks.NodeHost;
import dev.skillgate.fixtures.NodeFixture;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * The JVM's own CPU per trusted {@code SkillGate.execute} of the one-file echo skill: after a warm-up,
 * {@code n} executes back to back, the process CPU time (user + system of this JVM only: node and the
 * supervisor helper are other processes) divided by {@code n}, then the same loop under a JDK Flight
 * Recorder recording sampling every millisecond, summarised by the top Skillgate frame and by the top
 * frame of each sample. Usage: {@code bench engine-cpu [n] [warmup] [profile|noprofile|sweep [ops]|callers k]};
 * {@code callers k} runs each block with k concurrent callers and prints the reaped children's CPU too;
 * {@code sweep} adds the concurrency sweep of {@link ConcurrencySweep} (bare spawns in the runner's
 * environment beside trusted executes, 1/2/4/8 callers) instead of the profile.
 */
public final class EngineCpu {
    private EngineCpu() {}

    /**
     * User + system time of this JVM's reaped children and theirs ({@code cutime + cstime} of
     * {@code /proc/self/stat}, in clock ticks of 10 ms): the helpers, and through them node. A helper
     * counts once it has been reaped, so a block's figure can be off by the one still running.
     */
    static long reapedChildrenTicks() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // Fields 16 and 17 of proc(5), counted from 1 with pid and comm as 1 and 2.
            return Long.parseLong(f[13]) + Long.parseLong(f[14]);
        } catch (java.io.IOException | RuntimeException e) {
            return 0;
        }
    }

    private static void inParallel(EngineVariants v, int n, int callers) throws Exception {
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(callers);
        try {
            List<java.util.concurrent.Future<Long>> all = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                all.add(pool.submit(v::trustedConcurrent));
            }
            for (java.util.concurrent.Future<Long> f : all) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 100;
        String mode = args.length > 2 ? args[2] : "profile";
        boolean profile = mode.equals("profile");
        // "callers k": the blocks are run by k threads at once (n split between them), no profile.
        int callers = mode.equals("callers") && args.length > 3 ? Integer.parseInt(args[3]) : 1;
        System.out.println("machine: " + Machine.describe());
        Path base = Files.createTempDirectory("skillgate-engine-cpu-");
        try {
            Path workspace = Files.createDirectories(base.resolve("workspace"));
            byte[] invocation = "{\"query\":\"launch\"}".getBytes(StandardCharsets.UTF_8);
            try (EngineVariants v =
                    EngineVariants.create(base, NodeHost.version(), NodeFixture.ECHO_MJS, invocation, workspace)) {
                for (int i = 0; i < warmup; i++) {
                    v.trustedConcurrent();
                }
                com.sun.management.OperatingSystemMXBean os =
                        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
                for (int block = 0; block < 3; block++) {
                    String load = Machine.loadAverage().orElse("?");
                    long cpu0 = os.getProcessCpuTime();
                    long children0 = reapedChildrenTicks();
                    long t0 = System.nanoTime();
                    if (callers == 1) {
                        for (int i = 0; i < n; i++) {
                            v.trustedConcurrent();
                        }
                    } else {
                        inParallel(v, n, callers);
                    }
                    long wall = System.nanoTime() - t0;
                    long cpu = os.getProcessCpuTime() - cpu0;
                    long children = reapedChildrenTicks() - children0;
                    System.out.printf(
                            Locale.ROOT,
                            "block %d: %d executes by %d callers, JVM CPU %.3f ms per execute, reaped children (helper + node)"
                                    + " %.2f ms per execute, wall %.2f ms per execute; load %s%n",
                            block,
                            n,
                            callers,
                            cpu / 1e6 / n,
                            children * 10.0 / n,
                            wall / 1e6 / n,
                            load);
                }
                if (profile) {
                    profile(v, n, base.resolve("engine.jfr"));
                }
                if (mode.equals("sweep")) {
                    // Bare spawns of the same script in the runner's environment beside trusted executes.
                    Map<String, String> env = dev.skillgate.runner.internal.ChildEnvironment.forRun(
                            Files.createDirectories(base.resolve("baseline-home")),
                            Files.createDirectories(base.resolve("baseline-tmp")));
                    Path script = NodeFixture.ECHO_MJS.writeTo(Files.createDirectories(base.resolve("bare")));
                    List<String> command = List.of(NodeHost.NODE.toString(), script.toString());
                    ConcurrencySweep.run(
                            () -> LaunchOverhead.bare(command, env, workspace, invocation),
                            v::trustedConcurrent,
                            args.length > 3 ? Integer.parseInt(args[3]) : 32,
                            "after " + n * 3 + " measured executes");
                }
            }
        } finally {
            NodeHost.deleteTree(base);
        }
    }

    private static void profile(EngineVariants v, int n, Path file) throws Exception {
        try (Recording r = new Recording()) {
            r.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(1)).withStackTrace();
            r.enable("jdk.ObjectAllocationSample").withStackTrace();
            r.start();
            for (int i = 0; i < n; i++) {
                v.trustedConcurrent();
            }
            r.stop();
            r.dump(file);
        }
        if (System.getProperty("skillgate.bench.keepJfr") != null) {
            Files.copy(
                    file,
                    Path.of(System.getProperty("skillgate.bench.keepJfr")),
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        Map<String, Integer> top = new HashMap<>();
        Map<String, Integer> sg = new HashMap<>();
        Map<String, Integer> inclusive = new HashMap<>();
        int total = 0;
        Map<String, Long> allocated = new HashMap<>();
        long allocatedTotal = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            if (e.getEventType().getName().equals("jdk.ObjectAllocationSample")) {
                long w = e.getLong("weight");
                allocatedTotal += w;
                String site = "?";
                if (e.getStackTrace() != null) {
                    for (RecordedFrame f : e.getStackTrace().getFrames()) {
                        String t = f.getMethod().getType().getName();
                        if (t.startsWith("dev.skillgate.") && !t.startsWith("dev.skillgate.benchmarks.")) {
                            site = name(f);
                            break;
                        }
                    }
                }
                allocated.merge(site, w, Long::sum);
                continue;
            }
            if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
                continue;
            }
            String only = System.getProperty("skillgate.bench.thread");
            if (only != null) {
                jdk.jfr.consumer.RecordedThread th = e.getThread("sampledThread");
                if (th == null || th.getJavaName() == null || !th.getJavaName().startsWith(only)) {
                    continue;
                }
            }
            RecordedStackTrace st = e.getStackTrace();
            if (st == null || st.getFrames().isEmpty()) {
                continue;
            }
            total++;
            List<RecordedFrame> frames = st.getFrames();
            top.merge(name(frames.get(0)), 1, Integer::sum);
            java.util.Set<String> seen = new java.util.HashSet<>();
            boolean first = true;
            for (RecordedFrame f : frames) {
                String t = f.getMethod().getType().getName();
                if (t.startsWith("dev.skillgate.") && !t.startsWith("dev.skillgate.benchmarks.")) {
                    String nm = name(f);
                    if (first) {
                        sg.merge(nm, 1, Integer::sum);
                        first = false;
                    }
                    if (seen.add(nm)) {
                        inclusive.merge(nm, 1, Integer::sum);
                    }
                }
            }
        }
        System.out.printf(
                Locale.ROOT, "%n%d samples over %d executes (%.1f per execute)%n", total, n, total / (double) n);
        print("top frame", top, total, 40);
        print("first Skillgate frame", sg, total, 40);
        print("inclusive Skillgate frame", inclusive, total, 60);
        System.out.printf(
                Locale.ROOT, "%nallocated (sampled weight): %.2f MiB per execute%n", allocatedTotal / 1048576.0 / n);
        System.out.println("| allocating Skillgate frame | KiB per execute |");
        System.out.println("|---|---:|");
        List<Map.Entry<String, Long>> al = new ArrayList<>(allocated.entrySet());
        al.sort(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()));
        for (Map.Entry<String, Long> e : al.subList(0, Math.min(25, al.size()))) {
            System.out.printf(Locale.ROOT, "| %s | %.1f |%n", e.getKey(), e.getValue() / 1024.0 / n);
        }
    }

    private static void print(String what, Map<String, Integer> m, int total, int limit) {
        System.out.println();
        System.out.println("| " + what + " | samples | share |");
        System.out.println("|---|---:|---:|");
        List<Map.Entry<String, Integer>> l = new ArrayList<>(m.entrySet());
        l.sort(Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder()));
        for (Map.Entry<String, Integer> e : l.subList(0, Math.min(limit, l.size()))) {
            System.out.printf(
                    Locale.ROOT, "| %s | %d | %.1f%% |%n", e.getKey(), e.getValue(), 100.0 * e.getValue() / total);
        }
    }

    private static String name(RecordedFrame f) {
        String t = f.getMethod().getType().getName();
        return t.substring(t.lastIndexOf('.') + 1) + "." + f.getMethod().getName();
    }
}
