package dev.skillgate.inspect;

import static dev.skillgate.inspect.Captures.captured;
import static dev.skillgate.inspect.Captures.manifest;
import static dev.skillgate.inspect.Captures.skillMd;
import static dev.skillgate.inspect.Captures.write;
import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.inspect.internal.CaptureHashExecutor;
import dev.skillgate.inspect.internal.RevisionPipeline;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.protocol.ManifestParser;
import dev.skillgate.protocol.ManifestVerdict;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The revision of a capture is hashed next to the reads (decision 0300). These tests pin that it is
 * still exactly {@code Revision.compute} over the captured files, that a refused declared file or a
 * failed capture stops the hash and clears every buffer, and that disposal still clears the
 * buffers of a capture whose revision a worker hashed.
 */
class CaptureRevisionPipelineTest {
    @TempDir
    Path root;

    /** Names that sort before, between and after the fixed files, in nested directories. */
    private static final String[] NAMES = {
        "A.txt",
        "README",
        "Z/z.bin",
        "a.mjs",
        "assets/logo.bin",
        "execution.jsom",
        "lib/x.bin",
        "lib/y/z.bin",
        "run.mjs",
        "scripts/util.mjs",
        "skill.contract.jsoo",
        "\u00e9t\u00e9.bin",
        "\uFF5E.bin",
        "\uD83D\uDE00.bin",
        "B.md",
        "SKILL.mc",
        "SKILL.me",
        "docs/SKILL.md"
    };

    /** Writes a random executable bundle; returns the paths that must be captured. */
    private static List<String> randomBundle(Path dir, Random random) throws IOException {
        Set<String> declared = new LinkedHashSet<>();
        declared.add("run.mjs");
        int count = 1 + random.nextInt(NAMES.length - 1);
        while (declared.size() < count) {
            declared.add(NAMES[random.nextInt(NAMES.length)]);
        }
        write(dir.resolve("SKILL.md"), skillMd(dir.getFileName().toString(), "# Random\n"));
        write(dir.resolve("run.mjs"), "console.log('{}');\n");
        List<String> captured = new ArrayList<>(List.of("SKILL.md", "execution.json"));
        for (String path : declared) {
            if (!path.equals("run.mjs")) {
                // Up to about 400 KB each: some bundles stay on the capturing thread, most do not.
                byte[] content = new byte[random.nextInt(3) == 0 ? random.nextInt(100) : random.nextInt(400_000)];
                random.nextBytes(content);
                write(dir.resolve(path), content);
            }
            captured.add(path);
        }
        if (random.nextBoolean()) {
            write(dir.resolve("skill.contract.json"), "{\"not\":\"checked at capture\"}");
            captured.add("skill.contract.json");
        }
        List<String> shuffled = new ArrayList<>(declared);
        java.util.Collections.shuffle(shuffled, random);
        write(dir.resolve("execution.json"), manifest("run.mjs", shuffled.toArray(String[]::new)));
        return captured;
    }

    private static Map<PortablePath, byte[]> onDisk(Path dir, List<String> paths) throws IOException {
        Map<PortablePath, byte[]> files = new TreeMap<>();
        for (String path : paths) {
            files.put(PortablePath.of(path), Files.readAllBytes(dir.resolve(path)));
        }
        return files;
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
    void theCapturedRevisionIsRevisionComputeOverTheSameFiles(long seed) throws IOException {
        Random random = new Random(seed);
        Path dir = root.resolve("random-" + seed);
        List<String> paths = randomBundle(dir, random);
        Map<PortablePath, byte[]> expected = onDisk(dir, paths);
        try (SkillArtifact a = captured(dir)) {
            assertThat(a.executionAvailable()).as("%s", a.executionProblems()).isTrue();
            assertThat(a.files()).extracting(CapturedFile::path).containsExactlyElementsOf(expected.keySet());
            assertThat(a.revision()).isEqualTo(Revision.compute(expected));
            assertThat(a.revision()).isEqualTo(Revision.compute(a.copyOfContents()));
        }
    }

    @Test
    void aMaximalCaptureIsHashedByAWorkerWhenThereIsOne() throws IOException {
        Path dir = MaximalBundle.write(root.resolve("max"), 0);
        long before = RevisionPipeline.workerHashes();
        for (int i = 0; i < 20; i++) {
            try (SkillArtifact a = captured(dir)) {
                assertThat(a.revision()).isEqualTo(Revision.compute(a.copyOfContents()));
            }
        }
        if (CaptureHashExecutor.THREADS > 0) {
            // Not every time: a worker that has not started when the capture needs the revision
            // gives the hash back (a loaded machine). But a worker is used.
            assertThat(RevisionPipeline.workerHashes()).isGreaterThan(before);
        }
    }

    /** A declared file that cannot be read, sorted among readable ones: the hash stops, nothing declared is kept. */
    @ParameterizedTest
    @ValueSource(strings = {"missing", "link", "directory"})
    void aRefusedDeclaredFileInTheMiddleStopsTheHash(String kind) throws IOException {
        Path dir = MaximalBundle.write(root.resolve("refused-" + kind), 0);
        Path victim = dir.resolve("lib/part-32.bin");
        Files.delete(victim);
        switch (kind) {
            case "link" -> Files.createSymbolicLink(victim, dir.resolve("lib/part-31.bin"));
            case "directory" -> Files.createDirectory(victim);
            default -> {}
        }
        ErrorCode code = switch (kind) {
            case "link" -> ErrorCode.READ_LINK;
            case "directory" -> ErrorCode.READ_NOT_REGULAR;
            default -> ErrorCode.CAPTURE_FILE_MISSING;
        };
        try (SkillArtifact a = captured(dir)) {
            assertThat(a.executionAvailable()).isFalse();
            assertThat(a.executionProblems()).extracting(Diagnostic::code).containsExactly(code);
            assertThat(a.executionProblems()).extracting(Diagnostic::location).containsExactly("lib/part-32.bin");
            assertThat(a.files()).extracting(f -> f.path().value()).containsExactly("SKILL.md", "execution.json");
            assertThat(a.revision()).isEqualTo(Revision.compute(onDisk(dir, List.of("SKILL.md", "execution.json"))));
        }
    }

    /** Several refused files are reported in manifest order, whatever order they were read in. */
    @Test
    void problemsAreReportedInManifestOrder() throws IOException {
        Path dir = root.resolve("order");
        write(dir.resolve("SKILL.md"), skillMd("order", ""));
        write(dir.resolve("run.mjs"), "console.log('{}');\n");
        write(dir.resolve("execution.json"), manifest("run.mjs", "run.mjs", "z.bin", "b.bin", "m.bin"));
        write(dir.resolve("b.bin"), "b");
        try (SkillArtifact a = captured(dir)) {
            assertThat(a.executionProblems()).extracting(Diagnostic::location).containsExactly("z.bin", "m.bin");
        }
    }

    /** The manifest step runs inside the capture; it keeps the manifest array to look at later. */
    private static Function<byte[], ManifestVerdict> keeping(AtomicReference<byte[]> kept, Runnable sideEffect) {
        return bytes -> {
            kept.set(bytes);
            sideEffect.run();
            return ManifestParser.parse(bytes);
        };
    }

    @Test
    void aCaptureThatFailsAfterTheHashStartedClearsEveryBufferItRead() throws IOException {
        Path dir = MaximalBundle.write(root.resolve("changing"), 0);
        Path skill = dir.resolve("SKILL.md");
        byte[] original = Files.readAllBytes(skill);
        for (int round = 0; round < 10; round++) {
            AtomicReference<byte[]> kept = new AtomicReference<>();
            int r = round;
            CaptureOutcome outcome = Capturer.capture(dir, keeping(kept, () -> {
                // SKILL.md was already read: a same-size rewrite is seen by the verification pass.
                byte[] changed = original.clone();
                changed[changed.length - 2] = (byte) ('a' + r);
                write(skill, changed);
            }));
            assertThat(outcome).isInstanceOf(CaptureOutcome.Failed.class);
            assertThat(((CaptureOutcome.Failed) outcome).code()).isEqualTo(ErrorCode.SOURCE_CHANGED);
            assertThat(outcome.problem().orElseThrow().location()).isEqualTo("SKILL.md");
            assertThat(kept.get()).as("the manifest buffer was cleared").containsOnly(0);
            write(skill, original);
        }
    }

    @Test
    void anInterruptedCaptureFailsClearsItsBuffersAndKeepsTheInterrupt() throws IOException {
        Path dir = MaximalBundle.write(root.resolve("interrupted"), 0);
        AtomicReference<byte[]> kept = new AtomicReference<>();
        CaptureOutcome outcome;
        try {
            outcome = Capturer.capture(
                    dir, keeping(kept, () -> Thread.currentThread().interrupt()));
        } finally {
            assertThat(Thread.interrupted()).as("the interrupt status is kept").isTrue();
        }
        assertThat(outcome).isInstanceOf(CaptureOutcome.Failed.class);
        assertThat(((CaptureOutcome.Failed) outcome).code()).isEqualTo(ErrorCode.READ_IO);
        assertThat(kept.get()).containsOnly(0);
        // The next capture on this thread is unaffected.
        try (SkillArtifact a = captured(dir)) {
            assertThat(a.executionAvailable()).isTrue();
        }
    }

    @Test
    void disposalClearsTheBuffersOfAMaximalCapture() throws Exception {
        Path dir = MaximalBundle.write(root.resolve("dispose"), 0);
        SkillArtifact a = captured(dir);
        Revision revision = a.revision();
        Field field = SkillArtifact.class.getDeclaredField("files");
        field.setAccessible(true);
        @SuppressWarnings("unchecked")
        Map<PortablePath, byte[]> internal = (Map<PortablePath, byte[]>) field.get(a);
        assertThat(internal).hasSize(66);
        a.dispose();
        assertThat(internal.values()).allSatisfy(b -> assertThat(b).containsOnly(0));
        assertThat(a.revision()).isEqualTo(revision);
        assertThat(new String(Files.readAllBytes(dir.resolve("run.mjs")), StandardCharsets.UTF_8))
                .as("disposal touches memory only")
                .startsWith("console.log");
    }
}
