package dev.skillgate.runner.linux.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.runner.SupervisorCapabilities;
import dev.skillgate.runner.linux.LinuxSubreaperSupervisor;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Decision 0891: a helper directory several supervisors share ({@link
 * LinuxSubreaperSupervisor.Builder#helperDirectory}). Real helpers, real probes: supervisors over two
 * data directories start the one file extracted once; a helper directory below a directory others
 * could change is refused before anything is created; a rewritten helper there is refused and kept;
 * a late extraction never replaces the file another install published and holds open.
 */
@EnabledOnOs(OS.LINUX)
class SharedHelperDirectoryTest {
    @TempDir
    Path tmp;

    private static List<Path> files(Path dir) throws Exception {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return List.of();
        }
        try (Stream<Path> all = Files.walk(dir)) {
            return all.filter(Files::isRegularFile).toList();
        }
    }

    private static SupervisorCapabilities prepared(Path data, Path helpers) {
        try (LinuxSubreaperSupervisor s = LinuxSubreaperSupervisor.builder()
                .dataDirectory(data)
                .helperDirectory(helpers)
                .spareHelper(false)
                .build()) {
            return s.capabilities();
        }
    }

    @Test
    void supervisorsOverTwoDataDirectoriesStartTheOneHelperExtractedOnce() throws Exception {
        Path helpers = tmp.resolve("helpers");
        Path a = Files.createDirectory(tmp.resolve("a"));
        Path b = Files.createDirectory(tmp.resolve("b"));
        SupervisorCapabilities first = prepared(a, helpers);
        assertThat(first.available()).as(first.detail()).isTrue();
        List<Path> extracted = files(helpers);
        assertThat(extracted).hasSize(1);
        Object inode = Files.getAttribute(extracted.get(0), "unix:ino", LinkOption.NOFOLLOW_LINKS);

        SupervisorCapabilities second = prepared(b, helpers);
        assertThat(second.available()).as(second.detail()).isTrue();
        assertThat(files(helpers)).isEqualTo(extracted);
        assertThat(Files.getAttribute(extracted.get(0), "unix:ino", LinkOption.NOFOLLOW_LINKS))
                .isEqualTo(inode);
        assertThat(files(a.resolve("supervisor")))
                .as("nothing extracted into a data directory")
                .isEmpty();
        assertThat(files(b.resolve("supervisor"))).isEmpty();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(helpers, LinkOption.NOFOLLOW_LINKS)))
                .isEqualTo("rwx------");
    }

    @Test
    void aHelperDirectoryBelowADirectoryOthersCanWriteIsRefusedBeforeAnythingIsCreated() throws Exception {
        Path open = Files.createDirectory(tmp.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path helpers = open.resolve("helpers");
        Path data = Files.createDirectory(tmp.resolve("data"));
        SupervisorCapabilities refused = prepared(data, helpers);
        assertThat(refused.available()).isFalse();
        assertThat(refused.detail()).startsWith("DATA_DIRECTORY_UNSAFE:").contains(open.toString());
        assertThat(helpers).doesNotExist();
    }

    @Test
    void aFileInTheSharedDirectoryThatIsNotTheShippedHelperIsRefusedAndNotReplaced() throws Exception {
        Path helpers = tmp.resolve("helpers");
        Path data = Files.createDirectory(tmp.resolve("data"));
        assertThat(prepared(data, helpers).available()).isTrue();
        Path helper = files(helpers).get(0);
        // A same-user process rewrites it in place, keeping the name, the size and the mode.
        byte[] bytes = Files.readAllBytes(helper);
        bytes[bytes.length / 2] ^= 1;
        Files.setPosixFilePermissions(helper, PosixFilePermissions.fromString("rwx------"));
        Files.write(helper, bytes);
        Files.setPosixFilePermissions(helper, PosixFilePermissions.fromString("r-x------"));

        SupervisorCapabilities refused = prepared(Files.createDirectory(tmp.resolve("other")), helpers);
        assertThat(refused.available()).isFalse();
        assertThat(refused.detail()).startsWith("SUPERVISOR_TAMPERED:");
        assertThat(Files.readAllBytes(helper)).as("never replaced").isEqualTo(bytes);
    }

    @Test
    void aLateExtractionNeverReplacesTheHelperAnotherInstallPublishedAndHolds() throws Exception {
        // The race of two first runs: both found no helper and extracted one; the first has published
        // its file and opened it to verify and start it. The late one must not swap the name to its
        // own inode: the first one's identity check would then fail (SUPERVISOR_TAMPERED).
        Path data = Files.createDirectory(tmp.resolve("data"));
        Path helpers = tmp.resolve("helpers");
        assertThat(prepared(data, helpers).available()).isTrue();
        Path helper = files(helpers).get(0);
        Object inode = Files.getAttribute(helper, "unix:ino", LinkOption.NOFOLLOW_LINKS);
        byte[] shipped = Files.readAllBytes(helper);
        try (FileChannel held = FileChannel.open(helper, StandardOpenOption.READ)) {
            HelperInstaller.extract(helper.getParent(), helper, shipped);
            assertThat(Files.getAttribute(helper, "unix:ino", LinkOption.NOFOLLOW_LINKS))
                    .as("the published inode keeps its name")
                    .isEqualTo(inode);
            assertThat(files(helpers)).as("the late copy removed").containsExactly(helper);
            assertThat(held.size()).isEqualTo(shipped.length);
        }
        // And the supervisor that holds it still verifies it: a second preparation starts it.
        assertThat(prepared(Files.createDirectory(tmp.resolve("late")), helpers).available())
                .isTrue();
    }

    @Test
    void firstInstallsRacingIntoOneDirectoryAllVerify() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 6; round++) {
                Path helpers = tmp.resolve("race-" + round);
                CountDownLatch go = new CountDownLatch(1);
                List<Future<SupervisorCore>> cores = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    cores.add(pool.submit(() -> {
                        go.await();
                        return SupervisorCore.prepareIn(
                                helpers,
                                Wire.POLICY_PREFER,
                                Wire.POLICY_PREFER,
                                Optional.empty(),
                                HelperLauncher.direct(),
                                false,
                                0);
                    }));
                }
                go.countDown();
                for (Future<SupervisorCore> f : cores) {
                    SupervisorCore core = f.get(60, TimeUnit.SECONDS);
                    assertThat(core.capabilities().available())
                            .as("round " + round + ": " + core.capabilities().detail())
                            .isTrue();
                    core.closeSpare();
                }
                assertThat(files(helpers))
                        .as("one helper, no temporary file left")
                        .hasSize(1);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
