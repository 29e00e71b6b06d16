package dev.skillgate.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.skillgate.inspect.internal.CaptureHashExecutor;
import dev.skillgate.inspect.internal.RevisionPipeline;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.PortablePath;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Captures racing a writer (SPEC §7 acceptance): a thread rewrites declared files in place and by
 * atomic replacement, swaps a file for a symbolic link, or swaps the skill root for another
 * directory, while the test captures at least 200 times. Every file's content names its generation;
 * a capture is either {@code SOURCE_CHANGED} (or, for the root swap, a root that was momentarily
 * absent before anything was read) or a capture whose files all come from one generation. A mixed
 * capture reported as clean fails the test. The files are large enough that the revision is hashed
 * by a worker next to the reads and the verification pass (decision 0300).
 */
class CaptureConcurrencyTest {
    private static final int ITERATIONS = 250;
    /**
     * Per file. Large enough that a capture hands its revision hash to a worker after {@code SKILL.md}
     * and {@code a.txt} ({@link RevisionPipeline#OFFLOAD_THRESHOLD_BYTES}), so the races also run
     * against a hash in progress.
     */
    private static final int PADDING = (int) Math.max(8 * 1024, RevisionPipeline.OFFLOAD_THRESHOLD_BYTES * 5 / 8);

    private static final Pattern GENERATION = Pattern.compile("gen=(\\d{8})");
    private static final String[] DECLARED = {"run.mjs", "a.txt", "lib/b.txt"};

    /** The order in which the rewriting writer updates files within one generation. */
    private static final List<String> REWRITE_ORDER = List.of("SKILL.md", "run.mjs", "a.txt", "lib/b.txt");

    @TempDir
    Path root;

    /** Fixed-size content naming generation {@code gen}. */
    private static byte[] content(String prefix, long gen) {
        String head = prefix + "gen=" + String.format("%08d", gen) + "\n";
        StringBuilder text = new StringBuilder(head);
        while (text.length() < PADDING) {
            text.append("// padding so that a read takes a while ...\n");
        }
        text.setLength(PADDING);
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] skillMd(long gen) {
        return content("---\nname: race\ndescription: Races.\n---\n", gen);
    }

    private static Path bundle(Path dir, long gen) throws IOException {
        Files.createDirectories(dir.resolve("lib"));
        Files.write(dir.resolve("SKILL.md"), skillMd(gen));
        Files.writeString(dir.resolve("execution.json"), Captures.manifest("run.mjs", DECLARED));
        for (String file : DECLARED) {
            Files.write(dir.resolve(file), content("", gen));
        }
        return dir;
    }

    private static long generation(byte[] bytes) {
        Matcher m = GENERATION.matcher(new String(bytes, StandardCharsets.UTF_8));
        if (!m.find()) {
            return -1;
        }
        return Long.parseLong(m.group(1));
    }

    /** The generations of every captured file that carries one. */
    private static Set<Long> generations(SkillArtifact artifact) {
        Set<Long> gens = new HashSet<>();
        for (Map.Entry<PortablePath, byte[]> e : artifact.copyOfContents().entrySet()) {
            if (!e.getKey().value().equals("execution.json")) {
                gens.add(generation(e.getValue()));
            }
        }
        return gens;
    }

    /**
     * Whether the captured generations form a state the writer really produced. The writer updates
     * files one at a time in {@code order}, so the states on disk are exactly: the first {@code j}
     * files at generation {@code k + 1}, the rest at {@code k}. Anything else (a later file newer than
     * an earlier one, or two generations apart, or a torn file) matches no moment on disk.
     */
    private static boolean isWriterState(SkillArtifact a, List<String> order) {
        long first = generation(a.bytes(PortablePath.of(order.get(0))).orElseThrow());
        long previous = first;
        for (String file : order) {
            byte[] bytes = a.bytes(PortablePath.of(file)).orElseThrow();
            long gen = generation(bytes);
            byte[] expected = file.equals("SKILL.md") ? skillMd(gen) : content("", gen);
            if (gen < 0 || gen > previous || first - gen > 1 || !java.util.Arrays.equals(bytes, expected)) {
                return false;
            }
            previous = gen;
        }
        return true;
    }

    private static String describe(SkillArtifact a) {
        StringBuilder out = new StringBuilder();
        a.copyOfContents()
                .forEach((path, bytes) ->
                        out.append(path).append('=').append(generation(bytes)).append(' '));
        return out.toString();
    }

    private static void overwriteInPlace(Path file, byte[] bytes) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                channel.write(buffer, buffer.position());
            }
        }
    }

    private static void replaceAtomically(Path file, byte[] bytes) throws IOException {
        Path temp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.write(temp, bytes);
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static void pause() {
        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(0, 2_000_000));
    }

    /** Runs {@code writer} in a loop on another thread while {@code body} runs; rethrows its failure. */
    private static void racing(ThrowingStep writer, Runnable body) throws Exception {
        long workerHashes = RevisionPipeline.workerHashes();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = new Thread(() -> {
            try {
                while (!stop.get()) {
                    writer.step();
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        thread.start();
        try {
            body.run();
        } finally {
            stop.set(true);
            thread.join(30_000);
        }
        if (failure.get() != null) {
            throw new AssertionError("writer failed", failure.get());
        }
        long hashedByWorker = RevisionPipeline.workerHashes() - workerHashes;
        System.out.printf("capture race: %d revisions hashed by a worker%n", hashedByWorker);
        if (CaptureHashExecutor.THREADS > 0) {
            assertThat(hashedByWorker).as("captures raced a worker's hash").isPositive();
        }
    }

    interface ThrowingStep {
        void step() throws Exception;
    }

    private record Tally(int clean, int changed, int other) {}

    @Test
    void rewritingDeclaredFilesGivesSourceChangedOrOneGeneration() throws Exception {
        Path dir = bundle(root.resolve("race"), 0);
        long[] gen = {0};
        int[] counts = new int[2];
        racing(
                () -> {
                    gen[0]++;
                    boolean inPlace = gen[0] % 2 == 0;
                    for (String file : REWRITE_ORDER) {
                        byte[] bytes = file.equals("SKILL.md") ? skillMd(gen[0]) : content("", gen[0]);
                        if (inPlace) {
                            overwriteInPlace(dir.resolve(file), bytes);
                        } else {
                            replaceAtomically(dir.resolve(file), bytes);
                        }
                    }
                    pause();
                },
                () -> {
                    for (int i = 0; i < ITERATIONS; i++) {
                        CaptureOutcome outcome = Captures.capture(dir);
                        if (outcome instanceof CaptureOutcome.Failed failed) {
                            assertThat(failed.code())
                                    .as("%s", failed.diagnostic())
                                    .isEqualTo(ErrorCode.SOURCE_CHANGED);
                            counts[1]++;
                            continue;
                        }
                        try (SkillArtifact a = outcome.artifact().orElseThrow()) {
                            assertThat(a.executionAvailable())
                                    .as("%s", a.executionProblems())
                                    .isTrue();
                            assertThat(a.files()).hasSize(5);
                            assertThat(isWriterState(a, REWRITE_ORDER))
                                    .as("a clean capture equals a state the bundle had: %s", describe(a))
                                    .isTrue();
                            counts[0]++;
                        }
                    }
                });
        report("rewrite", counts);
        assertThat(counts[0] + counts[1]).isEqualTo(ITERATIONS);
        assertThat(counts[1]).as("the race was exercised").isPositive();
    }

    /**
     * The writer rewrites in place and puts the old modification time back, so file key, size and
     * time never change: what a same-size rewrite within one coarse file-system clock tick looks
     * like. Only the verification pass's byte comparison can see these changes.
     */
    @Test
    void rewritesThatKeepTheFileIdentityAreCaughtByTheByteComparison() throws Exception {
        Path dir = bundle(root.resolve("stealth"), 0);
        long[] gen = {0};
        int[] counts = new int[2];
        racing(
                () -> {
                    gen[0]++;
                    for (String file : REWRITE_ORDER) {
                        Path path = dir.resolve(file);
                        FileTime time = Files.getLastModifiedTime(path);
                        overwriteInPlace(path, file.equals("SKILL.md") ? skillMd(gen[0]) : content("", gen[0]));
                        Files.setLastModifiedTime(path, time);
                    }
                    pause();
                },
                () -> {
                    for (int i = 0; i < ITERATIONS; i++) {
                        CaptureOutcome outcome = Captures.capture(dir);
                        if (outcome instanceof CaptureOutcome.Failed failed) {
                            assertThat(failed.code())
                                    .as("%s", failed.diagnostic())
                                    .isEqualTo(ErrorCode.SOURCE_CHANGED);
                            counts[1]++;
                            continue;
                        }
                        try (SkillArtifact a = outcome.artifact().orElseThrow()) {
                            assertThat(isWriterState(a, REWRITE_ORDER))
                                    .as("a clean capture equals a state the bundle had: %s", describe(a))
                                    .isTrue();
                            counts[0]++;
                        }
                    }
                });
        report("identity-preserving rewrite", counts);
        assertThat(counts[0] + counts[1]).isEqualTo(ITERATIONS);
        assertThat(counts[1]).as("the race was exercised").isPositive();
    }

    @Test
    void swappingAFileForALinkGivesSourceChangedOrOneConsistentState() throws Exception {
        Path dir = bundle(root.resolve("swap"), 0);
        Path evil = root.resolve("evil.txt");
        Files.write(evil, content("", 99_999_999));
        Path data = dir.resolve("a.txt");
        long[] gen = {0};
        int[] counts = new int[3];
        racing(
                () -> {
                    // States: (a=link, b=k-1) -> (a=link, b=k) -> (a=k, b=k): a regular a.txt
                    // always has b.txt's generation.
                    gen[0]++;
                    Path link = dir.resolve("a.link.tmp");
                    Files.deleteIfExists(link);
                    Files.createSymbolicLink(link, evil);
                    Files.move(link, data, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                    pause();
                    replaceAtomically(dir.resolve("lib/b.txt"), content("", gen[0]));
                    replaceAtomically(data, content("", gen[0]));
                    pause();
                },
                () -> {
                    for (int i = 0; i < ITERATIONS; i++) {
                        CaptureOutcome outcome = Captures.capture(dir);
                        if (outcome instanceof CaptureOutcome.Failed failed) {
                            assertThat(failed.code())
                                    .as("%s", failed.diagnostic())
                                    .isEqualTo(ErrorCode.SOURCE_CHANGED);
                            counts[1]++;
                            continue;
                        }
                        try (SkillArtifact a = outcome.artifact().orElseThrow()) {
                            for (byte[] bytes : a.copyOfContents().values()) {
                                if (generation(bytes) == 99_999_999) {
                                    fail("a clean capture followed the link");
                                }
                            }
                            if (a.executionAvailable()) {
                                assertThat(a.files()).hasSize(5);
                                long b = generation(
                                        a.bytes(PortablePath.of("lib/b.txt")).orElseThrow());
                                long at = generation(
                                        a.bytes(PortablePath.of("a.txt")).orElseThrow());
                                assertThat(at)
                                        .as("a.txt and lib/b.txt from one state")
                                        .isEqualTo(b);
                                counts[0]++;
                            } else {
                                // The state in which a.txt was a link: nothing declared was kept.
                                assertThat(a.executionProblems())
                                        .extracting(Diagnostic::code)
                                        .containsExactly(ErrorCode.READ_LINK);
                                assertThat(a.files())
                                        .extracting(f -> f.path().value())
                                        .containsExactly("SKILL.md", "execution.json");
                                counts[2]++;
                            }
                        }
                    }
                });
        report("symlink swap", counts);
        assertThat(counts[0] + counts[1] + counts[2]).isEqualTo(ITERATIONS);
        assertThat(counts[1] + counts[2]).as("the race was exercised").isPositive();
    }

    @Test
    void swappingTheRootGivesSourceChangedOrOneTree() throws Exception {
        Path live = bundle(root.resolve("skill"), 1);
        Path other = bundle(root.resolve("skill.other"), 2);
        Path parked = root.resolve("skill.parked");
        int[] counts = new int[3];
        racing(
                () -> {
                    Files.move(live, parked, StandardCopyOption.ATOMIC_MOVE);
                    Files.move(other, live, StandardCopyOption.ATOMIC_MOVE);
                    Files.move(parked, other, StandardCopyOption.ATOMIC_MOVE);
                    pause();
                },
                () -> {
                    for (int i = 0; i < ITERATIONS; i++) {
                        CaptureOutcome outcome = Captures.capture(live);
                        if (outcome instanceof CaptureOutcome.Failed failed) {
                            if (failed.code() == ErrorCode.SOURCE_CHANGED) {
                                counts[1]++;
                            } else {
                                // Absent when the reader was created: nothing was read at all.
                                assertThat(failed.code())
                                        .as("%s", failed.diagnostic())
                                        .isEqualTo(ErrorCode.READ_NOT_FOUND);
                                assertThat(failed.diagnostic().location()).isEmpty();
                                counts[2]++;
                            }
                            continue;
                        }
                        try (SkillArtifact a = outcome.artifact().orElseThrow()) {
                            assertThat(a.executionAvailable())
                                    .as("%s", a.executionProblems())
                                    .isTrue();
                            assertThat(generations(a)).as("one tree").hasSize(1).containsAnyOf(1L, 2L);
                            counts[0]++;
                        }
                    }
                });
        report("root swap", counts);
        assertThat(counts[0] + counts[1] + counts[2]).isEqualTo(ITERATIONS);
        assertThat(counts[1]).as("the race was exercised").isPositive();
    }

    private static void report(String scenario, int[] counts) {
        System.out.printf(
                "capture race %s: clean=%d changed=%d other=%d%n",
                scenario, counts[0], counts[1], counts.length > 2 ? counts[2] : 0);
    }
}
