package dev.skillgate.inspect.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.inspect.internal.ReaderCore.BatchRead;
import dev.skillgate.inspect.internal.ReaderCore.BatchRequest;
import dev.skillgate.inspect.internal.ReaderCore.SharedVerification;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import dev.skillgate.model.PortablePath;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The per-file fast path of decision 0843: an entry name checked once ({@link Dir.Name}) and two
 * looks at one name compared field by field ({@code ReaderCore.sameLook}) instead of through their
 * identity texts. Real files; the attacks are the same-uid writer's (replace by rename with size and
 * time kept, append, a time put back, a link swapped in).
 */
class LookAndNameTest {
    @TempDir
    Path root;

    @Test
    void aNameIsOnePlainSegmentOrAbsent() throws Exception {
        for (String bad : new String[] {"", "a/b", "/etc", ".", "..", "x\u0000y"}) {
            assertThatThrownBy(() -> Dir.Name.of(bad)).as(bad).isInstanceOf(NoSuchFileException.class);
        }
        assertThat(Dir.Name.of("part-01.bin").toString()).isEqualTo("part-01.bin");
    }

    @Test
    void aCheckedNameNeverFollowsALink() throws Exception {
        Files.writeString(root.resolve("target.txt"), "secret");
        Files.createSymbolicLink(root.resolve("link.txt"), root.resolve("target.txt"));
        try (Dir dir = Dir.open(root)) {
            Dir.Name link = Dir.Name.of("link.txt");
            assertThat(dir.stat(link).isSymbolicLink()).isTrue();
            assertThatThrownBy(() -> {
                        try (SeekableByteChannel ignored = dir.openFile(link)) {
                            // must not open
                        }
                    })
                    .isInstanceOf(IOException.class);
            assertThatThrownBy(() -> dir.stat(Dir.Name.of("missing"))).isInstanceOf(NoSuchFileException.class);
        }
    }

    @Test
    void twoLooksAreTheSameOnlyForTheSameFileSizeAndTime() throws Exception {
        Path file = root.resolve("f.bin");
        Files.write(file, new byte[1000]);
        FileTime time = FileTime.fromMillis(1_700_000_000_000L);
        Files.setLastModifiedTime(file, time);
        try (Dir dir = Dir.open(root)) {
            Dir.Name name = Dir.Name.of("f.bin");
            BasicFileAttributes first = dir.stat(name);
            assertThat(ReaderCore.sameLook(first, dir.stat(name))).isTrue();
            assertThat(ReaderCore.identity(first)).isEqualTo(ReaderCore.identity(dir.stat(name)));

            // Replaced by rename: same size, the time put back, another inode.
            Path other = root.resolve("other.bin");
            Files.write(other, new byte[1000]);
            Files.setLastModifiedTime(other, time);
            Files.move(other, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            BasicFileAttributes replaced = dir.stat(name);
            assertThat(ReaderCore.sameLook(first, replaced)).isFalse();
            assertThat(ReaderCore.identity(first)).isNotEqualTo(ReaderCore.identity(replaced));

            BasicFileAttributes now = dir.stat(name);
            Files.write(file, new byte[1001]);
            Files.setLastModifiedTime(file, time);
            assertThat(ReaderCore.sameLook(now, dir.stat(name))).as("grown").isFalse();

            BasicFileAttributes sized = dir.stat(name);
            Files.setLastModifiedTime(file, FileTime.fromMillis(1_700_000_000_001L));
            assertThat(ReaderCore.sameLook(sized, dir.stat(name)))
                    .as("time changed")
                    .isFalse();

            // A same-size rewrite with the time put back keeps every field: only the bytes show it,
            // which is why the verification pass compares them (decision 0241).
            BasicFileAttributes before = dir.stat(name);
            Files.write(file, new byte[1001]);
            Files.setLastModifiedTime(file, FileTime.fromMillis(1_700_000_000_001L));
            assertThat(ReaderCore.sameLook(before, dir.stat(name))).isTrue();
        }
    }

    @Test
    void aFileReplacedByRenameWithItsSizeAndTimeKeptFailsTheVerificationPass() throws Exception {
        Path file = root.resolve("run.mjs");
        byte[] original = "console.log('approved');\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        Files.write(file, original);
        FileTime time = Files.getLastModifiedTime(file);
        ReaderCore reader = ReaderCore.open(root, List.of(), Limits.CAPTURE_BYTES);
        PortablePath path = PortablePath.of("run.mjs");
        BatchRead read = (BatchRead) reader.readBatch(List.of(new BatchRequest(path, Limits.FILE_BYTES, true)))
                .get(0);
        assertThat(read.bytes()).isEqualTo(original);

        Path swap = root.resolve("swap.tmp");
        Files.write(swap, "console.log('attacker');\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        Files.setLastModifiedTime(swap, time);
        Files.move(swap, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);

        TreeMap<PortablePath, BatchRead> captured = new TreeMap<>();
        captured.put(path, read);
        SharedVerification pass = reader.shareVerification(captured, List.of());
        pass.help(() -> ByteBuffer.allocateDirect(64 * 1024));
        assertThatThrownBy(pass::finish)
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.diagnostic().code()).isEqualTo(ErrorCode.SOURCE_CHANGED));
    }
}
