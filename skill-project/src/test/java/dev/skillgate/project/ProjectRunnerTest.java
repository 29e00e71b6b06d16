package dev.skillgate.project;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.model.CleanupStatus;
import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.ExecutionStatus;
import dev.skillgate.model.ProcessExit;
import dev.skillgate.model.RuntimeIdentity;
import dev.skillgate.model.Sha256Digest;
import dev.skillgate.runner.NodeRuntime;
import dev.skillgate.runner.linux.LinuxSubreaperSupervisor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real fixture projects run end to end with the real node under the real Linux subreaper supervisor. */
class ProjectRunnerTest {
    @TempDir
    Path temp;

    private Path data;
    private NodeRuntime node;
    private ProjectRunner runner;
    private NodeRuntime.Verified verified;

    @BeforeEach
    void setUp() throws IOException {
        data = Files.createDirectories(temp.resolve("data"));
        node = FixtureProjects.node();
        runner = ProjectRunner.of(
                data,
                node,
                LinuxSubreaperSupervisor.builder().dataDirectory(data).build());
        verified = (NodeRuntime.Verified) node.verify();
    }

    private ProjectPlan plan(Path project, String... scripts) {
        ProjectPlan.Selection s = ProjectPlan.select(
                ProjectInspector.inspect(project),
                List.of(scripts),
                verified.identity(),
                verified.major(),
                verified.minor());
        assertThat(s).as("%s", s).isInstanceOf(ProjectPlan.Planned.class);
        return ((ProjectPlan.Planned) s).plan();
    }

    private static List<ErrorCode> codes(ProjectEnvelope e) {
        return e.errors().stream()
                .filter(Diagnostic::isError)
                .map(Diagnostic::code)
                .toList();
    }

    @Test
    void theJavaScriptFixturesPassingTestsSucceedWithProvenCleanup() {
        Path project = FixtureProjects.copy("js-node-test", temp.resolve("js"));
        ProjectEnvelope e = runner.run(FixtureProjects.run(), plan(project, "test"));

        assertThat(e.status()).as("%s", e).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(e.cleanup()).isEqualTo(CleanupStatus.PROVEN);
        assertThat(e.retainedStaging()).isEmpty();
        StepResult test = e.step("test").orElseThrow();
        assertThat(test.exit()).isEqualTo(ProcessExit.code(0));
        assertThat(test.proof()).isEqualTo("ECHILD");
        assertThat(test.tests()).contains(new TestSummary(3, 3, 0, 0, 0, 0));
        assertThat(test.argv())
                .startsWith(node.executable().toString())
                .endsWith("--test", "test/math.test.js", "test/strings.test.mjs");
        assertThat(data.resolve("projects")).isEmptyDirectory();
    }

    @Test
    void aFailingTestIsAFailedStepWithItsCounts() {
        Path project = FixtureProjects.copy("js-node-test", temp.resolve("js"));
        ProjectEnvelope e = runner.run(FixtureProjects.run(), plan(project, "test:failing"));

        assertThat(e.status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(codes(e)).containsExactly(ErrorCode.EXEC_NONZERO_EXIT);
        assertThat(e.cleanup()).isEqualTo(CleanupStatus.PROVEN);
        StepResult test = e.step("test:failing").orElseThrow();
        assertThat(test.exit()).isEqualTo(ProcessExit.code(1));
        assertThat(test.tests()).contains(new TestSummary(3, 2, 1, 0, 0, 0));
    }

    @Test
    void theTypeScriptFixtureIsBuiltByThePinnedCompilerThenTested() {
        Path project = FixtureProjects.typescriptProject(temp.resolve("ts"));
        ProjectPlan plan = plan(project, "build", "test");
        assertThat(plan.argv().get(0)).endsWith("--", "node_modules/typescript/bin/tsc", "--project", "tsconfig.json");
        ProjectEnvelope e = runner.run(FixtureProjects.run(), plan);

        assertThat(e.status()).as("%s", e.steps()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(e.steps()).extracting(StepResult::script).containsExactly("build", "test");
        assertThat(e.step("build").orElseThrow().exit()).isEqualTo(ProcessExit.code(0));
        assertThat(e.step("test").orElseThrow().tests()).contains(new TestSummary(1, 1, 0, 0, 0, 0));
        // The build wrote into the staged copy only: the project itself has no dist/.
        assertThat(project.resolve("dist")).doesNotExist();
    }

    @Test
    void aBuildThenTestSequenceRecordsBothResults() {
        Path project = FixtureProjects.copy("build-then-test", temp.resolve("btt"));
        ProjectEnvelope e = runner.run(FixtureProjects.run(), plan(project, "build", "test"));

        assertThat(e.status()).as("%s", e.steps()).isEqualTo(ExecutionStatus.SUCCEEDED);
        assertThat(e.step("build").orElseThrow().stdout()).contains("generated dist/generated.test.js");
        assertThat(e.step("test").orElseThrow().tests()).contains(new TestSummary(1, 1, 0, 0, 0, 0));
    }

    @Test
    void aGeneratedTestTheBuildDidNotLeaveIsRefusedBeforeTheTestRuns() {
        Path project = FixtureProjects.copy("build-then-test", temp.resolve("btt"));
        Projects.write(project, Map.of("build.js", "console.log('forgot to generate');\n"));
        ProjectEnvelope e = runner.run(FixtureProjects.run(), plan(project, "build", "test"));

        assertThat(e.status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(codes(e)).containsExactly(ErrorCode.PROJECT_OUTPUT_INVALID);
        assertThat(e.steps()).extracting(StepResult::script).containsExactly("build");
    }

    @Test
    void aGeneratedLinkInTheOutputIsRefused() {
        Path project = FixtureProjects.copy("build-then-test", temp.resolve("btt"));
        Projects.write(
                project,
                Map.of(
                        "build.js",
                        "const fs = require('node:fs');\nfs.symlinkSync('/etc/passwd', 'dist/generated.test.js');\n"));
        ProjectEnvelope e = runner.run(FixtureProjects.run(), plan(project, "build", "test"));
        assertThat(codes(e)).containsExactly(ErrorCode.PROJECT_OUTPUT_INVALID);
        assertThat(e.steps()).hasSize(1);
    }

    @Test
    void aBuildThatChangesTheStagedInputsStopsTheTestBeforeItStarts() {
        Path project = FixtureProjects.copy("build-then-test", temp.resolve("btt"));
        Projects.write(
                project,
                Map.of(
                        "build.js",
                        String.join(
                                "\n",
                                "const fs = require('node:fs');",
                                "fs.chmodSync('src', 0o700);",
                                "fs.chmodSync('src/greet.js', 0o600);",
                                "fs.writeFileSync('src/greet.js', 'exports.greet = () => \"patched\";');",
                                "fs.writeFileSync('dist/generated.test.js', 'require(\"node:test\")(\"x\", () => {});');",
                                "")));
        ProjectEnvelope e = runner.run(FixtureProjects.run(), plan(project, "build", "test"));

        assertThat(codes(e)).containsExactly(ErrorCode.STAGING_TAMPERED);
        StepResult test = e.step("test").orElseThrow();
        assertThat(test.exit()).isEqualTo(ProcessExit.notObserved());
        assertThat(e.cleanup()).isEqualTo(CleanupStatus.PROVEN);
    }

    @Test
    void aDetachedDescendantOfNodeTestFailsTheRunWithProvenCleanupAndNoSurvivor() {
        Path project = FixtureProjects.copy("detached", temp.resolve("detached"));
        ProjectEnvelope e = runner.run(FixtureProjects.run(), plan(project, "test"));

        assertThat(e.status()).isEqualTo(ExecutionStatus.FAILED);
        assertThat(codes(e)).contains(ErrorCode.DETACHED_DESCENDANTS).doesNotContain(ErrorCode.CLEANUP_UNKNOWN);
        StepResult test = e.step("test").orElseThrow();
        assertThat(test.detachedSeen()).isTrue();
        assertThat(test.cleanupProven()).isTrue();
        assertThat(e.cleanup()).isEqualTo(CleanupStatus.PROVEN);
        assertThat(FixtureProjects.processesWith("skillgate-project-detached-fixture"))
                .isEmpty();
    }

    @Test
    void theEnvironmentIsTheFixedFourWithAJobLocalHome() {
        Path project = Projects.write(
                temp.resolve("env"),
                Map.of(
                        "package.json",
                        Projects.packageJson("test", "node test/env.js"),
                        "test/env.js",
                        "console.log('ENV ' + JSON.stringify(process.env));\n"));
        ProjectEnvelope e = runner.run(FixtureProjects.run(), plan(project, "test"));
        assertThat(e.status()).as("%s", e).isEqualTo(ExecutionStatus.SUCCEEDED);
        String out = e.step("test").orElseThrow().stdout();
        assertThat(out).contains("\"PATH\":\"/usr/bin:/bin\"").contains("\"LANG\":\"C.UTF-8\"");
        assertThat(out).contains("\"HOME\":\"" + data.resolve("projects"));
        assertThat(out)
                .doesNotContain("NODE_OPTIONS")
                .doesNotContain("npm_config")
                .doesNotContain("JAVA_HOME");
        assertThat(out.substring(out.indexOf('{')))
                .satisfies(json -> assertThat(json.split("\":").length - 1).isEqualTo(4));
    }

    @Test
    void aLockfileChangedAfterPlanningIsRefusedBeforeAnythingRuns() throws IOException {
        Path project = FixtureProjects.copy("js-node-test", temp.resolve("js"));
        Path marker = temp.resolve("marker");
        Projects.write(
                project,
                Map.of(
                        "test/marker.test.js",
                        "require('node:fs').writeFileSync(" + jsString(marker.toString()) + ", 'ran');\n"));
        Projects.write(
                project, Map.of("package.json", Projects.packageJson("test", "node --test test/marker.test.js")));
        ProjectPlan plan = plan(project, "test");
        Files.writeString(
                project.resolve("package-lock.json"),
                Files.readString(project.resolve("package-lock.json")).replace("1.0.0", "1.0.1"));

        ProjectEnvelope e = runner.run(FixtureProjects.run(), plan);
        assertThat(e.status()).isEqualTo(ExecutionStatus.REFUSED);
        assertThat(codes(e)).containsExactly(ErrorCode.PROJECT_INPUT_CHANGED);
        assertThat(marker).doesNotExist();
        assertThat(e.cleanup()).isEqualTo(CleanupStatus.NOT_STARTED);
    }

    @Test
    void aScriptRewrittenAfterPlanningIsRefused() {
        Path project = FixtureProjects.copy("js-node-test", temp.resolve("js"));
        Path marker = temp.resolve("marker");
        ProjectPlan plan = plan(project, "test");
        Projects.write(
                project,
                Map.of(
                        "package.json",
                        Projects.packageJson("test", "node --test test/evil.test.js"),
                        "test/evil.test.js",
                        "require('node:fs').writeFileSync(" + jsString(marker.toString()) + ", 'ran');\n"));

        ProjectEnvelope e = runner.run(FixtureProjects.run(), plan);
        assertThat(codes(e)).containsExactly(ErrorCode.PROJECT_INPUT_CHANGED);
        assertThat(marker).doesNotExist();
    }

    @Test
    void aBinLinkOrADependencyFileSwappedAfterPlanningIsRefused() throws IOException {
        Path project = FixtureProjects.typescriptProject(temp.resolve("ts"));
        ProjectPlan plan = plan(project, "build", "test");
        Path link = project.resolve("node_modules/.bin/tsc");
        Files.delete(link);
        Files.createSymbolicLink(link, Path.of("../typescript/bin/tsserver"));
        assertThat(codes(runner.run(FixtureProjects.run(), plan))).containsExactly(ErrorCode.PROJECT_INPUT_CHANGED);

        Files.delete(link);
        Files.createSymbolicLink(link, Path.of("../typescript/bin/tsc"));
        assertThat(ProjectInspector.inspect(project).snapshot().orElseThrow().digests())
                .isEqualTo(plan.inputs());
        Path tscJs = project.resolve("node_modules/typescript/lib/tsc.js");
        Files.writeString(tscJs, Files.readString(tscJs) + "\n// patched\n");
        assertThat(codes(runner.run(FixtureProjects.run(), plan))).containsExactly(ErrorCode.PROJECT_INPUT_CHANGED);
    }

    @Test
    void anotherToolchainThanTheApprovedOneIsRefused() {
        Path project = FixtureProjects.copy("js-node-test", temp.resolve("js"));
        ProjectPlan plan = plan(project, "test");
        RuntimeIdentity other = new RuntimeIdentity(
                plan.runtime().executable(), plan.runtime().version(), Optional.of(Sha256Digest.hash(new byte[] {1})));
        ProjectPlan forOther = new ProjectPlan(
                plan.project(),
                plan.outputDirectory(),
                plan.inputs(),
                plan.revision(),
                plan.steps(),
                other,
                plan.argv(),
                plan.digest());
        assertThat(codes(runner.run(FixtureProjects.run(), forOther))).containsExactly(ErrorCode.PROJECT_INPUT_CHANGED);
    }

    private static String jsString(String s) {
        return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
}
