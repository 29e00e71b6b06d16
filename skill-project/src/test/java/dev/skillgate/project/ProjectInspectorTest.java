package dev.skillgate.project;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ErrorGroup;
import dev.skillgate.model.PortablePath;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Inspection of real project directories: supported forms, hostile forms and hostile trees. */
class ProjectInspectorTest {
    @TempDir
    Path dir;

    private static ErrorCode refusal(ProjectInspection inspection, String script) {
        ScriptVerdict v = inspection.script(script).orElseThrow();
        assertThat(v).isInstanceOf(ScriptVerdict.Refused.class);
        return ((ScriptVerdict.Refused) v).reason().code();
    }

    private static ProjectStep step(ProjectInspection inspection, String script) {
        ScriptVerdict v = inspection.script(script).orElseThrow();
        assertThat(v).as("%s", v).isInstanceOf(ScriptVerdict.Supported.class);
        return ((ScriptVerdict.Supported) v).step();
    }

    @Test
    void theJavaScriptFixtureResolvesToExactArgvAndASnapshot() {
        Projects.write(dir, Projects.javascript("node --test test/math.test.js test/fail.test.js"));
        ProjectInspection inspection = ProjectInspector.inspect(dir);

        assertThat(inspection.problems()).isEmpty();
        ProjectStep test = step(inspection, "test");
        assertThat(test.form()).isEqualTo(StepForm.NODE_TEST);
        assertThat(test.arguments()).containsExactly("--test", "test/math.test.js", "test/fail.test.js");
        ProjectStep build = step(inspection, "build");
        assertThat(build.form()).isEqualTo(StepForm.NODE_ENTRYPOINT);
        assertThat(build.arguments()).containsExactly("--", "build.js");
        assertThat(refusal(inspection, "lint")).isEqualTo(ErrorCode.PROJECT_SCRIPT_UNSUPPORTED);

        ProjectSnapshot snapshot = inspection.snapshot().orElseThrow();
        assertThat(snapshot.sourcePaths())
                .extracting(PortablePath::value)
                .containsExactly(
                        "build.js",
                        "package-lock.json",
                        "package.json",
                        "src/math.js",
                        "test/fail.test.js",
                        "test/math.test.js");
        assertThat(snapshot.dependencyPaths()).isEmpty();
        assertThat(snapshot.digests().lockfile()).isPresent();
        // The same tree inspects to the same inputs; one changed byte anywhere does not.
        assertThat(ProjectInspector.inspect(dir).snapshot().orElseThrow().digests())
                .isEqualTo(snapshot.digests());
        Projects.write(dir, Map.of("src/math.js", "exports.add = (a, b) => a - b;\n"));
        assertThat(ProjectInspector.inspect(dir)
                        .snapshot()
                        .orElseThrow()
                        .digests()
                        .combined())
                .isNotEqualTo(snapshot.digests().combined());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiterString = " => ",
            quoteCharacter = '`',
            value = {
                "npx jest => PROJECT_SCRIPT_NPX",
                "npm run other => PROJECT_SCRIPT_NPM",
                "npm test => PROJECT_SCRIPT_NPM",
                "yarn jest => PROJECT_SCRIPT_NPM",
                "npm install => PROJECT_SCRIPT_INSTALL",
                "npm exec jest => PROJECT_SCRIPT_INSTALL",
                "npm rebuild => PROJECT_SCRIPT_INSTALL",
                "node test/math.test.js && node test/fail.test.js => PROJECT_SCRIPT_CHAINING",
                "node test/math.test.js; rm -rf x => PROJECT_SCRIPT_CHAINING",
                "node test/math.test.js | tee out => PROJECT_SCRIPT_CHAINING",
                "NODE_ENV=test node --test test/math.test.js => PROJECT_SCRIPT_ASSIGNMENT",
                "env CI=1 node --test test/math.test.js => PROJECT_SCRIPT_ASSIGNMENT",
                "node --test test/*.test.js => PROJECT_SCRIPT_GLOB",
                "node --test test/{a,b}.test.js => PROJECT_SCRIPT_GLOB",
                "node --test 'test/math.test.js' => PROJECT_SCRIPT_SHELL",
                "node --test $HOME/x.test.js => PROJECT_SCRIPT_SHELL",
                "node --test test/math.test.js > out.txt => PROJECT_SCRIPT_SHELL",
                "node  --test test/math.test.js => PROJECT_SCRIPT_SHELL",
                "node --watch --test test/math.test.js => PROJECT_SCRIPT_WATCH",
                "node --inspect build.js => PROJECT_SCRIPT_WATCH",
                "node --test ../outside.test.js => PROJECT_SCRIPT_PATH",
                "node --test /abs/x.test.js => PROJECT_SCRIPT_PATH",
                "node --test ./test/math.test.js => PROJECT_SCRIPT_PATH",
                "node --test test/missing.test.js => PROJECT_SCRIPT_PATH",
                "node --test src/math.js => PROJECT_SCRIPT_PATH",
                "node --test => PROJECT_SCRIPT_UNSUPPORTED",
                "node --require x test/math.test.js => PROJECT_SCRIPT_UNSUPPORTED",
                "jest => PROJECT_SCRIPT_UNSUPPORTED",
                "tsc --project tsconfig.json => PROJECT_SCRIPT_UNSUPPORTED",
            })
    void hostileTestScriptsAreRefusedByName(String script, ErrorCode expected) {
        Projects.write(dir, Projects.javascript(script));
        ProjectInspection inspection = ProjectInspector.inspect(dir);
        assertThat(inspection.problems()).isEmpty();
        assertThat(refusal(inspection, "test")).isEqualTo(expected);
    }

    @Test
    void aPretestHookRefusesTheTestScriptAndIsItselfNeverRun() throws IOException {
        Path marker = dir.resolve("marker");
        Map<String, String> files = Projects.javascript("node --test test/math.test.js");
        files.put(
                "package.json",
                Projects.packageJson(
                        "pretest",
                        "node -e require('fs').writeFileSync('" + marker + "','x')",
                        "test",
                        "node --test test/math.test.js"));
        Projects.write(dir, files);
        ProjectInspection inspection = ProjectInspector.inspect(dir);
        assertThat(refusal(inspection, "test")).isEqualTo(ErrorCode.PROJECT_LIFECYCLE_HOOK);
        assertThat(refusal(inspection, "pretest")).isEqualTo(ErrorCode.PROJECT_LIFECYCLE_HOOK);
        assertThat(marker).doesNotExist();
    }

    @Test
    void aBinLinkInsideTheSnapshotIsRecordedAndOneThatEscapesIsRefused() throws IOException {
        Map<String, String> files = Projects.javascript("node --test test/math.test.js");
        files.put("package-lock.json", Projects.lockfile(Map.of("node_modules/tool", "1.2.3")));
        files.put("node_modules/tool/package.json", "{\"name\":\"tool\",\"version\":\"1.2.3\",\"bin\":\"cli.js\"}");
        files.put("node_modules/tool/cli.js", "console.log('tool');\n");
        Projects.write(dir, files);
        Files.createDirectories(dir.resolve("node_modules/.bin"));
        Files.createSymbolicLink(dir.resolve("node_modules/.bin/tool"), Path.of("../tool/cli.js"));

        ProjectSnapshot snapshot = ProjectInspector.inspect(dir).snapshot().orElseThrow();
        assertThat(snapshot.binLinks())
                .containsEntry(PortablePath.of("node_modules/.bin/tool"), PortablePath.of("node_modules/tool/cli.js"));
        assertThat(snapshot.dependencyPaths()).hasSize(2);

        Path outside = Files.writeString(Files.createTempFile("outside", ".js"), "evil");
        try {
            Files.createSymbolicLink(dir.resolve("node_modules/.bin/evil"), outside);
            ProjectInspection bad = ProjectInspector.inspect(dir);
            assertThat(bad.snapshot()).isEmpty();
            assertThat(bad.problems()).extracting(d -> d.code()).containsExactly(ErrorCode.PROJECT_BIN_LINK_ESCAPES);
            Files.delete(dir.resolve("node_modules/.bin/evil"));
            Files.createSymbolicLink(dir.resolve("node_modules/.bin/evil"), Path.of("../../package.json"));
            assertThat(ProjectInspector.inspect(dir).problems())
                    .extracting(d -> d.code())
                    .containsExactly(ErrorCode.PROJECT_BIN_LINK_ESCAPES);
        } finally {
            Files.deleteIfExists(outside);
        }
    }

    @Test
    void aSymlinkedPackageRootOutsideTheProjectIsAForeignRoot(@TempDir Path elsewhere) throws IOException {
        Map<String, String> files = Projects.javascript("node --test test/math.test.js");
        files.put("package-lock.json", Projects.lockfile(Map.of("node_modules/dep", "1.0.0")));
        Projects.write(dir, files);
        Projects.write(elsewhere, Map.of("package.json", "{\"name\":\"dep\",\"version\":\"1.0.0\"}", "index.js", "x"));
        Files.createDirectories(dir.resolve("node_modules"));
        Files.createSymbolicLink(dir.resolve("node_modules/dep"), elsewhere);
        ProjectInspection inspection = ProjectInspector.inspect(dir);
        assertThat(inspection.problems())
                .extracting(d -> d.code())
                .containsExactly(ErrorCode.PROJECT_FOREIGN_PACKAGE_ROOT);
        // The script verdicts are still reported.
        assertThat(step(inspection, "test").form()).isEqualTo(StepForm.NODE_TEST);
    }

    @Test
    void aSourceLinkAndASpecialFileAreRefused() throws IOException {
        Projects.write(dir, Projects.javascript("node --test test/math.test.js"));
        Files.createSymbolicLink(dir.resolve("src/link.js"), dir.resolve("src/math.js"));
        assertThat(ProjectInspector.inspect(dir).problems())
                .extracting(d -> d.code())
                .containsExactly(ErrorCode.PROJECT_LINK);
    }

    @Test
    void aDependencyFileOverItsBoundIsRefusedWithoutReadingIt() throws IOException {
        Map<String, String> files = Projects.javascript("node --test test/math.test.js");
        files.put("package-lock.json", Projects.lockfile(Map.of("node_modules/big", "1.0.0")));
        files.put("node_modules/big/package.json", "{\"name\":\"big\",\"version\":\"1.0.0\"}");
        Projects.write(dir, files);
        try (RandomAccessFile f =
                new RandomAccessFile(dir.resolve("node_modules/big/blob.bin").toFile(), "rw")) {
            f.setLength(ProjectLimits.DEPENDENCY_FILE_BYTES + 1L);
        }
        assertThat(ProjectInspector.inspect(dir).problems())
                .extracting(d -> d.code())
                .containsExactly(ErrorCode.PROJECT_DEPENDENCY_LIMIT);
    }

    @Test
    void aSourceFileOverItsBoundIsRefused() throws IOException {
        Projects.write(dir, Projects.javascript("node --test test/math.test.js"));
        try (RandomAccessFile f =
                new RandomAccessFile(dir.resolve("src/huge.js").toFile(), "rw")) {
            f.setLength(ProjectLimits.SOURCE_FILE_BYTES + 1L);
        }
        assertThat(ProjectInspector.inspect(dir).problems())
                .extracting(d -> d.code())
                .containsExactly(ErrorCode.PROJECT_SOURCE_LIMIT);
    }

    @Test
    void theInstalledTreeMustMatchTheLockfile() {
        Map<String, String> files = Projects.javascript("node --test test/math.test.js");
        files.put("package-lock.json", Projects.lockfile(Map.of("node_modules/dep", "1.0.0")));
        files.put("node_modules/dep/package.json", "{\"name\":\"dep\",\"version\":\"2.0.0\"}");
        Projects.write(dir, files);
        assertThat(ProjectInspector.inspect(dir).problems())
                .extracting(d -> d.code())
                .containsExactly(ErrorCode.PROJECT_LOCKFILE_MISMATCH);

        Projects.write(dir, Map.of("package-lock.json", "{\"lockfileVersion\": 1, \"dependencies\": {}}"));
        assertThat(ProjectInspector.inspect(dir).problems())
                .extracting(d -> d.code())
                .containsExactly(ErrorCode.PROJECT_LOCKFILE_INVALID);
    }

    @Test
    void aTreeWithoutALockfileOrWithAMissingPackageIsAMismatch() throws IOException {
        Map<String, String> files = Projects.javascript("node --test test/math.test.js");
        files.put("node_modules/dep/package.json", "{\"name\":\"dep\",\"version\":\"1.0.0\"}");
        Projects.write(dir, files);
        Files.delete(dir.resolve("package-lock.json"));
        assertThat(ProjectInspector.inspect(dir).problems())
                .extracting(d -> d.code())
                .containsExactly(ErrorCode.PROJECT_LOCKFILE_MISMATCH);

        Projects.write(
                dir,
                Map.of(
                        "package-lock.json",
                        Projects.lockfile(Map.of("node_modules/dep", "1.0.0", "node_modules/gone", "1.0.0"))));
        assertThat(ProjectInspector.inspect(dir).problems())
                .extracting(d -> d.code())
                .containsExactly(ErrorCode.PROJECT_LOCKFILE_MISMATCH);
    }

    @Test
    void aManifestWithDuplicateKeysOrNonStringScriptsIsInvalid() {
        Projects.write(dir, Map.of("package.json", "{\"scripts\": {\"test\": \"node a.js\", \"test\": \"npx evil\"}}"));
        assertThat(ProjectInspector.inspect(dir).problems())
                .extracting(d -> d.code())
                .containsExactly(ErrorCode.PROJECT_MANIFEST_INVALID);
        Projects.write(dir, Map.of("package.json", "{\"scripts\": {\"test\": 1}}"));
        assertThat(ProjectInspector.inspect(dir).problems())
                .extracting(d -> d.code())
                .containsExactly(ErrorCode.PROJECT_MANIFEST_INVALID);
    }

    @Test
    void aMissingManifestIsNamed() {
        assertThat(ProjectInspector.inspect(dir).problems())
                .extracting(d -> d.code())
                .containsExactly(ErrorCode.PROJECT_MANIFEST_MISSING);
    }

    @Test
    void tscNeedsAStrictTsconfigWithTheDeclaredOutDirAndTheInstalledCompiler() {
        Map<String, String> files = new LinkedHashMap<>();
        files.put(
                "package.json",
                Projects.packageJson("build", "tsc --project tsconfig.json", "build:other", "tsc -p tsconfig.json"));
        files.put("tsconfig.json", "{\"compilerOptions\": {\"outDir\": \"dist\"}, \"include\": [\"src\"]}");
        files.put("src/a.ts", "export const a: number = 1;\n");
        files.put("package-lock.json", Projects.lockfile(Map.of()));
        Projects.write(dir, files);
        ProjectInspection noCompiler = ProjectInspector.inspect(dir);
        assertThat(refusal(noCompiler, "build")).isEqualTo(ErrorCode.PROJECT_TYPESCRIPT_MISSING);
        assertThat(refusal(noCompiler, "build:other")).isEqualTo(ErrorCode.PROJECT_SCRIPT_UNSUPPORTED);

        files.put("package-lock.json", Projects.lockfile(Map.of("node_modules/typescript", "5.9.3")));
        files.put("node_modules/typescript/package.json", "{\"name\":\"typescript\",\"version\":\"5.9.3\"}");
        files.put("node_modules/typescript/bin/tsc", "#!/usr/bin/env node\n");
        Projects.write(dir, files);
        ProjectStep build = step(ProjectInspector.inspect(dir), "build");
        assertThat(build.form()).isEqualTo(StepForm.TSC_PROJECT);
        assertThat(build.arguments())
                .containsExactly("--", "node_modules/typescript/bin/tsc", "--project", "tsconfig.json");

        Projects.write(
                dir, Map.of("tsconfig.json", "{\n  // a comment\n  \"compilerOptions\": {\"outDir\": \"dist\"}\n}"));
        assertThat(refusal(ProjectInspector.inspect(dir), "build")).isEqualTo(ErrorCode.PROJECT_TSCONFIG_INVALID);
        Projects.write(dir, Map.of("tsconfig.json", "{\"compilerOptions\": {\"outDir\": \"lib\"}}"));
        assertThat(refusal(ProjectInspector.inspect(dir), "build")).isEqualTo(ErrorCode.PROJECT_TSCONFIG_INVALID);
        Projects.write(
                dir,
                Map.of(
                        "tsconfig.json",
                        "{\"extends\": \"../base.json\", \"compilerOptions\": {\"outDir\": \"dist\"}}"));
        assertThat(refusal(ProjectInspector.inspect(dir), "build")).isEqualTo(ErrorCode.PROJECT_TSCONFIG_INVALID);
    }

    @Test
    void generatedTestsInTheOutputDirectoryAreAcceptedForLaterValidationAndNotCaptured() {
        Map<String, String> files = Projects.javascript("node --test dist/math.test.js");
        files.put("dist/stale.test.js", "stale output is not an input");
        Projects.write(dir, files);
        ProjectInspection inspection = ProjectInspector.inspect(dir);
        ProjectStep test = step(inspection, "test");
        assertThat(test.generatedTests()).containsExactly(PortablePath.of("dist/math.test.js"));
        assertThat(inspection.snapshot().orElseThrow().sourcePaths())
                .extracting(PortablePath::value)
                .noneMatch(p -> p.startsWith("dist/"));
    }

    @Test
    void everyRefusalIsAProjectCode() {
        Projects.write(dir, Projects.javascript("node --test test/math.test.js"));
        for (String script : List.of(
                "npx x",
                "a && b",
                "A=1 node x.js",
                "node *.js",
                "node \"x.js\"",
                "node --watch x.js",
                "node ../x.js")) {
            Projects.write(dir, Map.of("package.json", Projects.packageJson("test", script)));
            assertThat(refusal(ProjectInspector.inspect(dir), "test").group()).isEqualTo(ErrorGroup.PROJECT);
        }
    }
}
