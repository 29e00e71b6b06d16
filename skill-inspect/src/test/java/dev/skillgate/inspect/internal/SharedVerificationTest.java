package dev.skillgate.inspect.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.inspect.internal.ReaderCore.BatchRead;
import dev.skillgate.inspect.internal.ReaderCore.BatchRequest;
import dev.skillgate.inspect.internal.ReaderCore.BatchResult;
import dev.skillgate.inspect.internal.ReaderCore.SharedVerification;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Limits;
import dev.skillgate.model.PortablePath;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The verification pass shared between the capturing thread and the hash worker (decision 0820):
 * whichever thread checks a file, a change made after the capture read is found, including the
 * same-size rewrite with its modification time put back (the attack of decision 0241), a file that
 * appears at an absent path, and a link swapped in; a pass that was stopped fails closed.
 */
class SharedVerificationTest {
    private static final int FILES = 12;

    @TempDir
    Path root;

    private ReaderCore reader;
    private final TreeMap<PortablePath, BatchRead> captured = new TreeMap<>();
    private final List<PortablePath> absent = List.of(PortablePath.of("skill.contract.json"));

    private void captureAll() throws Exception {
        Files.createDirectories(root.resolve("lib"));
        List<BatchRequest> requests = new ArrayList<>();
        for (int i = 0; i < FILES; i++) {
            String name = String.format("lib/part-%02d.bin", i);
            byte[] content = new byte[20_000 + i];
            for (int j = 0; j < content.length; j++) {
                content[j] = (byte) (i * 31 + j);
            }
            Files.write(root.resolve(name), content);
            requests.add(new BatchRequest(PortablePath.of(name), Limits.FILE_BYTES, false));
        }
        reader = ReaderCore.open(root, List.of(), Limits.CAPTURE_BYTES);
        List<BatchResult> results = reader.readBatch(requests);
        for (int i = 0; i < results.size(); i++) {
            captured.put(requests.get(i).path(), (BatchRead) results.get(i));
        }
    }

    private static ByteBuffer window() {
        return ByteBuffer.allocateDirect(64 * 1024);
    }

    /** Runs the pass on another thread only (as a worker that took every file), then finishes it. */
    private static void helpOnAnotherThread(SharedVerification pass) throws InterruptedException {
        Thread helper = new Thread(() -> pass.help(SharedVerificationTest::window), "shared-verification-helper");
        helper.start();
        helper.join();
    }

    @Test
    void aCleanPassSplitBetweenTwoThreadsChecksEveryEntry() throws Exception {
        captureAll();
        long before = SharedVerification.checkedByHelpers();
        SharedVerification pass = reader.shareVerification(captured, absent);
        Thread helper = new Thread(() -> pass.help(SharedVerificationTest::window));
        helper.start();
        pass.help(SharedVerificationTest::window);
        helper.join();
        pass.finish();
        assertThat(pass.failed()).isFalse();
        assertThat(SharedVerification.checkedByHelpers() - before).isBetween(0L, (long) FILES + 1);
    }

    @Test
    void aHelperAloneChecksEveryEntry() throws Exception {
        captureAll();
        long before = SharedVerification.checkedByHelpers();
        SharedVerification pass = reader.shareVerification(captured, absent);
        helpOnAnotherThread(pass);
        pass.finish();
        assertThat(SharedVerification.checkedByHelpers() - before).isEqualTo(FILES + 1L);
    }

    @Test
    void aSameSizeRewriteWithItsTimePutBackIsFoundByTheHelper() throws Exception {
        captureAll();
        Path victim = root.resolve("lib/part-07.bin");
        FileTime mtime = Files.getLastModifiedTime(victim);
        byte[] bytes = Files.readAllBytes(victim);
        bytes[bytes.length / 2] ^= 1;
        Files.write(victim, bytes);
        Files.setLastModifiedTime(victim, mtime);
        SharedVerification pass = reader.shareVerification(captured, absent);
        helpOnAnotherThread(pass);
        assertThat(pass.failed()).isTrue();
        assertThatThrownBy(pass::finish).isInstanceOfSatisfying(Refusal.class, r -> {
            assertThat(r.diagnostic().code()).isEqualTo(ErrorCode.SOURCE_CHANGED);
            assertThat(r.diagnostic().location()).isEqualTo("lib/part-07.bin");
        });
        // The capturing thread helping afterwards does not clear the difference.
        pass.help(SharedVerificationTest::window);
        assertThatThrownBy(pass::finish).isInstanceOf(Refusal.class);
    }

    @Test
    void aFileAtAnAbsentPathIsFound() throws Exception {
        captureAll();
        Files.writeString(root.resolve("skill.contract.json"), "{}");
        SharedVerification pass = reader.shareVerification(captured, absent);
        helpOnAnotherThread(pass);
        assertThatThrownBy(pass::finish)
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.diagnostic().code()).isEqualTo(ErrorCode.SOURCE_CHANGED));
    }

    @Test
    void aLinkSwappedInIsNotFollowed() throws Exception {
        captureAll();
        Path victim = root.resolve("lib/part-03.bin");
        Path copy = root.resolve("copy.bin");
        Files.copy(victim, copy);
        Files.delete(victim);
        try {
            Files.createSymbolicLink(victim, copy);
        } catch (IOException | UnsupportedOperationException e) {
            return; // no links on this file system: nothing to swap in
        }
        SharedVerification pass = reader.shareVerification(captured, absent);
        Thread helper = new Thread(() -> pass.help(SharedVerificationTest::window));
        helper.start();
        pass.help(SharedVerificationTest::window);
        helper.join();
        assertThatThrownBy(pass::finish).isInstanceOfSatisfying(Refusal.class, r -> {
            assertThat(r.diagnostic().code()).isEqualTo(ErrorCode.SOURCE_CHANGED);
            assertThat(r.diagnostic().location()).isEqualTo("lib/part-03.bin");
        });
    }

    @Test
    void aStoppedPassFailsClosed() throws Exception {
        captureAll();
        SharedVerification pass = reader.shareVerification(captured, absent);
        pass.stop();
        pass.help(SharedVerificationTest::window);
        assertThatThrownBy(pass::finish)
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.diagnostic().code()).isEqualTo(ErrorCode.SOURCE_CHANGED));
    }

    @Test
    void aPassNobodyRanFailsClosed() throws Exception {
        captureAll();
        SharedVerification pass = reader.shareVerification(captured, absent);
        assertThatThrownBy(pass::finish).isInstanceOf(Refusal.class);
    }
}
