package dev.skillgate.consent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.internal.PolicyCodec;
import dev.skillgate.consent.spi.PolicyStore;
import dev.skillgate.model.ErrorCode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Decision 0815: the file store reuses its last accepted decode only for the same bytes. Every test
 * changes the file behind the store's back in a way a file identity would not see (same size, the
 * modification time restored, in place or renamed over) and proves the next load sees the change.
 */
class FilePolicyStoreReuseTest {
    @TempDir
    Path tmp;

    private static PolicySettings settings(String receiptId, ExecutionPolicy mode) {
        return new PolicySettings(
                mode,
                List.of(new ScopeEntry(
                        PolicyFixtures.scope(),
                        Optional.of(new Receipt(
                                UUID.fromString(receiptId), Instant.parse("2026-11-30T12:34:56.123456789Z"))))));
    }

    private static final String ID_A = "0b1c2d3e-4f50-4a6b-8c9d-0e1f2a3b4c5d";
    private static final String ID_B = "1b1c2d3e-4f50-4a6b-8c9d-0e1f2a3b4c5d";

    /** Overwrites the file in place (same inode, same size) and puts its modification time back. */
    private static void overwriteInPlace(Path file, byte[] bytes) throws IOException {
        FileTime mtime = Files.getLastModifiedTime(file);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(bytes), 0);
            ch.truncate(bytes.length);
        }
        Files.setLastModifiedTime(file, mtime);
    }

    @Test
    void theSameBytesReuseTheVerdictAndEqualSettingsComeBack() throws IOException {
        PolicyStore store = storeHoldingA(tmp.resolve("data"));
        PolicyLoad first = store.load();
        PolicyLoad second = store.load();
        assertThat(first.status()).isEqualTo(PolicyLoad.Status.FOUND);
        assertThat(second).isSameAs(first);
        assertThat(second.settings()).isEqualTo(settings(ID_A, ExecutionPolicy.TRUST_SELECTED_REVISIONS));
    }

    @Test
    void aSameSizeEditInPlaceWithTheModificationTimeRestoredIsSeenAtOnce() throws IOException {
        Path dir = tmp.resolve("data");
        PolicyStore store = storeHoldingA(dir);
        Path file = dir.resolve("policy.json");
        PolicyLoad before = store.load();
        byte[] other = PolicyCodec.encode(settings(ID_B, ExecutionPolicy.TRUST_SELECTED_REVISIONS));
        assertThat(other).hasSameSizeAs(Files.readAllBytes(file));
        BasicFileAttributes was = Files.readAttributes(file, BasicFileAttributes.class);
        overwriteInPlace(file, other);
        BasicFileAttributes now = Files.readAttributes(file, BasicFileAttributes.class);
        assertThat(now.fileKey()).isEqualTo(was.fileKey());
        assertThat(now.size()).isEqualTo(was.size());
        assertThat(now.lastModifiedTime()).isEqualTo(was.lastModifiedTime());

        PolicyLoad after = store.load();
        assertThat(after).isNotSameAs(before);
        assertThat(after.settings()).isEqualTo(settings(ID_B, ExecutionPolicy.TRUST_SELECTED_REVISIONS));
    }

    @Test
    void aFileRenamedOverWithTheSameModificationTimeIsSeenAtOnce() throws IOException {
        Path dir = tmp.resolve("data");
        PolicyStore store = storeHoldingA(dir);
        Path file = dir.resolve("policy.json");
        assertThat(firstReceiptId(store.load())).isEqualTo(UUID.fromString(ID_A));
        FileTime mtime = Files.getLastModifiedTime(file);
        Path other = dir.resolve("other.json");
        Files.write(other, PolicyCodec.encode(settings(ID_B, ExecutionPolicy.TRUST_SELECTED_REVISIONS)));
        Files.setPosixFilePermissions(other, PosixFilePermissions.fromString("rw-------"));
        Files.setLastModifiedTime(other, mtime);
        Files.move(other, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        assertThat(Files.getLastModifiedTime(file)).isEqualTo(mtime);

        assertThat(firstReceiptId(store.load())).isEqualTo(UUID.fromString(ID_B));
    }

    @Test
    void aCorruptionOfTheKeptBytesIsUnusableAndTheOriginalBytesAreFoundAgain() throws IOException {
        Path dir = tmp.resolve("data");
        PolicyStore store = storeHoldingA(dir);
        Path file = dir.resolve("policy.json");
        byte[] good = Files.readAllBytes(file);
        assertThat(store.load().status()).isEqualTo(PolicyLoad.Status.FOUND);
        byte[] bad = good.clone();
        bad[bad.length / 2] = '\u0001'; // a control character inside the JSON
        overwriteInPlace(file, bad);
        PolicyLoad corrupt = store.load();
        assertThat(corrupt.status()).isEqualTo(PolicyLoad.Status.UNUSABLE);
        assertThat(corrupt.problem().orElseThrow().code()).isEqualTo(ErrorCode.POLICY_CORRUPT);
        overwriteInPlace(file, good);
        assertThat(store.load().settings()).isEqualTo(settings(ID_A, ExecutionPolicy.TRUST_SELECTED_REVISIONS));
    }

    @Test
    void aPolicyThatStopsBeingPrivateIsUnusableEvenWithTheSameBytes() throws IOException {
        Path dir = tmp.resolve("data");
        PolicyStore store = storeHoldingA(dir);
        assertThat(store.load().status()).isEqualTo(PolicyLoad.Status.FOUND);
        Files.setPosixFilePermissions(dir.resolve("policy.json"), PosixFilePermissions.fromString("rw--w----"));
        assertThat(store.load().status()).isEqualTo(PolicyLoad.Status.UNUSABLE);
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx-w----"));
        Files.setPosixFilePermissions(dir.resolve("policy.json"), PosixFilePermissions.fromString("rw-------"));
        PolicyLoad placed = store.load();
        assertThat(placed.status()).isEqualTo(PolicyLoad.Status.UNUSABLE);
        assertThat(placed.problem().orElseThrow().code()).isEqualTo(ErrorCode.DATA_DIRECTORY_UNSAFE);
    }

    @Test
    void aFileLargerThanItWasWhenExaminedIsReadToTheBoundAndNoFurther() throws IOException {
        Path dir = tmp.resolve("data");
        PolicyStore store = storeHoldingA(dir);
        Path file = dir.resolve("policy.json");
        // A valid policy padded with whitespace to exactly the bound: read whole, and accepted.
        byte[] good = PolicyCodec.encode(settings(ID_B, ExecutionPolicy.TRUST_SELECTED_REVISIONS));
        byte[] padded = new byte[PolicyCodec.MAX_BYTES];
        java.util.Arrays.fill(padded, (byte) ' ');
        System.arraycopy(good, 0, padded, 0, good.length);
        Files.write(file, padded);
        PolicyLoad atBound = store.load();
        assertThat(atBound.status()).isEqualTo(PolicyLoad.Status.FOUND);
        assertThat(atBound.settings()).isEqualTo(settings(ID_B, ExecutionPolicy.TRUST_SELECTED_REVISIONS));
        // One byte over: refused.
        Files.write(file, new byte[] {' '}, StandardOpenOption.APPEND);
        PolicyLoad over = store.load();
        assertThat(over.status()).isEqualTo(PolicyLoad.Status.UNUSABLE);
        assertThat(over.problem().orElseThrow().message()).contains("exceeds");
    }

    @Test
    void aWriterRacingLoadsIsNeverAnsweredWithBytesThatAreNoLongerThereOnceItStops() throws Exception {
        Path dir = tmp.resolve("data");
        PolicyStore store = storeHoldingA(dir);
        Path file = dir.resolve("policy.json");
        byte[] a = PolicyCodec.encode(settings(ID_A, ExecutionPolicy.TRUST_SELECTED_REVISIONS));
        byte[] b = PolicyCodec.encode(settings(ID_B, ExecutionPolicy.TRUST_SELECTED_REVISIONS));
        AtomicBoolean stop = new AtomicBoolean();
        List<Throwable> failures = new ArrayList<>();
        Thread writer = new Thread(() -> {
            try {
                for (int i = 0; i < 400 && !stop.get(); i++) {
                    overwriteInPlace(file, i % 2 == 0 ? b : a);
                }
            } catch (IOException e) {
                synchronized (failures) {
                    failures.add(e);
                }
            }
        });
        writer.start();
        int loads = 0;
        while (writer.isAlive()) {
            PolicyLoad load = store.load();
            loads++;
            if (load.status() == PolicyLoad.Status.FOUND) {
                assertThat(load.settings())
                        .isIn(
                                settings(ID_A, ExecutionPolicy.TRUST_SELECTED_REVISIONS),
                                settings(ID_B, ExecutionPolicy.TRUST_SELECTED_REVISIONS));
            }
        }
        writer.join();
        assertThat(failures).isEmpty();
        assertThat(loads).isPositive();
        // The writer's last write was a (i = 399): the next load answers with a, whatever was kept.
        assertThat(Files.readAllBytes(file)).isEqualTo(a);
        assertThat(store.load().settings()).isEqualTo(settings(ID_A, ExecutionPolicy.TRUST_SELECTED_REVISIONS));
        overwriteInPlace(file, b);
        assertThat(store.load().settings()).isEqualTo(settings(ID_B, ExecutionPolicy.TRUST_SELECTED_REVISIONS));
    }

    @Test
    void utf8RoundTripOfTheKeptBytesIsNotNeeded() {
        // The verdict kept is the decoder's own immutable value: equal bytes, equal verdict.
        byte[] bytes = PolicyCodec.encode(settings(ID_A, ExecutionPolicy.TRUST_SELECTED_REVISIONS));
        assertThat(PolicyCodec.decode(bytes.clone())).isEqualTo(PolicyCodec.decode(bytes.clone()));
        assertThat(new String(bytes, StandardCharsets.UTF_8)).contains(ID_A);
    }

    /** A private store in {@code dir} holding {@code ID_A}'s trusted revision. */
    private static PolicyStore storeHoldingA(Path dir) throws IOException {
        PolicyStore store = PolicyStore.privateFile(dir);
        store.replace(settings(ID_A, ExecutionPolicy.TRUST_SELECTED_REVISIONS));
        return store;
    }

    private static UUID firstReceiptId(PolicyLoad load) {
        return load.settings().scopes().get(0).receipt().orElseThrow().id();
    }
}
