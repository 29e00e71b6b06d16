package dev.skillgate.inspect;

import static dev.skillgate.inspect.Captures.captured;
import static dev.skillgate.inspect.Captures.executable;
import static dev.skillgate.inspect.Captures.failure;
import static dev.skillgate.inspect.Captures.firstExecutionProblem;
import static dev.skillgate.inspect.Captures.manifest;
import static dev.skillgate.inspect.Captures.skillMd;
import static dev.skillgate.inspect.Captures.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import dev.skillgate.model.PortablePath;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Artifact capture on real directories: what is captured, the revision, copies, disposal, refusals. */
class SkillArtifactTest {
    @TempDir
    Path root;

    private static PortablePath p(String path) {
        return PortablePath.of(path);
    }

    private static Map<PortablePath, byte[]> onDisk(Path dir, String... paths) throws IOException {
        Map<PortablePath, byte[]> files = new LinkedHashMap<>();
        for (String path : paths) {
            files.put(p(path), Files.readAllBytes(dir.resolve(path)));
        }
        return files;
    }

    @Test
    void promptOnlySkillIsSkillMdAndContract() throws IOException {
        Path dir = root.resolve("notes");
        write(dir.resolve("SKILL.md"), skillMd("notes", "# Notes\n"));
        write(dir.resolve("skill.contract.json"), "{}");
        write(dir.resolve("references/guide.md"), "not captured: no manifest declares it");
        try (SkillArtifact a = captured(dir)) {
            assertThat(a.files())
                    .extracting(CapturedFile::path)
                    .containsExactly(p("SKILL.md"), p("skill.contract.json"));
            assertThat(a.revision()).isEqualTo(Revision.compute(onDisk(dir, "SKILL.md", "skill.contract.json")));
            assertThat(a.executionAvailable()).isFalse();
            assertThat(firstExecutionProblem(a)).contains(ErrorCode.MANIFEST_ABSENT);
            assertThat(a.manifest()).isEmpty();
            assertThat(a.manifestBytes()).isEmpty();
            assertThat(a.contractBytes()).hasValueSatisfying(b -> assertThat(b).isEqualTo("{}".getBytes()));
            assertThat(a.skillMarkdown()).isEqualTo(skillMd("notes", "# Notes\n"));
            assertThat(a.entrypointSource()).isEmpty();
            assertThat(a.directoryName()).isEqualTo("notes");
        }
    }

    @Test
    void executableSkillCapturesEveryDeclaredFileAndMatchesTheRevisionSpec() throws IOException {
        Path dir = executable(root, "hello", "assets/t.txt", "template\n");
        write(dir.resolve("assets/undeclared.txt"), "ignored");
        try (SkillArtifact a = captured(dir)) {
            Map<PortablePath, byte[]> expected = onDisk(dir, "SKILL.md", "execution.json", "run.mjs", "assets/t.txt");
            assertThat(a.executionAvailable()).as("%s", a.executionProblems()).isTrue();
            assertThat(a.files())
                    .extracting(CapturedFile::path)
                    .containsExactly(p("SKILL.md"), p("assets/t.txt"), p("execution.json"), p("run.mjs"));
            assertThat(a.revision()).isEqualTo(Revision.compute(expected));
            for (CapturedFile f : a.files()) {
                byte[] bytes = expected.get(f.path());
                assertThat(f.size()).isEqualTo(bytes.length);
                assertThat(f.sha256()).isEqualTo(Sha256Digest.hash(bytes));
                assertThat(a.bytes(f.path()))
                        .hasValueSatisfying(b -> assertThat(b).isEqualTo(bytes));
            }
            assertThat(a.entrypointSource()).contains("console.log('{}');\n");
            assertThat(a.totalBytes())
                    .isEqualTo(
                            expected.values().stream().mapToLong(b -> b.length).sum());
            assertThat(a.copyOfContents().keySet())
                    .containsExactlyElementsOf(
                            a.files().stream().map(CapturedFile::path).toList());
            assertThat(a.bytes(p("assets/undeclared.txt"))).isEmpty();
        }
    }

    @Test
    void capturesReproduceTheRevisionDocument() throws IOException {
        // Worked vector "SKILL.md empty" of docs/revision.md, through a real capture.
        Path empty = root.resolve("empty-skill");
        write(empty.resolve("SKILL.md"), "");
        try (SkillArtifact a = captured(empty)) {
            assertThat(a.revision())
                    .hasToString("sha256:8e6d0d9f692aefc4a895565b801fb6157f26c9934f61af11dacd5fb879849a7d");
        }
        // The hello bundle's files: its manifest is not a valid one, so the capture keeps the
        // manifest's bytes but not the script; the revision is the framing of exactly those two.
        Path dir = root.resolve("hello");
        write(dir.resolve("SKILL.md"), "---\nname: hello\ndescription: Says hello.\n---\n# Hello\n");
        write(dir.resolve("execution.json"), "{\"schemaVersion\":1}\n");
        write(dir.resolve("scripts/run.mjs"), "console.log(JSON.stringify({ok:true}));\n");
        try (SkillArtifact a = captured(dir)) {
            assertThat(a.executionAvailable()).isFalse();
            assertThat(a.files()).extracting(f -> f.path().value()).containsExactly("SKILL.md", "execution.json");
            assertThat(a.revision()).isEqualTo(Revision.compute(onDisk(dir, "SKILL.md", "execution.json")));
        }
    }

    @Test
    void sameTreeGivesTheSameRevisionFromAnyLocationOrSpelling() throws IOException {
        Path a = executable(root.resolve("one"), "same", "data/x.bin", "x");
        Path b = executable(root.resolve("two/deeper"), "same", "data/x.bin", "x");
        Revision first = captured(a).revision();
        assertThat(captured(b).revision()).isEqualTo(first);
        Path cwd = Path.of("").toAbsolutePath();
        Path relative = cwd.relativize(a.toAbsolutePath());
        assertThat(captured(relative).revision()).isEqualTo(first);
        assertThat(captured(a.resolve("data/..")).revision()).isEqualTo(first);
    }

    static Stream<Long> seeds() {
        return Stream.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
    }

    /** Any flipped byte, any renamed file, any added declared file changes the revision. */
    @ParameterizedTest
    @MethodSource("seeds")
    void everyChangeChangesTheRevision(long seed) throws IOException {
        Random random = new Random(seed);
        Path base = root.resolve("s" + seed);
        int count = 1 + random.nextInt(6);
        String[] pairs = new String[count * 2];
        for (int i = 0; i < count; i++) {
            byte[] content = new byte[random.nextInt(200)];
            random.nextBytes(content);
            pairs[2 * i] = "f" + i + ".bin";
            pairs[2 * i + 1] = new String(content, StandardCharsets.ISO_8859_1);
        }
        Path dir = executable(base, "gen");
        for (int i = 0; i < count; i++) {
            write(dir.resolve(pairs[2 * i]), pairs[2 * i + 1].getBytes(StandardCharsets.ISO_8859_1));
        }
        String[] declared = new String[count + 1];
        declared[0] = "run.mjs";
        for (int i = 0; i < count; i++) {
            declared[i + 1] = pairs[2 * i];
        }
        write(dir.resolve("execution.json"), manifest("run.mjs", declared));
        SkillArtifact before = captured(dir);
        assertThat(before.executionAvailable()).isTrue();
        Revision original = before.revision();

        // Flip one bit of one byte of one captured file (skip empty files).
        List<CapturedFile> files = before.files();
        CapturedFile target = files.stream()
                .filter(f -> f.size() > 0 && !f.path().value().equals("execution.json"))
                .skip(random.nextInt(3))
                .findFirst()
                .orElse(files.get(0));
        Path file = dir.resolve(target.path().value());
        byte[] bytes = Files.readAllBytes(file);
        int at = random.nextInt(bytes.length);
        bytes[at] ^= (byte) (1 << random.nextInt(8));
        Files.write(file, bytes);
        assertThat(captured(dir).revision()).isNotEqualTo(original);

        // Restore, then rename one declared file (manifest updated to match).
        Files.write(file, before.bytes(target.path()).orElseThrow());
        assertThat(captured(dir).revision()).isEqualTo(original);
        Files.move(dir.resolve("f0.bin"), dir.resolve("g0.bin"));
        declared[1] = "g0.bin";
        byte[] oldManifest = Files.readAllBytes(dir.resolve("execution.json"));
        write(dir.resolve("execution.json"), manifest("run.mjs", declared));
        Revision renamed = captured(dir).revision();
        assertThat(renamed).isNotEqualTo(original);
        // Same manifest length, same contents, only the name differs: still a different revision.
        Map<PortablePath, byte[]> renamedOnly = new LinkedHashMap<>(before.copyOfContents());
        renamedOnly.put(p("g0.bin"), renamedOnly.remove(p("f0.bin")));
        assertThat(Revision.compute(renamedOnly)).isNotEqualTo(original);
        Files.move(dir.resolve("g0.bin"), dir.resolve("f0.bin"));
        declared[1] = "f0.bin";
        Files.write(dir.resolve("execution.json"), oldManifest);
        assertThat(captured(dir).revision()).isEqualTo(original);

        // Add one declared (empty) file.
        write(dir.resolve("extra.txt"), "");
        String[] more = Arrays.copyOf(declared, declared.length + 1);
        more[more.length - 1] = "extra.txt";
        write(dir.resolve("execution.json"), manifest("run.mjs", more));
        assertThat(captured(dir).revision()).isNotEqualTo(original);
        assertThat(captured(dir).bytes(p("extra.txt")))
                .hasValueSatisfying(b -> assertThat(b).isEmpty());
    }

    @Test
    void accessorsReturnCopies() {
        Path dir = executable(root, "copies", "data.txt", "abc");
        try (SkillArtifact a = captured(dir)) {
            byte[] first = a.bytes(p("data.txt")).orElseThrow();
            first[0] = 'X';
            assertThat(a.bytes(p("data.txt")).orElseThrow()).isEqualTo("abc".getBytes());
            Map<PortablePath, byte[]> contents = a.copyOfContents();
            contents.get(p("data.txt"))[1] = 'Y';
            assertThat(a.copyOfContents().get(p("data.txt"))).isEqualTo("abc".getBytes());
            assertThatThrownBy(() -> contents.put(p("new"), new byte[0]))
                    .isInstanceOf(UnsupportedOperationException.class);
            byte[] manifest = a.manifestBytes().orElseThrow();
            Arrays.fill(manifest, (byte) 0);
            assertThat(a.manifestBytes().orElseThrow()).isNotEqualTo(manifest);
            Revision revision = a.revision();
            assertThat(Revision.compute(a.copyOfContents())).isEqualTo(revision);
        }
    }

    @Test
    void disposalClearsEveryBufferAndFailsAccessors() throws Exception {
        Path dir = executable(root, "gone", "secret.txt", "secret content");
        SkillArtifact a = captured(dir);
        Revision revision = a.revision();
        Field field = SkillArtifact.class.getDeclaredField("files");
        field.setAccessible(true);
        @SuppressWarnings("unchecked")
        Map<PortablePath, byte[]> internal = (Map<PortablePath, byte[]>) field.get(a);
        assertThat(internal.values()).allSatisfy(b -> assertThat(b).isNotEqualTo(new byte[b.length]));
        a.close();
        assertThat(a.isDisposed()).isTrue();
        assertThat(internal.values()).allSatisfy(b -> assertThat(b).isEqualTo(new byte[b.length]));
        assertThat(a.revision()).isEqualTo(revision);
        List<Runnable> accessors = List.of(
                a::files,
                () -> a.bytes(p("secret.txt")),
                a::copyOfContents,
                a::skillMarkdown,
                a::manifestBytes,
                a::contractBytes,
                a::entrypointSource,
                a::manifest,
                a::executionAvailable,
                a::totalBytes,
                a::root);
        for (Runnable accessor : accessors) {
            assertThatThrownBy(accessor::run).isInstanceOf(IllegalStateException.class);
        }
        a.dispose(); // idempotent
    }

    @Test
    void signatureFileIsNeverCaptured() {
        Path dir = executable(root, "signed", "data.txt", "d");
        write(dir.resolve("skill.contract.json"), "{}");
        write(dir.resolve("skill.contract.sig"), "signature");
        try (SkillArtifact a = captured(dir)) {
            assertThat(a.files()).extracting(f -> f.path().value()).doesNotContain("skill.contract.sig");
            assertThat(a.executionAvailable()).isTrue();
        }
    }

    @Test
    void manifestDeclaringTheSignatureFileIsRejected() {
        Path dir = executable(root, "selfsign", "Skill.Contract.Sig", "sig");
        try (SkillArtifact a = captured(dir)) {
            assertThat(a.executionAvailable()).isFalse();
            assertThat(a.manifestVerdict().reasons()).singleElement().satisfies(d -> {
                assertThat(d.code()).isEqualTo(ErrorCode.MANIFEST_FILE_RESERVED);
                assertThat(d.location()).isEqualTo("/files/1");
            });
            assertThat(a.files()).extracting(f -> f.path().value()).containsExactly("SKILL.md", "execution.json");
        }
    }

    @Test
    void declaringSkillMdOrTheManifestCapturesThemOnce() throws IOException {
        Path dir = executable(root, "twice");
        write(dir.resolve("execution.json"), manifest("run.mjs", "run.mjs", "SKILL.md", "execution.json"));
        try (SkillArtifact a = captured(dir)) {
            assertThat(a.executionAvailable()).isTrue();
            assertThat(a.files())
                    .extracting(f -> f.path().value())
                    .containsExactly("SKILL.md", "execution.json", "run.mjs");
            assertThat(a.revision()).isEqualTo(Revision.compute(onDisk(dir, "SKILL.md", "execution.json", "run.mjs")));
        }
    }

    @Test
    void missingDeclaredFileMakesAPromptOnlyCapture() throws IOException {
        Path dir = executable(root, "broken", "data.txt", "d");
        Files.delete(dir.resolve("data.txt"));
        try (SkillArtifact a = captured(dir)) {
            assertThat(a.executionAvailable()).isFalse();
            assertThat(a.executionProblems()).singleElement().satisfies(d -> {
                assertThat(d.code()).isEqualTo(ErrorCode.CAPTURE_FILE_MISSING);
                assertThat(d.location()).isEqualTo("data.txt");
            });
            assertThat(a.manifest()).isPresent();
            assertThat(a.manifestVerdict().reasons()).isEmpty();
            // No partial executable capture: run.mjs was readable but is not kept either.
            assertThat(a.files()).extracting(f -> f.path().value()).containsExactly("SKILL.md", "execution.json");
            assertThat(a.entrypointSource()).isEmpty();
            assertThat(a.revision()).isEqualTo(Revision.compute(onDisk(dir, "SKILL.md", "execution.json")));
        }
    }

    @Test
    void aDeclaredFileThisUserMayNotReadIsThatFilesProblemNotTheRoots() throws IOException {
        // Root reads every file, so the refusal is only observable for an ordinary user.
        org.junit.jupiter.api.Assumptions.assumeFalse(
                "root".equals(System.getProperty("user.name")), "root bypasses file permissions");
        Path dir = executable(root, "unreadable", "data.txt", "d");
        Files.setPosixFilePermissions(dir.resolve("data.txt"), java.util.Set.of());
        try (SkillArtifact a = captured(dir)) {
            assertThat(a.executionAvailable()).isFalse();
            assertThat(a.executionProblems()).singleElement().satisfies(d -> {
                assertThat(d.code()).isEqualTo(ErrorCode.READ_IO);
                assertThat(d.location()).isEqualTo("data.txt");
            });
            assertThat(a.files()).extracting(f -> f.path().value()).containsExactly("SKILL.md", "execution.json");
        } finally {
            Files.setPosixFilePermissions(
                    dir.resolve("data.txt"), java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        }
    }

    @Test
    void hostileDeclaredFilesAreRefusedWithTheirCodes() throws Exception {
        Path outside = write(root.resolve("outside.txt"), "outside");
        Path link = executable(root, "link", "data.txt", "d");
        Files.delete(link.resolve("data.txt"));
        Files.createSymbolicLink(link.resolve("data.txt"), outside);
        assertThat(firstExecutionProblem(captured(link))).contains(ErrorCode.READ_LINK);

        Path dirLink = executable(root, "dirlink", "sub/data.txt", "d");
        Files.move(dirLink.resolve("sub"), root.resolve("realsub"));
        Files.createSymbolicLink(dirLink.resolve("sub"), root.resolve("realsub"));
        assertThat(firstExecutionProblem(captured(dirLink))).contains(ErrorCode.READ_LINK);

        Path fifo = executable(root, "fifo", "pipe", "x");
        Files.delete(fifo.resolve("pipe"));
        HostileInputsTest.mkfifo(fifo.resolve("pipe"));
        assertThat(firstExecutionProblem(captured(fifo))).contains(ErrorCode.READ_NOT_REGULAR);

        Path big = executable(root, "big", "big.bin", "");
        write(big.resolve("big.bin"), new byte[Limits.FILE_BYTES + 1]);
        assertThat(firstExecutionProblem(captured(big))).contains(ErrorCode.READ_TOO_LARGE);

        Path badEntry = executable(root, "badentry");
        write(badEntry.resolve("run.mjs"), new byte[] {'x', (byte) 0xC3, '(', '\n'});
        assertThat(firstExecutionProblem(captured(badEntry))).contains(ErrorCode.READ_INVALID_UTF8);

        Path binaryAsset = executable(root, "binary", "img.bin", "");
        write(binaryAsset.resolve("img.bin"), new byte[] {(byte) 0xff, 0, (byte) 0xfe});
        assertThat(captured(binaryAsset).executionAvailable())
                .as("non-entrypoint files are bytes")
                .isTrue();
    }

    @Test
    void maximalBundleFitsAndOneMoreByteIsRefused() throws IOException {
        Path dir = MaximalBundle.write(root.resolve("max"), 0);
        try (SkillArtifact a = captured(dir)) {
            assertThat(a.executionAvailable()).as("%s", a.executionProblems()).isTrue();
            assertThat(a.totalBytes()).isEqualTo(Limits.CAPTURE_BYTES);
            assertThat(a.manifest().orElseThrow().files()).hasSize(Limits.DECLARED_FILES);
        }
        Path over = MaximalBundle.write(root.resolve("over"), 1);
        try (SkillArtifact a = captured(over)) {
            assertThat(a.executionAvailable()).isFalse();
            assertThat(a.executionProblems()).extracting(Diagnostic::code).contains(ErrorCode.READ_TOTAL_LIMIT);
        }
    }

    @Test
    void skillFileProblemsFailTheCapture() throws Exception {
        assertThat(failure(root.resolve("missing"))).isEqualTo(ErrorCode.READ_NOT_FOUND);
        Path empty = Files.createDirectories(root.resolve("empty"));
        assertThat(failure(empty)).isEqualTo(ErrorCode.LAYOUT_SKILLMD);

        Path linked = Files.createDirectories(root.resolve("linked"));
        Path real = write(root.resolve("real.md"), skillMd("linked", ""));
        Files.createSymbolicLink(linked.resolve("SKILL.md"), real);
        assertThat(failure(linked)).isEqualTo(ErrorCode.READ_LINK);

        Path rootLink = root.resolve("rootlink");
        Files.createSymbolicLink(rootLink, executable(root, "target"));
        assertThat(failure(rootLink)).isEqualTo(ErrorCode.READ_LINK);

        Path bad = root.resolve("bad");
        write(bad.resolve("SKILL.md"), new byte[] {'-', '-', '-', '\n', (byte) 0xff});
        assertThat(failure(bad)).isEqualTo(ErrorCode.READ_INVALID_UTF8);

        Path fifo = Files.createDirectories(root.resolve("fifo"));
        HostileInputsTest.mkfifo(fifo.resolve("SKILL.md"));
        assertThat(failure(fifo)).isEqualTo(ErrorCode.READ_NOT_REGULAR);

        Path huge = root.resolve("huge");
        write(huge.resolve("SKILL.md"), new byte[Limits.FILE_BYTES + 1]);
        assertThat(failure(huge)).isEqualTo(ErrorCode.READ_TOO_LARGE);
    }

    @Test
    void lowercaseSkillFileIsCapturedUnderItsOwnName() {
        Path dir = root.resolve("lower");
        write(dir.resolve("skill.md"), skillMd("lower", ""));
        try (SkillArtifact a = captured(dir)) {
            assertThat(a.skillMarkdownPath()).isEqualTo(p("skill.md"));
            assertThat(a.files()).extracting(f -> f.path().value()).containsExactly("skill.md");
        }
    }

    @Test
    void unreadableOptionalFilesAreReportedNotCaptured() throws IOException {
        Path dir = root.resolve("optional");
        write(dir.resolve("SKILL.md"), skillMd("optional", ""));
        write(dir.resolve("execution.json"), new byte[Limits.MANIFEST_BYTES + 1]);
        Path target = write(root.resolve("contract-target.json"), "{}");
        Files.createSymbolicLink(dir.resolve("skill.contract.json"), target);
        try (SkillArtifact a = captured(dir)) {
            assertThat(a.files()).extracting(f -> f.path().value()).containsExactly("SKILL.md");
            assertThat(a.manifestVerdict().reasons())
                    .extracting(Diagnostic::code)
                    .containsExactly(ErrorCode.MANIFEST_TOO_LARGE);
            assertThat(a.executionProblems())
                    .extracting(Diagnostic::code)
                    .containsExactly(ErrorCode.MANIFEST_TOO_LARGE);
            assertThat(a.contractProblem())
                    .hasValueSatisfying(d -> assertThat(d.code()).isEqualTo(ErrorCode.READ_LINK));
            assertThat(a.contractBytes()).isEmpty();
        }
        Files.delete(dir.resolve("skill.contract.json"));
        write(dir.resolve("skill.contract.json"), new byte[Limits.MANIFEST_BYTES + 1]);
        try (SkillArtifact a = captured(dir)) {
            assertThat(a.contractProblem())
                    .hasValueSatisfying(d -> assertThat(d.code()).isEqualTo(ErrorCode.CONTRACT_SYNTAX));
        }
    }
}
