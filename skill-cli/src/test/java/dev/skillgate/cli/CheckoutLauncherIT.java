package dev.skillgate.cli;

import static dev.skillgate.cli.LauncherProcess.bash;
import static dev.skillgate.cli.LauncherProcess.pathWith;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checkout's own {@code bin/skillgate}, linked onto {@code PATH} as a developer links it: it
 * must find {@code skill-cli/target} through the link, from any working directory. Runs in
 * {@code integration-test}, after {@code package} built the jars it runs.
 */
@EnabledOnOs(OS.LINUX)
class CheckoutLauncherIT {
    @TempDir
    Path fresh;

    @Test
    void linkedOntoPathItRunsFromAnyDirectory() throws IOException {
        Path bin = Files.createDirectory(fresh.resolve("bin"));
        Files.createSymbolicLink(bin.resolve("skillgate"), DistributionIT.CHECKOUT.resolve("bin/skillgate"));

        LauncherProcess.Result version = bash("skillgate --version", fresh, Map.of("PATH", pathWith(bin)));
        assertThat(version.exit()).as(version.toString()).isZero();
        assertThat(version.stdout()).startsWith("skillgate " + DistributionIT.VERSION + " (commit ");

        LauncherProcess.Result validate = bash(
                "skillgate validate "
                        + LauncherProcess.quote(DistributionIT.CHECKOUT.resolve("examples/skills/hello-world")),
                fresh,
                Map.of("PATH", pathWith(bin)));
        assertThat(validate.exit()).as(validate.toString()).isZero();
    }

    @Test
    void linkedOntoPathItRunsTheReadmeMainJob() throws IOException {
        Path bin = Files.createDirectory(fresh.resolve("bin"));
        Path relay = Files.createDirectory(fresh.resolve("relay"));
        Files.createSymbolicLink(relay.resolve("skillgate"), DistributionIT.CHECKOUT.resolve("bin/skillgate"));
        Files.createSymbolicLink(bin.resolve("skillgate"), Path.of("../relay/skillgate"));

        LauncherProcess.Result r =
                bash(DistributionIT.readmeMainJob(), DistributionIT.CHECKOUT, Map.of("PATH", pathWith(bin)));

        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout())
                .contains("status: SUCCEEDED")
                .contains("output: {\"greeting\":\"Hello, Ada!\",\"length\":11}")
                .contains("cleanup: PROVEN");
    }

    private static final String HELLO =
            LauncherProcess.quote(DistributionIT.CHECKOUT.resolve("examples/skills/hello-world"));

    /**
     * Decisions 0824 and 0895: once its archive is made, the README's run takes every Skillgate class
     * from it; one loaded from a jar (a class added to the run path but not to {@code cds-classes.txt},
     * such as the anonymous class that replaces a lambda) opens and verifies that jar on every start.
     */
    @Test
    void theReadmeRunTakesEverySkillgateClassFromTheArchive() throws IOException {
        Path bin = Files.createDirectory(fresh.resolve("bin"));
        Files.createSymbolicLink(bin.resolve("skillgate"), DistributionIT.CHECKOUT.resolve("bin/skillgate"));
        Map<String, String> env = Map.of(
                "PATH", pathWith(bin),
                "XDG_CACHE_HOME", privateCache().toString(),
                "SKILLGATE_JAVA_OPTS", "-Xlog:class+load=info");
        bash(DistributionIT.readmeMainJob(), DistributionIT.CHECKOUT, env);
        LauncherProcess.Result r = bash(DistributionIT.readmeMainJob(), DistributionIT.CHECKOUT, env);
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).contains("status: SUCCEEDED");
        List<String> fromJars = r.stdout()
                .lines()
                .filter(l -> l.contains(" dev.skillgate.") && l.contains(" source: file:"))
                .toList();
        assertThat(fromJars)
                .as("list these classes in skill-cli's cds-classes.txt (decision 0824)")
                .isEmpty();
    }

    /**
     * The launcher runs the class path (decision 0802); the module descriptors are still exercised
     * for real: the same jars on the module path validate the sample and run the README main job.
     */
    @Test
    void theSameJarsStillRunOnTheModulePath() throws IOException {
        Path target = DistributionIT.CHECKOUT.resolve("skill-cli/target");
        String java = LauncherProcess.quote(Path.of(System.getProperty("java.home"), "bin", "java"));
        String modules = java + " --module-path "
                + LauncherProcess.quote(target.resolve("skillgate.jar") + ":" + target.resolve("lib"))
                + " --module dev.skillgate.cli/dev.skillgate.cli.Main";
        Path bin = Files.createDirectory(fresh.resolve("bin"));
        Files.writeString(
                bin.resolve("skillgate"), "#!/usr/bin/env bash\nexport LC_ALL=C.UTF-8\nexec " + modules + " \"$@\"\n");
        assertThat(bin.resolve("skillgate").toFile().setExecutable(true)).isTrue();

        LauncherProcess.Result validate = bash("skillgate validate " + HELLO, fresh, Map.of("PATH", pathWith(bin)));
        assertThat(validate.exit()).as(validate.toString()).isZero();
        assertThat(validate.stdout()).startsWith("Valid skill: ");

        LauncherProcess.Result r =
                bash(DistributionIT.readmeMainJob(), DistributionIT.CHECKOUT, Map.of("PATH", pathWith(bin)));
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout())
                .contains("status: SUCCEEDED")
                .contains("output: {\"greeting\":\"Hello, Ada!\",\"length\":11}")
                .contains("cleanup: PROVEN");
    }

    /**
     * Decision 0803: the first start makes one archive in the user's private cache directory, later
     * starts map it, and the output is the same with and without it.
     */
    @Test
    void theFirstStartMakesAPrivateArchiveThatLaterStartsUse() throws IOException {
        Path cache = privateCache();
        Map<String, String> env = Map.of("XDG_CACHE_HOME", cache.toString());
        LauncherProcess.Result first = bash(LAUNCHER + " validate " + HELLO, fresh, env);
        assertThat(first.exit()).as(first.toString()).isZero();
        List<Path> archives = archives(cache);
        assertThat(archives).hasSize(1);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(archives.get(0)))
                        .substring(3))
                .as("nobody else may change it")
                .doesNotContain("w");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(cache.resolve("skillgate/cds"))))
                .isEqualTo("rwx------");

        LauncherProcess.Result second = bash(LAUNCHER + " validate " + HELLO, fresh, env);
        assertThat(second).isEqualTo(first);
        LauncherProcess.Result off = bash(
                LAUNCHER + " validate " + HELLO,
                fresh,
                Map.of("XDG_CACHE_HOME", cache.toString(), "SKILLGATE_CDS", "off"));
        assertThat(off).isEqualTo(first);
        assertThat(archives(cache)).isEqualTo(archives);

        // With class loading logged (a JVM option, so an archive of its own): classes come from it.
        Map<String, String> logged =
                Map.of("XDG_CACHE_HOME", cache.toString(), "SKILLGATE_JAVA_OPTS", "-Xlog:class+load=info");
        bash(LAUNCHER + " --version", fresh, logged);
        LauncherProcess.Result shared = bash(LAUNCHER + " --version", fresh, logged);
        assertThat(shared.stdout()).contains("dev.skillgate.cli.Main source: shared objects file (top)");
    }

    /**
     * Decision 0887: {@code validate} maps an archive of its own, trained on {@code validate} alone and
     * several times smaller than the one every other command maps ({@code validate --json} included);
     * both are private, both are used by later starts, and the output is the same without either.
     */
    @Test
    void validateMapsASmallerArchiveOfItsOwn() throws IOException {
        Path cache = privateCache();
        Map<String, String> logged =
                Map.of("XDG_CACHE_HOME", cache.toString(), "SKILLGATE_JAVA_OPTS", "-Xlog:class+load=info");
        bash(LAUNCHER + " validate " + HELLO, fresh, logged);
        List<Path> validateOnly = archives(cache);
        assertThat(validateOnly).hasSize(1);
        LauncherProcess.Result validated = bash(LAUNCHER + " validate " + HELLO, fresh, logged);
        assertThat(validated.exit()).as(validated.toString()).isZero();
        assertThat(validated.stdout())
                .contains("Valid skill:")
                .contains("dev.skillgate.cli.Main source: shared objects file (top)");

        bash(LAUNCHER + " validate --json " + HELLO, fresh, logged);
        List<Path> both = archives(cache);
        assertThat(both).hasSize(2).contains(validateOnly.get(0));
        Path full = both.get(both.get(0).equals(validateOnly.get(0)) ? 1 : 0);
        assertThat(Files.size(validateOnly.get(0)) * 3)
                .as("the validate archive holds validate's classes only")
                .isLessThan(Files.size(full));
        for (Path archive : both) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(archive))
                            .substring(3))
                    .doesNotContain("w");
        }
        LauncherProcess.Result json = bash(LAUNCHER + " validate --json " + HELLO, fresh, logged);
        assertThat(json.stdout()).contains("dev.skillgate.cli.Main source: shared objects file (top)");
        bash(LAUNCHER + " --version", fresh, logged);
        assertThat(archives(cache))
                .as("every other command maps the full archive")
                .isEqualTo(both);

        Map<String, String> plain = Map.of("XDG_CACHE_HOME", cache.toString());
        LauncherProcess.Result withArchive = bash(LAUNCHER + " validate " + HELLO, fresh, plain);
        LauncherProcess.Result without = bash(
                LAUNCHER + " validate " + HELLO,
                fresh,
                Map.of("XDG_CACHE_HOME", cache.toString(), "SKILLGATE_CDS", "off"));
        assertThat(withArchive.exit()).as(withArchive.toString()).isZero();
        assertThat(withArchive).isEqualTo(without);
    }

    /**
     * Decisions 0803 and 0887: validate's own archive is held to the same rule as the shared one: made
     * writable by the group (as another user who could then rewrite it would need), it is no longer
     * mapped, and validate gives the same verdict without it.
     */
    @Test
    void aValidateArchiveAnotherUserCouldChangeIsNeverUsed() throws IOException {
        Map<String, String> logged =
                Map.of("XDG_CACHE_HOME", privateCache().toString(), "SKILLGATE_JAVA_OPTS", "-Xlog:class+load=info");
        bash(LAUNCHER + " validate " + HELLO, fresh, logged);
        List<Path> made = archives(fresh.resolve("cache"));
        assertThat(made).hasSize(1);
        assertThat(bash(LAUNCHER + " validate " + HELLO, fresh, logged).stdout())
                .contains("(top)");
        Files.setPosixFilePermissions(made.get(0), PosixFilePermissions.fromString("r--rw-r--"));
        LauncherProcess.Result swapped = bash(LAUNCHER + " validate " + HELLO, fresh, logged);
        assertThat(swapped.exit()).as(swapped.toString()).isZero();
        assertThat(swapped.stdout()).contains("Valid skill:").doesNotContain("(top)");
    }

    /**
     * Decision 0803: an archive someone else could swap is never mapped: a cache directory others
     * may write to gets none, and an archive made writable by the group is ignored.
     */
    @Test
    void anArchiveAnotherUserCouldChangeIsNeverUsed() throws IOException {
        Map<String, String> logged = Map.of("SKILLGATE_JAVA_OPTS", "-Xlog:class+load=info");

        Path open = Files.createDirectory(fresh.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx")); // not sticky
        Map<String, String> env = new java.util.HashMap<>(logged);
        env.put("XDG_CACHE_HOME", open.toString());
        LauncherProcess.Result r = bash(LAUNCHER + " --version", fresh, env);
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).contains("skillgate " + DistributionIT.VERSION).doesNotContain("(top)");
        assertThat(archives(open)).isEmpty();

        Path cache = privateCache();
        env.put("XDG_CACHE_HOME", cache.toString());
        bash(LAUNCHER + " --version", fresh, env);
        List<Path> made = archives(cache);
        assertThat(made).hasSize(1);
        assertThat(bash(LAUNCHER + " --version", fresh, env).stdout()).contains("(top)");
        Files.setPosixFilePermissions(made.get(0), PosixFilePermissions.fromString("r--rw-r--"));
        LauncherProcess.Result swapped = bash(LAUNCHER + " --version", fresh, env);
        assertThat(swapped.exit()).as(swapped.toString()).isZero();
        assertThat(swapped.stdout())
                .contains("skillgate " + DistributionIT.VERSION)
                .doesNotContain("(top)");
    }

    /**
     * Decision 0833: the region checksums are not summed again while the archive is the very file
     * they were checked on; an archive changed in place afterwards (same size, same mode, 4 KiB
     * overwritten in the middle) has a new change time, so its checksums are checked again, and it
     * is refused: the start runs without it and prints the same.
     */
    @Test
    void anArchiveChangedAfterItsCheckIsCheckedAgainAndRefused() throws IOException {
        Path cache = privateCache();
        Map<String, String> env =
                Map.of("XDG_CACHE_HOME", cache.toString(), "SKILLGATE_JAVA_OPTS", "-Xlog:class+load=info");
        bash(LAUNCHER + " --version", fresh, env);
        List<Path> made = archives(cache);
        assertThat(made).hasSize(1);
        LauncherProcess.Result used = bash(LAUNCHER + " --version", fresh, env);
        assertThat(used.stdout()).contains("(top)");

        Path archive = made.get(0);
        var mode = Files.getPosixFilePermissions(archive);
        Files.setPosixFilePermissions(archive, PosixFilePermissions.fromString("rw-------"));
        try (var channel = java.nio.channels.FileChannel.open(archive, java.nio.file.StandardOpenOption.WRITE)) {
            byte[] junk = new byte[4096];
            java.util.Arrays.fill(junk, (byte) 0x5a);
            channel.write(java.nio.ByteBuffer.wrap(junk), channel.size() / 2);
        }
        Files.setPosixFilePermissions(archive, mode);

        LauncherProcess.Result changed = bash(LAUNCHER + " --version", fresh, env);
        assertThat(changed.exit()).as(changed.toString()).isZero();
        assertThat(changed.stdout())
                .contains("skillgate " + DistributionIT.VERSION)
                .doesNotContain("(top)");
    }

    private static final String LAUNCHER = LauncherProcess.quote(DistributionIT.CHECKOUT.resolve("bin/skillgate"));

    /** A cache directory only this user may change, as the launcher's archive rule requires. */
    private Path privateCache() throws IOException {
        return Files.createDirectory(
                fresh.resolve("cache"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }

    private static List<Path> archives(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(p -> p.toString().endsWith(".jsa")).sorted().toList();
        }
    }
}
