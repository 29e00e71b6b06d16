package dev.skillgate.model.shared;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The rules that only differ from root's view when the process is an ordinary user: a sticky
 * directory the user owns is no exception, a root-owned component below {@code /tmp} is not the
 * user's, root-owned ancestors elsewhere are fine, and a data directory root owns is not the user's.
 * The check runs in a child JVM started as an unused uid through {@code setpriv} (needs root), on
 * directories this test prepared and handed over.
 */
@EnabledOnOs(OS.LINUX)
class DirectoryPlacementAsAnotherUserTest {
    private static final Path SETPRIV = Path.of("/usr/bin/setpriv");
    private static final int USER = 2_000_000_000 + 5_151 + new java.util.Random().nextInt(1_000);

    private Path base;

    @BeforeEach
    void base() throws IOException {
        assumeTrue(
                DirectoryPlacement.currentUid().equals(Optional.of(0)) && Files.isExecutable(SETPRIV),
                "needs root and setpriv to run the check as another user");
        base = Files.createTempDirectory(Path.of("/tmp"), "sg-asuser-");
        mode(base, 0755);
    }

    @AfterEach
    void cleanUp() throws Exception {
        if (base != null) {
            new ProcessBuilder("rm", "-rf", base.toString()).start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static boolean everyoneCanEnter(Path dir) throws IOException {
        for (Path p = dir; p != null; p = p.getParent()) {
            int mode = (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            if ((mode & 01) == 0) {
                return false;
            }
        }
        return true;
    }

    private static Path mode(Path p, int mode) throws IOException {
        Files.setAttribute(p, "unix:mode", mode);
        return p;
    }

    private static Path mine(Path p) throws IOException {
        Files.setAttribute(p, "unix:uid", USER, LinkOption.NOFOLLOW_LINKS);
        return p;
    }

    /**
     * A copy of this module's classes the other user can read: the checkout itself may sit in a
     * directory only its owner can enter (a fresh clone under a 0700 temporary directory).
     */
    private Path readableCopy(Path classes) throws IOException {
        Path copy = base.resolve("cp").resolve(classes.getFileName());
        if (Files.isDirectory(copy, LinkOption.NOFOLLOW_LINKS)) {
            return copy;
        }
        mode(Files.createDirectories(copy), 0755);
        try (var walk = Files.walk(classes)) {
            for (Path from : (Iterable<Path>) walk::iterator) {
                Path to = copy.resolve(classes.relativize(from).toString());
                if (Files.isDirectory(from, LinkOption.NOFOLLOW_LINKS)) {
                    mode(Files.createDirectories(to), 0755);
                } else if (Files.isRegularFile(from, LinkOption.NOFOLLOW_LINKS)) {
                    mode(Files.copy(from, to), 0644);
                }
            }
        }
        return copy;
    }

    /** The verdict lines of the child, one per path, after its "uid" line. */
    private List<String> checkAsUser(Path... paths) throws Exception {
        mode(Files.createDirectories(base.resolve("cp")), 0755);
        List<String> cmd = new ArrayList<>(List.of(
                SETPRIV.toString(),
                "--reuid=" + USER,
                "--regid=" + USER,
                "--clear-groups",
                "--",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xshare:off",
                "-cp",
                readableCopy(Path.of("target", "classes").toAbsolutePath())
                        + File.pathSeparator
                        + readableCopy(Path.of("target", "test-classes").toAbsolutePath()),
                PlacementProbe.class.getName()));
        for (Path p : paths) {
            cmd.add(p.toString());
        }
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().clear();
        pb.directory(new File("/"));
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        List<String> lines = out.lines().toList();
        assertThat(lines.get(0)).as(out).isEqualTo("uid " + USER);
        return lines.subList(1, lines.size());
    }

    @Test
    void asAnOrdinaryUserOnlyRootsStickyDirectoriesAreSharedAndEverythingBelowMustBeTheUsers() throws Exception {
        Path own = mine(mode(Files.createDirectory(base.resolve("own")), 0700));
        Path ownData = mine(Files.createDirectory(own.resolve("data")));
        Path ownSticky = mine(mode(Files.createDirectory(base.resolve("own-sticky")), 01777));
        Path inOwnSticky = mine(Files.createDirectory(ownSticky.resolve("data")));
        Path rootsDir = mode(Files.createDirectory(base.resolve("roots")), 0755);
        Path inRoots = mine(Files.createDirectory(rootsDir.resolve("data")));
        Path rootsData = mode(Files.createDirectory(own.resolve("roots-data")), 0755);
        // base is root's and directly below /tmp: everything here is below the shared sticky /tmp.
        List<String> v = checkAsUser(ownData, inOwnSticky, inRoots, rootsData);
        assertThat(v.get(0))
                .startsWith("REFUSED " + ownData + " at " + base + " |")
                .contains("is owned by uid 0, below the shared sticky directory /tmp");
        assertThat(v.get(1)).startsWith("REFUSED " + inOwnSticky + " at " + base + " |");
        assertThat(v.get(2)).startsWith("REFUSED " + inRoots + " at " + base + " |");
        assertThat(v.get(3)).startsWith("REFUSED " + rootsData + " at " + base + " |");
        // Handed to the user, base is fine; then the components below it decide.
        mine(base);
        v = checkAsUser(ownData, inOwnSticky, inRoots, rootsData);
        assertThat(v.get(0)).isEqualTo("OK " + ownData);
        assertThat(v.get(1))
                .startsWith("REFUSED " + inOwnSticky + " at " + ownSticky + " |")
                .contains("is not a root-owned sticky directory");
        assertThat(v.get(2))
                .startsWith("REFUSED " + inRoots + " at " + rootsDir + " |")
                .contains("below the shared sticky directory /tmp");
        assertThat(v.get(3))
                .startsWith("REFUSED " + rootsData + " at " + rootsData + " |")
                .contains("not by this user");
    }

    @Test
    void rootOwnedAncestorsOutsideASharedStickyDirectoryAreFine() throws Exception {
        // Root's directories, 0755, not below /tmp: the module's own target directory, or /var/lib when
        // the checkout is itself below /tmp or in a directory the other user cannot enter.
        Path target = Path.of("target").toAbsolutePath();
        Path parent = target.startsWith("/tmp") || !everyoneCanEnter(target) ? Path.of("/var/lib") : target;
        Path outside = Files.createTempDirectory(parent, "sg-asuser-");
        try {
            mode(outside, 0755);
            Path data = mine(mode(Files.createDirectory(outside.resolve("data")), 0700));
            List<String> v = checkAsUser(data);
            assertThat(v.get(0)).isEqualTo("OK " + data);
        } finally {
            new ProcessBuilder("rm", "-rf", outside.toString()).start().waitFor(30, TimeUnit.SECONDS);
        }
    }
}
