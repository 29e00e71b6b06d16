package dev.skillgate.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Sha256Digest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * Decision 0828: a pinned {@code node} the running user may write is hashed on every verification,
 * because a second process can change its bytes through a {@code MAP_SHARED} mapping without moving
 * any part of its file identity. The attack is real here: a copy of the real node on tmpfs ({@code
 * /dev/shm}, which never updates timestamps for stores through a mapping), a second JVM that maps it
 * read-write and flips one byte, and a check that the identity did not move while the bytes did.
 *
 * <p>The surefire JVM runs as root, for whom the rule does not apply (root can rewrite anything); the
 * copy is therefore handed to an unused uid and the runtime judges "writable by the running user" for
 * that uid. A second runtime that judges for yet another uid (one that could not have written the
 * file) keeps the identity rule and is, by construction, fooled: that is the control showing the rule
 * is what catches the change.
 */
@EnabledOnOs(OS.LINUX)
class NodeRuntimeSharedMappingAttackTest {
    private static final Path SHM = Path.of("/dev/shm");
    private static final Duration SHORT_SETTLE = Duration.ofMillis(100);
    private static final int OWNER = 2_000_000_000 + 8_280 + new java.util.Random().nextInt(1_000);

    private Path dir;

    @BeforeEach
    void tmpfs() throws IOException {
        assumeTrue(
                Files.isDirectory(SHM)
                        && Files.isWritable(SHM)
                        && "tmpfs".equals(Files.getFileStore(SHM).type()),
                "needs a writable tmpfs at /dev/shm");
        dir = Files.createTempDirectory(SHM, "sg-node-");
    }

    @AfterEach
    void cleanUp() throws Exception {
        if (dir != null) {
            new ProcessBuilder("rm", "-rf", dir.toString()).start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static int uid(Path p) throws IOException {
        return (Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
    }

    private static Object stamp(Path p) throws IOException {
        return Files.readAttributes(p, "unix:dev,ino,size,lastModifiedTime,ctime,mode,uid", LinkOption.NOFOLLOW_LINKS);
    }

    /** Flips the byte at {@code offset} of {@code file} through a shared read-write mapping, in another process. */
    private void storeThroughASharedMapping(Path file, long offset) throws Exception {
        Path source = Files.writeString(dir.resolve("Store.java"), """
                import java.nio.MappedByteBuffer;
                import java.nio.channels.FileChannel;
                import java.nio.file.Path;
                import java.nio.file.StandardOpenOption;

                public class Store {
                    public static void main(String[] a) throws Exception {
                        try (FileChannel ch = FileChannel.open(
                                Path.of(a[0]), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                            int at = Integer.parseInt(a[1]);
                            MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, at, 1);
                            m.put(0, (byte) (m.get(0) ^ 1));
                        }
                        System.out.println("stored");
                    }
                }
                """);
        ProcessBuilder pb = new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xshare:off",
                source.toString(),
                file.toString(),
                Long.toString(offset));
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(out).as(out).contains("stored");
        assertThat(p.exitValue()).isZero();
    }

    @Test
    void aNodeTheRunningUserMayWriteIsHashedEveryTimeSoAStoreThroughASharedMappingIsCaught() throws Exception {
        Path node = ownedCopyOfNode(dir);
        int owner = uid(node);
        Sha256Digest pinned = Sha256Digest.hash(Files.readAllBytes(node));
        String version = TestSupport.nodeVersion();
        NodeRuntime mine = NodeRuntime.pin(node, version, Optional.of(pinned), SHORT_SETTLE, Optional.of(owner));
        NodeRuntime other = NodeRuntime.pin(node, version, Optional.of(pinned), SHORT_SETTLE, Optional.of(owner + 1));

        // The owner's runtime never reuses an answer; the other uid's keeps the identity rule.
        for (int i = 0; i < 2; i++) {
            assertThat(mine.verify()).isInstanceOf(NodeRuntime.Verified.class);
            assertThat(other.verify()).isInstanceOf(NodeRuntime.Verified.class);
        }
        assertThat(mine.fullChecks()).isEqualTo(2);
        assertThat(other.fullChecks()).isEqualTo(1);

        Object before = stamp(node);
        storeThroughASharedMapping(node, Files.size(node) / 2);
        // The attack's premise, shown: the bytes changed, no part of the identity did.
        assertThat(stamp(node)).isEqualTo(before);
        assertThat(pinned.matches(Sha256Digest.hash(Files.readAllBytes(node)).bytes()))
                .isFalse();

        NodeRuntime.Verification v = mine.verify();
        assertThat(v).isInstanceOf(NodeRuntime.Refused.class);
        assertThat(((NodeRuntime.Refused) v).reason().code()).isEqualTo(ErrorCode.RUNTIME_MISMATCH);
        assertThat(mine.fullChecks()).isEqualTo(3);
        // Identity alone is fooled: this is what the rule closes for a binary the runner may write.
        assertThat(other.verify()).isInstanceOf(NodeRuntime.Verified.class);
        assertThat(other.fullChecks()).isEqualTo(1);
    }

    @Test
    void aNodeOnlyRootMayWriteKeepsTheIdentityRuleForRootAndForOtherUsers() throws Exception {
        Path node = Files.copy(TestSupport.node(), dir.resolve("node"));
        Files.setAttribute(node, "unix:mode", 0755);
        Thread.sleep(SHORT_SETTLE.toMillis() * 3);
        int owner = uid(node);
        NodeRuntime asOwner =
                NodeRuntime.pin(node, TestSupport.nodeVersion(), Optional.empty(), SHORT_SETTLE, Optional.of(owner));
        for (int i = 0; i < 3; i++) {
            assertThat(asOwner.verify()).isInstanceOf(NodeRuntime.Verified.class);
        }
        // Owned by root: the identity rule stays (root is outside the threat model). Owned by anyone else who
        // runs it: every verification is full.
        assertThat(asOwner.fullChecks()).isEqualTo(owner == 0 ? 1 : 3);
        // The running user's own binary, read-only: remembered, since making it writable again moves ctime.
        if (owner == 0) {
            Files.setAttribute(node, "unix:uid", OWNER, LinkOption.NOFOLLOW_LINKS);
            owner = OWNER;
        }
        Files.setAttribute(node, "unix:mode", 0555);
        Thread.sleep(SHORT_SETTLE.toMillis() * 3);
        NodeRuntime readOnly =
                NodeRuntime.pin(node, TestSupport.nodeVersion(), Optional.empty(), SHORT_SETTLE, Optional.of(owner));
        for (int i = 0; i < 3; i++) {
            assertThat(readOnly.verify()).isInstanceOf(NodeRuntime.Verified.class);
        }
        assertThat(readOnly.fullChecks()).isEqualTo(1);
    }

    @Test
    void onExt4AStoreThroughASharedMappingMovesCtimeSoTheIdentityRuleCatchesIt() throws Exception {
        Path ext = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "sg-node-ext-");
        try {
            String type = Files.getFileStore(ext).type();
            assumeTrue(Set.of("ext2", "ext3", "ext4", "xfs", "btrfs").contains(type), "build directory on " + type);
            Path node = ownedCopyOfNode(ext);
            int owner = uid(node);
            Sha256Digest pinned = Sha256Digest.hash(Files.readAllBytes(node));
            NodeRuntime mine = NodeRuntime.pin(
                    node, TestSupport.nodeVersion(), Optional.of(pinned), SHORT_SETTLE, Optional.of(owner));
            // The owner may write it, but the file system stamps every new writer: the identity is remembered.
            for (int i = 0; i < 3; i++) {
                assertThat(mine.verify()).isInstanceOf(NodeRuntime.Verified.class);
            }
            assertThat(mine.fullChecks()).isEqualTo(1);

            Object before = stamp(node);
            storeThroughASharedMapping(node, Files.size(node) / 2);
            // The premise of the rule here: the store through the mapping moved the identity (ctime).
            assertThat(stamp(node)).isNotEqualTo(before);
            NodeRuntime.Verification v = mine.verify();
            assertThat(v).isInstanceOf(NodeRuntime.Refused.class);
            assertThat(((NodeRuntime.Refused) v).reason().code()).isEqualTo(ErrorCode.RUNTIME_MISMATCH);
            assertThat(mine.fullChecks()).isEqualTo(2);
        } finally {
            new ProcessBuilder("rm", "-rf", ext.toString()).start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    /**
     * A copy of node in {@code where}, mode 0755, owned by a non-root uid (given to {@link #OWNER} when
     * the test runs as root), after the settle time so its identity is stable.
     */
    private static Path ownedCopyOfNode(Path where) throws IOException, InterruptedException {
        Path node = Files.copy(TestSupport.node(), where.resolve("node"));
        Files.setAttribute(node, "unix:mode", 0755);
        if (uid(node) == 0) {
            Files.setAttribute(node, "unix:uid", OWNER, LinkOption.NOFOLLOW_LINKS);
        }
        Thread.sleep(SHORT_SETTLE.toMillis() * 3);
        return node;
    }
}
