package dev.skillgate.cli;

import static dev.skillgate.cli.LauncherProcess.bash;
import static dev.skillgate.cli.LauncherProcess.pathWith;
import static dev.skillgate.cli.LauncherProcess.quote;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution archive {@code skillgate-<version>.tar.gz} as a stranger uses it: unpacked with
 * {@code tar} into a fresh directory, its launcher linked onto {@code PATH}, then the README's main
 * job and its install steps run through a shell. Runs in {@code integration-test}, after
 * {@code package} made the archive.
 */
@EnabledOnOs(OS.LINUX)
class DistributionIT {
    static final Path ARCHIVE = Path.of(System.getProperty("skillgate.distribution", "target/missing.tar.gz"));
    static final String VERSION = System.getProperty("skillgate.version", "unknown");
    static final Path CHECKOUT = Path.of(System.getProperty("skillgate.checkout", ".."))
            .toAbsolutePath()
            .normalize();

    @TempDir
    Path fresh;

    Path home;

    @BeforeEach
    void unpack() throws IOException {
        assertThat(ARCHIVE).as("the archive `package` builds").isRegularFile();
        Path into = Files.createDirectory(fresh.resolve("unpacked"));
        LauncherProcess.Result tar = bash("tar -xzf " + quote(ARCHIVE) + " -C " + quote(into), fresh, Map.of());
        assertThat(tar.exit()).as(tar.toString()).isZero();
        try (Stream<Path> top = Files.list(into)) {
            assertThat(top.map(p -> p.getFileName().toString()))
                    .as("one top-level directory")
                    .containsExactly("skillgate-" + VERSION);
        }
        home = into.resolve("skillgate-" + VERSION);
    }

    @Test
    void theArchiveHoldsTheLauncherTheJarsTheHelperTheSamplesReadmeAndLicence() throws IOException {
        Path launcher = home.resolve("bin/skillgate");
        assertThat(launcher).isRegularFile();
        assertThat(LauncherProcess.ownerExecutable(launcher)).isTrue();
        assertThat(Files.readAllBytes(launcher)).isEqualTo(Files.readAllBytes(CHECKOUT.resolve("bin/skillgate")));
        for (String doc : List.of("README.md", "LICENSE", "NOTICE", "CHANGELOG.md", "SECURITY.md")) {
            assertThat(Files.readAllBytes(home.resolve(doc)))
                    .as(doc)
                    .isEqualTo(Files.readAllBytes(CHECKOUT.resolve(doc)));
        }
        assertThat(home.resolve("examples/skills/hello-world/SKILL.md")).isRegularFile();
        assertThat(home.resolve("lib/skillgate.jar")).isRegularFile();
        try (Stream<Path> lib = Files.list(home.resolve("lib"))) {
            assertThat(lib.map(p -> p.getFileName().toString()))
                    .contains(
                            "skill-model-" + VERSION + ".jar",
                            "skill-engine-" + VERSION + ".jar",
                            "skill-runner-linux-supervisor-" + VERSION + ".jar")
                    .allMatch(name -> name.endsWith(".jar"));
        }
        String helper = "dev/skillgate/runner/linux/" + platform() + "/skillgate-supervisor";
        try (JarFile jar = new JarFile(home.resolve("lib/skill-runner-linux-supervisor-" + VERSION + ".jar")
                .toFile())) {
            assertThat(jar.getEntry(helper))
                    .as("the helper built for this machine's architecture")
                    .isNotNull();
            assertThat(jar.getEntry(helper + ".sha256")).isNotNull();
        }
    }

    @Test
    void unpackedAndLinkedOntoPathItRunsTheReadmeMainJob() throws IOException {
        Path bin = Files.createDirectory(fresh.resolve("bin"));
        Files.createSymbolicLink(bin.resolve("skillgate"), home.resolve("bin/skillgate"));

        LauncherProcess.Result r = bash(readmeMainJob(), home, Map.of("PATH", pathWith(bin)));

        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout())
                .contains("==== Skillgate approval request ====")
                .contains("status: SUCCEEDED")
                .contains("output: {\"greeting\":\"Hello, Ada!\",\"length\":11}")
                .contains("cleanup: PROVEN");
    }

    @Test
    void aChainOfRelativeAndAbsoluteLinksStillFindsTheJars() throws IOException {
        Path elsewhere = Files.createDirectories(fresh.resolve("tools/skillgate-current"));
        Files.createSymbolicLink(elsewhere.resolve("sg"), home.resolve("bin/skillgate"));
        Path bin = Files.createDirectory(fresh.resolve("bin"));
        Files.createSymbolicLink(bin.resolve("skillgate"), Path.of("../tools/skillgate-current/sg"));
        Path cwd = Files.createDirectory(fresh.resolve("somewhere-else"));

        LauncherProcess.Result r = bash("skillgate --version", cwd, Map.of("PATH", pathWith(bin)));

        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).startsWith("skillgate " + VERSION + " (commit ");
    }

    @Test
    void oneCompilerThreadByDefaultAndTheJvmsOwnWhenTheUserChoosesTheCompilers() throws IOException {
        // Decision 0892: -XX:CICompilerCount=1 by default; a user's -XX:TieredStopAtLevel=4 brings C2
        // back, with which the JVM refuses a count below two, so the launcher leaves the count to it.
        Path bin = Files.createDirectory(fresh.resolve("bin"));
        Files.createSymbolicLink(bin.resolve("skillgate"), home.resolve("bin/skillgate"));
        String flags = "-XX:+PrintFlagsFinal";
        LauncherProcess.Result byDefault =
                bash("skillgate --version", fresh, Map.of("PATH", pathWith(bin), "SKILLGATE_JAVA_OPTS", flags));
        assertThat(byDefault.exit()).as(byDefault.toString()).isZero();
        assertThat(byDefault.stdout()).containsPattern("CICompilerCount += 1 +\\{product\\} \\{command line\\}");
        LauncherProcess.Result withC2 = bash(
                "skillgate --version",
                fresh,
                Map.of("PATH", pathWith(bin), "SKILLGATE_JAVA_OPTS", flags + " -XX:TieredStopAtLevel=4"));
        assertThat(withC2.exit()).as(withC2.toString()).isZero();
        assertThat(withC2.stdout())
                .contains("skillgate " + VERSION)
                .containsPattern("CICompilerCount += [2-9][0-9]* +\\{product\\} \\{ergonomic\\}");
    }

    @Test
    void javaHomeSelectsTheJvmAndSkillgateJavaOptsReachItAfterTheDefaults() throws IOException {
        // A JAVA_HOME whose java only reports the argv it was given.
        Path fakeJavaHome =
                Files.createDirectories(fresh.resolve("fake-jdk/bin")).getParent();
        Path fakeJava = Files.writeString(
                fakeJavaHome.resolve("bin/java"), "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n");
        assertThat(fakeJava.toFile().setExecutable(true)).isTrue();
        Path bin = Files.createDirectory(fresh.resolve("bin"));
        Files.createSymbolicLink(bin.resolve("skillgate"), home.resolve("bin/skillgate"));

        LauncherProcess.Result r = bash(
                "skillgate --version 'two words'",
                fresh,
                Map.of(
                        "PATH", pathWith(bin),
                        "JAVA_HOME", fakeJavaHome.toString(),
                        "SKILLGATE_JAVA_OPTS", "  -Xmx96m   -Dskillgate.probe=*  "));

        assertThat(r.exit()).as(r.toString()).isZero();
        List<String> argv = r.stdout().lines().toList();
        assertThat(argv)
                .containsSubsequence("-XX:TieredStopAtLevel=1", "-Xmx96m", "-Dskillgate.probe=*", "-cp")
                .endsWith("dev.skillgate.cli.Main", "--version", "two words");
        // The class path (decision 0802): skillgate.jar first, then every jar of lib/ in byte order.
        String classPath = argv.get(argv.indexOf("-cp") + 1);
        List<String> expected = new java.util.ArrayList<>();
        expected.add(home.resolve("lib/skillgate.jar").toString());
        try (Stream<Path> lib = Files.list(home.resolve("lib"))) {
            lib.map(Path::toString)
                    .filter(p -> p.endsWith(".jar") && !p.endsWith("/skillgate.jar"))
                    .sorted()
                    .forEach(expected::add);
        }
        assertThat(List.of(classPath.split(":"))).containsExactlyElementsOf(expected);

        // `validate` runs on G1 (decision 0862): the collector options come after the defaults and
        // before the user's, so a collector the user names is theirs and nothing is added then.
        Map<String, String> fake = Map.of("PATH", pathWith(bin), "JAVA_HOME", fakeJavaHome.toString());
        List<String> validateArgv = bash("skillgate validate some-dir", fresh, fake)
                .stdout()
                .lines()
                .toList();
        assertThat(validateArgv)
                .containsSubsequence("-XX:+UseSerialGC", "-XX:-UseSerialGC", "-XX:+UseG1GC", "-cp")
                .endsWith("dev.skillgate.cli.Main", "validate", "some-dir");
        assertThat(argv).doesNotContain("-XX:+UseG1GC", "-XX:-UseSerialGC");
        List<String> runArgv =
                bash("skillgate run validate", fresh, fake).stdout().lines().toList();
        assertThat(runArgv).contains("-XX:+UseSerialGC").doesNotContain("-XX:+UseG1GC", "-XX:-UseSerialGC");
        Map<String, String> ownGc = new java.util.HashMap<>(fake);
        ownGc.put("SKILLGATE_JAVA_OPTS", "-XX:-UseSerialGC -XX:+UseParallelGC");
        List<String> ownGcArgv = bash("skillgate validate some-dir", fresh, ownGc)
                .stdout()
                .lines()
                .toList();
        assertThat(ownGcArgv)
                .containsSubsequence("-XX:+UseSerialGC", "-XX:-UseSerialGC", "-XX:+UseParallelGC", "-cp")
                .doesNotContain("-XX:+UseG1GC");

        // The real JVM of this build, named by JAVA_HOME, with an option it must honour.
        LauncherProcess.Result real = bash(
                "skillgate --version",
                fresh,
                Map.of(
                        "PATH", pathWith(bin),
                        "JAVA_HOME", System.getProperty("java.home"),
                        "SKILLGATE_JAVA_OPTS", "-XshowSettings:properties"));
        assertThat(real.exit()).as(real.toString()).isZero();
        assertThat(real.stdout()).startsWith("skillgate " + VERSION);
        assertThat(real.stderr()).contains("java.home = " + System.getProperty("java.home"));

        LauncherProcess.Result broken =
                bash("skillgate --version", fresh, Map.of("PATH", pathWith(bin), "JAVA_HOME", "/nonexistent/jdk"));
        assertThat(broken.exit()).isEqualTo(2);
        assertThat(broken.stderr()).contains("JAVA_HOME is /nonexistent/jdk").contains("not an executable");
    }

    @Test
    void theReadmeInstallStepsPutTheCommandOnPath() throws IOException {
        Path user = Files.createDirectory(fresh.resolve("home"));
        String steps = readmeBlock("install");
        LauncherProcess.Result r =
                bash(steps, CHECKOUT, Map.of("HOME", user.toString(), "PATH", pathWith(user.resolve(".local/bin"))));
        assertThat(r.exit()).as(steps + "\n" + r).isZero();
        assertThat(r.stdout()).contains("skillgate " + VERSION + " (commit ");
        assertThat(user.resolve(".local/bin/skillgate")).isSymbolicLink();
    }

    /** The README's main job without the build: everything after {@code &&}, run from PATH. */
    static String readmeMainJob() throws IOException {
        String command = readmeBlock("main-job");
        int and = command.indexOf("&& ");
        assertThat(and).as("the main job follows the build: " + command).isPositive();
        String job = command.substring(and + 3).strip();
        assertThat(job).contains("bin/skillgate run examples/skills/hello-world");
        return job.replace("bin/skillgate ", "skillgate ");
    }

    /** The first {@code sh} block after {@code <!-- tested: NAME -->} in the README. */
    static String readmeBlock(String name) throws IOException {
        String readme = Files.readString(CHECKOUT.resolve("README.md"), StandardCharsets.UTF_8);
        Matcher m = Pattern.compile(
                        "<!-- tested: " + Pattern.quote(name) + " [^>]*-->\\s*```sh\\n(.*?)```", Pattern.DOTALL)
                .matcher(readme);
        assertThat(m.find())
                .as("README block marked <!-- tested: " + name + " … -->")
                .isTrue();
        return m.group(1);
    }

    static String platform() {
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        return "linux-" + (arch.equals("amd64") ? "x86_64" : arch.equals("arm64") ? "aarch64" : arch);
    }
}
