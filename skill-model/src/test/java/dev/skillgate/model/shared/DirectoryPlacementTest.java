package dev.skillgate.model.shared;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The StrictModes rule of {@link DirectoryPlacement} on real directories under {@code /tmp} (a
 * root-owned sticky directory): modes, sticky bits, owners (another uid needs root to hand a
 * directory over), links in the path and directories that do not exist yet.
 */
@EnabledOnOs(OS.LINUX)
class DirectoryPlacementTest {
    private static final int OTHER_UID = 2_000_000_000 + new Random().nextInt(100_000_000);

    private Path base;

    @BeforeEach
    void base() throws IOException {
        // Under /tmp itself, so every case also crosses the real root-owned sticky directory.
        base = Files.createTempDirectory(Path.of("/tmp"), "sg-placement-");
    }

    @AfterEach
    void cleanUp() throws IOException {
        try {
            new ProcessBuilder("rm", "-rf", base.toString()).inheritIO().start().waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static boolean root() {
        return DirectoryPlacement.currentUid().equals(Optional.of(0));
    }

    private static Path mode(Path p, int mode) throws IOException {
        Files.setAttribute(p, "unix:mode", mode);
        return p;
    }

    private static Path owner(Path p, int uid) throws IOException {
        Files.setAttribute(p, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
        return p;
    }

    private static Optional<Diagnostic> check(Path p) {
        return DirectoryPlacement.check(p, "data directory");
    }

    private static void assertRefusedAt(Path dir, Path component, String why) {
        Optional<Diagnostic> d = check(dir);
        assertThat(d).as("refused: %s", dir).isPresent();
        assertThat(d.get().code()).isEqualTo(ErrorCode.DATA_DIRECTORY_UNSAFE);
        assertThat(d.get().isError()).isTrue();
        assertThat(d.get().location()).isEqualTo(component.toString());
        assertThat(d.get().message()).contains("data directory " + dir).contains(why);
    }

    @Test
    void aPrivateDirectoryUnderTmpIsAccepted() throws IOException {
        Path data = Files.createDirectory(base.resolve("data"));
        mode(data, 0700);
        assertThat(check(data)).isEmpty();
        // Readable by others is not writable by others.
        mode(data, 0755);
        assertThat(check(data)).isEmpty();
    }

    @Test
    void aMissingTailIsAcceptedWhenWhatExistsIsPrivate() {
        assertThat(check(base.resolve("not/yet/there"))).isEmpty();
    }

    @Test
    void aGroupOrOtherWritableAncestorThatIsNotStickyIsRefused() throws IOException {
        Path shared = Files.createDirectory(base.resolve("shared"));
        Path data = Files.createDirectory(shared.resolve("data"));
        for (int m : new int[] {0775, 0757, 0777, 0770}) {
            mode(shared, m);
            assertRefusedAt(data, shared, "is not a root-owned sticky directory");
            // Nothing may be created below it either.
            assertRefusedAt(shared.resolve("later"), shared, "writable by group or others");
        }
    }

    @Test
    void aStickyDirectoryNotOwnedByRootIsRefused() throws IOException {
        assumeTrue(root(), "only root can hand a directory to another uid");
        Path sticky = owner(mode(Files.createDirectory(base.resolve("sticky")), 01777), OTHER_UID);
        Path data = Files.createDirectory(sticky.resolve("data"));
        assertRefusedAt(data, sticky, "owned by uid " + OTHER_UID);
    }

    @Test
    void aRootOwnedStickyDirectoryDeeperDownIsSharedLikeTmp() throws IOException {
        assumeTrue(root(), "only root creates root-owned directories");
        Path sticky = mode(Files.createDirectory(base.resolve("sticky")), 01777);
        Path data = Files.createDirectory(sticky.resolve("data"));
        assertThat(check(data)).isEmpty();
        // ... and below it, too, every component must be this user's.
        Path theirs = owner(Files.createDirectory(sticky.resolve("theirs")), OTHER_UID);
        assertRefusedAt(
                Files.createDirectory(theirs.resolve("data")), theirs, "below the shared sticky directory " + sticky);
    }

    @Test
    void aComponentBelowTmpOwnedByAnotherUserIsRefused() throws IOException {
        assumeTrue(root(), "only root can hand a directory to another uid");
        Path theirs = owner(mode(Files.createDirectory(base.resolve("theirs")), 0755), OTHER_UID);
        Path data = Files.createDirectory(theirs.resolve("data"));
        assertRefusedAt(data, theirs, "below the shared sticky directory /tmp");
        // The directory itself, when it is another user's.
        Path mine = Files.createDirectory(base.resolve("mine"));
        owner(mine, OTHER_UID);
        assertRefusedAt(mine, mine, "not by this user");
    }

    @Test
    void theDirectoryItselfMustNotBeWritableByOthersEvenWhenSticky() throws IOException {
        Path data = mode(Files.createDirectory(base.resolve("data")), 01777);
        assertRefusedAt(data, data, "writable by group or others (mode 1777)");
        assertRefusedAt(Path.of("/tmp"), Path.of("/tmp"), "writable by group or others");
    }

    @Test
    void aPathThroughAFileIsLeftToTheCallersOwnFailure() throws IOException {
        // Nothing can be created below a file; that is an I/O failure of the caller, not a co-tenant.
        Path file = Files.writeString(base.resolve("file"), "x");
        assertThat(check(file.resolve("data"))).isEmpty();
        assertThat(check(file)).isEmpty();
        // ... but a file below a directory others can write is still below that directory.
        Path shared = mode(Files.createDirectory(base.resolve("shared")), 0777);
        Path inShared = Files.writeString(shared.resolve("file"), "x");
        assertRefusedAt(inShared.resolve("data"), shared, "is not a root-owned sticky directory");
    }

    @Test
    void linksAreResolvedAndEveryDirectoryOnTheirTargetsPathIsChecked() throws IOException {
        Path shared = mode(Files.createDirectory(base.resolve("shared")), 0777);
        Path inShared = Files.createDirectory(shared.resolve("data"));
        Path privateDir = Files.createDirectory(base.resolve("private"));
        Path good = Files.createDirectory(privateDir.resolve("data"));
        Path toShared = Files.createSymbolicLink(privateDir.resolve("to-shared"), inShared);
        Path toGood = Files.createSymbolicLink(privateDir.resolve("to-good"), Path.of("data"));
        // A relative target with .. that climbs out and back in through the shared directory.
        Path climbing = Files.createSymbolicLink(privateDir.resolve("climbing"), Path.of("../shared/data"));
        assertRefusedAt(toShared, shared, "is not a root-owned sticky directory");
        assertRefusedAt(climbing, shared, "is not a root-owned sticky directory");
        assertThat(check(toGood)).isEmpty();
        assertThat(check(good)).isEmpty();
        // A link in the middle of the path, to a private directory, is fine.
        Files.createDirectory(good.resolve("staging"));
        assertThat(check(toGood.resolve("staging"))).isEmpty();
        // A chain of links, the middle one in the shared directory: its directory is checked too.
        Path hop = Files.createSymbolicLink(shared.resolve("hop"), good);
        Path viaHop = Files.createSymbolicLink(privateDir.resolve("via-hop"), hop);
        assertRefusedAt(viaHop, shared, "is not a root-owned sticky directory");
    }

    @Test
    void aLinkOwnedByAnotherUserBelowTmpIsRefused() throws IOException {
        assumeTrue(root(), "only root can hand a link to another uid");
        Path good = Files.createDirectory(base.resolve("good"));
        Path link = Files.createSymbolicLink(Path.of("/tmp").resolve("sg-placement-link-" + OTHER_UID), good);
        try {
            owner(link, OTHER_UID);
            assertRefusedAt(link, link, "below the shared sticky directory /tmp");
        } finally {
            Files.deleteIfExists(link);
        }
    }

    @Test
    void aLinkWhoseTargetClimbsBackToAnAncestorIsJudgedAsTheDirectoryItEndsAt() throws IOException {
        // data -> /tmp/<base>/.. is /tmp itself: world-writable, not this user's data directory.
        Path data =
                Files.createSymbolicLink(base.resolve("data"), base.resolve("x").resolve(".."));
        Files.createDirectory(base.resolve("x"));
        Path link = Files.createSymbolicLink(base.resolve("tmp-itself"), Path.of(base.toString(), ".."));
        assertRefusedAt(link, Path.of("/tmp"), "writable by group or others");
        assertThat(check(data)).as("ends at base, which is private").isEmpty();
    }

    @Test
    void aLinkLoopIsRefused() throws IOException {
        Path a = base.resolve("a");
        Path b = base.resolve("b");
        Files.createSymbolicLink(a, b);
        Files.createSymbolicLink(b, a);
        assertRefusedAt(a, a, "more than " + DirectoryPlacement.MAX_LINKS + " links");
    }

    @Test
    void aRelativePathIsAProgrammingError() {
        assertThatThrownBy(() -> check(Path.of("relative"))).isInstanceOf(IllegalArgumentException.class);
    }
}
