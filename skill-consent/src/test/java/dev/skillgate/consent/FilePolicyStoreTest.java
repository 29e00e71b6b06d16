package dev.skillgate.consent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.skillgate.consent.spi.PolicyStore;
import dev.skillgate.model.ErrorCode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The default private JSON file store, on real files. */
class FilePolicyStoreTest {
    @TempDir
    Path tmp;

    private static final String SECRET = "sk-live-SECRET-0123456789";

    private static PolicySettings sample() {
        return new PolicySettings(
                ExecutionPolicy.TRUST_SELECTED_REVISIONS,
                List.of(
                        new ScopeEntry(
                                PolicyFixtures.scope(),
                                Optional.of(new Receipt(
                                        UUID.fromString("0b1c2d3e-4f50-4a6b-8c9d-0e1f2a3b4c5d"),
                                        Instant.parse("2026-11-30T12:34:56.123456789Z")))),
                        new ScopeEntry(PolicyFixtures.scope(1), Optional.empty())));
    }

    private static String perms(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    @Test
    void nothingStoredMeansAskEachTime() {
        PolicyStore store = PolicyStore.privateFile(tmp.resolve("data"));
        PolicyLoad load = store.load();
        assertThat(load.status()).isEqualTo(PolicyLoad.Status.ABSENT);
        assertThat(PolicySnapshot.of(load).mode()).isEqualTo(ExecutionPolicy.ASK_EACH_TIME);
        assertThat(tmp.resolve("data")).doesNotExist(); // loading creates nothing
    }

    @Test
    void replaceWritesAPrivateFileAtomicallyAndANewInstanceReadsItBack() throws IOException {
        Path dir = tmp.resolve("data");
        PolicyStore store = PolicyStore.privateFile(dir);
        store.replace(sample());
        assertThat(perms(dir)).isEqualTo("rwx------");
        assertThat(perms(dir.resolve("policy.json"))).isEqualTo("rw-------");
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("policy.json");
        }
        PolicyLoad reread = PolicyStore.privateFile(dir).load();
        assertThat(reread.status()).isEqualTo(PolicyLoad.Status.FOUND);
        assertThat(reread.settings()).isEqualTo(sample());
    }

    @Test
    void anExistingLooseDirectoryIsMadePrivate() throws IOException {
        Path dir = Files.createDirectory(tmp.resolve("data"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        PolicyStore.privateFile(dir).replace(PolicySettings.DEFAULT);
        assertThat(perms(dir)).isEqualTo("rwx------");
    }

    @Test
    void aPolicyFileBelowADirectoryOthersCanWriteBlocksAndNothingIsWritten() throws IOException {
        Path data = Files.createDirectory(tmp.resolve("data"));
        Path dir = data.resolve("policy");
        PolicyStore store = PolicyStore.privateFile(dir);
        store.replace(sample());
        assertThat(store.load().status()).isEqualTo(PolicyLoad.Status.FOUND);
        // Once another user could rename the directory (and put a policy of their own in its place),
        // the stored policy counts for nothing and nothing more is written there.
        Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwxrwxrwx"));
        PolicyLoad load = store.load();
        assertThat(load.status()).isEqualTo(PolicyLoad.Status.UNUSABLE);
        assertThat(load.problem().orElseThrow().code()).isEqualTo(ErrorCode.DATA_DIRECTORY_UNSAFE);
        assertThat(load.problem().orElseThrow().message()).contains("policy directory " + dir);
        assertThat(PolicySnapshot.of(load).mode()).isEqualTo(ExecutionPolicy.BLOCKED);
        byte[] before = Files.readAllBytes(dir.resolve("policy.json"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> store.replace(PolicySettings.DEFAULT))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("DATA_DIRECTORY_UNSAFE");
        assertThat(Files.readAllBytes(dir.resolve("policy.json"))).isEqualTo(before);
        // A policy directory that others may write is refused the same way.
        Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwx------"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThat(store.load().problem().orElseThrow().code()).isEqualTo(ErrorCode.DATA_DIRECTORY_UNSAFE);
    }

    @Test
    void aLinkedDirectoryIsRefusedForWriting() throws IOException {
        Path real = Files.createDirectory(tmp.resolve("real"));
        Path link = Files.createSymbolicLink(tmp.resolve("link"), real);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> PolicyStore.privateFile(link).replace(PolicySettings.DEFAULT))
                .isInstanceOf(IOException.class);
        assertThat(real.resolve("policy.json")).doesNotExist();
    }

    @Test
    void readersNeverSeeAPartialFileWhileAWriterReplacesIt() throws Exception {
        Path dir = tmp.resolve("data");
        PolicyStore writer = PolicyStore.privateFile(dir);
        PolicySettings a = sample();
        PolicySettings b = new PolicySettings(ExecutionPolicy.BLOCKED, List.of());
        writer.replace(a);
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<PolicyLoad> bad = new AtomicReference<>();
        AtomicInteger reads = new AtomicInteger();
        Thread reader = new Thread(() -> {
            PolicyStore r = PolicyStore.privateFile(dir);
            while (!done.get()) {
                PolicyLoad load = r.load();
                reads.incrementAndGet();
                if (load.status() != PolicyLoad.Status.FOUND
                        || !(load.settings().equals(a) || load.settings().equals(b))) {
                    bad.compareAndSet(null, load);
                }
            }
        });
        reader.start();
        for (int i = 0; i < 300; i++) {
            writer.replace(i % 2 == 0 ? b : a);
        }
        done.set(true);
        reader.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(bad.get()).isNull();
        assertThat(reads.get()).isGreaterThan(0);
    }

    static Stream<Arguments> corruptFiles() {
        String good = new String(dev.skillgate.consent.internal.PolicyCodec.encode(sample()), StandardCharsets.UTF_8);
        String scope = "{\"revision\":\"" + Fixtures.REVISION + "\",\"agent\":\"a\","
                + "\"workspace\":{\"realPath\":\"/w\",\"fileKey\":\"k\"},"
                + "\"timeoutCeilingMillis\":60000,\"outputCeilingBytes\":65536%s}";
        String head = "{\"format\":\"skillgate-execution-policy\",\"version\":1,\"mode\":\"TRUST_SELECTED_REVISIONS\",";
        return Stream.of(
                Arguments.of("empty", ""),
                Arguments.of("truncated", good.substring(0, good.length() / 2)),
                Arguments.of("not an object", "[]"),
                Arguments.of("trailing", good + "{}"),
                Arguments.of("bom", "\ufeff" + good),
                Arguments.of("wrong format", good.replace("skillgate-execution-policy", "other")),
                Arguments.of("wrong version", good.replace("\"version\": 1", "\"version\": 2")),
                Arguments.of("version as float", good.replace("\"version\": 1", "\"version\": 1.0")),
                Arguments.of("unknown mode", good.replace("TRUST_SELECTED_REVISIONS", "trust_selected_revisions")),
                Arguments.of("unknown member", good.replace("\"mode\"", "\"" + SECRET + "\": 1, \"mode\"")),
                Arguments.of("duplicate key", good.replace("\"mode\"", "\"mode\": \"BLOCKED\", \"mode\"")),
                Arguments.of("missing scopes", head.substring(0, head.length() - 1) + "}"),
                Arguments.of(
                        "duplicate scope",
                        head + "\"scopes\":[" + String.format(scope, "") + "," + String.format(scope, "") + "]}"),
                Arguments.of(
                        "duplicate receipt",
                        head + "\"scopes\":["
                                + String.format(
                                        scope,
                                        ",\"receipt\":{\"id\":\"0b1c2d3e-4f50-4a6b-8c9d-0e1f2a3b4c5d\",\"approvedAt\":\"2026-01-01T00:00:00Z\"}")
                                + ","
                                + String.format(
                                                scope,
                                                ",\"receipt\":{\"id\":\"0b1c2d3e-4f50-4a6b-8c9d-0e1f2a3b4c5d\",\"approvedAt\":\"2026-01-01T00:00:00Z\"}")
                                        .replace("\"a\"", "\"b\"")
                                + "]}"),
                Arguments.of(
                        "uppercase uuid",
                        good.replace("0b1c2d3e-4f50-4a6b-8c9d-0e1f2a3b4c5d", "0B1C2D3E-4F50-4A6B-8C9D-0E1F2A3B4C5D")),
                Arguments.of(
                        "non-utc instant",
                        good.replace("2026-11-30T12:34:56.123456789Z", "2026-11-30T13:34:56.123456789+01:00")),
                Arguments.of(
                        "non-canonical instant",
                        good.replace("2026-11-30T12:34:56.123456789Z", "2026-11-30T12:34:56.1234567890Z")),
                Arguments.of("relative path", good.replace("\"/home/u/work\"", "\"home/u/work\"")),
                Arguments.of("non-canonical path", good.replace("\"/home/u/work\"", "\"/home//u/work\"")),
                Arguments.of(
                        "timeout out of range",
                        good.replaceFirst("\"timeoutCeilingMillis\": 60000", "\"timeoutCeilingMillis\": 120001")),
                Arguments.of(
                        "timeout as exponent",
                        good.replaceFirst("\"timeoutCeilingMillis\": 60000", "\"timeoutCeilingMillis\": 6e4")),
                Arguments.of(
                        "huge number",
                        good.replaceFirst(
                                "\"timeoutCeilingMillis\": 60000", "\"timeoutCeilingMillis\": 99999999999999999999")),
                Arguments.of(
                        "NaN", good.replaceFirst("\"timeoutCeilingMillis\": 60000", "\"timeoutCeilingMillis\": NaN")),
                Arguments.of(
                        "uppercase revision",
                        good.replace(
                                Fixtures.REVISION.digest().hex(),
                                Fixtures.REVISION.digest().hex().toUpperCase(java.util.Locale.ROOT))),
                Arguments.of("bad agent", good.replace("\"agent-1\"", "\"agent 1\"")),
                Arguments.of(
                        "too many scopes",
                        head + "\"scopes\":["
                                + String.join(",", java.util.Collections.nCopies(65, String.format(scope, ""))) + "]}"),
                Arguments.of("deep", "[".repeat(100) + "]".repeat(100)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("corruptFiles")
    void aCorruptFileBlocksWithADiagnosticAndNeverThrows(String name, String content) throws IOException {
        Path dir = Files.createDirectory(tmp.resolve("data"));
        Path file = dir.resolve("policy.json");
        Files.write(file, content.getBytes(StandardCharsets.UTF_8));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        PolicyLoad load = PolicyStore.privateFile(dir).load();
        assertThat(load.status()).isEqualTo(PolicyLoad.Status.UNUSABLE);
        assertThat(load.problem().orElseThrow().code()).isEqualTo(ErrorCode.POLICY_CORRUPT);
        assertThat(load.problem().orElseThrow().message()).doesNotContain(SECRET);
        PolicySnapshot snapshot = PolicySnapshot.of(load);
        assertThat(snapshot.mode()).isEqualTo(ExecutionPolicy.BLOCKED);
        assertThat(snapshot.scopes()).isEmpty();
        assertThat(snapshot.isUnusable()).isTrue();
    }

    @Test
    void invalidUtf8Blocks() throws IOException {
        Path dir = Files.createDirectory(tmp.resolve("data"));
        byte[] good = dev.skillgate.consent.internal.PolicyCodec.encode(sample());
        good[good.length / 2] = (byte) 0xC0;
        Files.write(dir.resolve("policy.json"), good);
        Files.setPosixFilePermissions(dir.resolve("policy.json"), PosixFilePermissions.fromString("rw-------"));
        assertThat(PolicyStore.privateFile(dir).load().problem().orElseThrow().code())
                .isEqualTo(ErrorCode.POLICY_CORRUPT);
    }

    @Test
    void anOversizedFileBlocksWithoutBeingParsed() throws IOException {
        Path dir = Files.createDirectory(tmp.resolve("data"));
        byte[] big = new byte[dev.skillgate.consent.internal.PolicyCodec.MAX_BYTES + 1];
        java.util.Arrays.fill(big, (byte) ' ');
        Files.write(dir.resolve("policy.json"), big);
        Files.setPosixFilePermissions(dir.resolve("policy.json"), PosixFilePermissions.fromString("rw-------"));
        PolicyLoad load = PolicyStore.privateFile(dir).load();
        assertThat(load.problem().orElseThrow().code()).isEqualTo(ErrorCode.POLICY_CORRUPT);
        assertThat(load.problem().orElseThrow().message()).contains("exceeds");
    }

    @Test
    void aLinkIsNeverFollowedEvenToAValidFile() throws IOException {
        Path elsewhere = tmp.resolve("elsewhere");
        PolicyStore.privateFile(elsewhere).replace(sample());
        Path dir = Files.createDirectory(tmp.resolve("data"));
        Files.createSymbolicLink(dir.resolve("policy.json"), elsewhere.resolve("policy.json"));
        PolicyLoad load = PolicyStore.privateFile(dir).load();
        assertThat(load.status()).isEqualTo(PolicyLoad.Status.UNUSABLE);
        assertThat(load.problem().orElseThrow().message()).contains("symbolic link");
    }

    @Test
    void aDirectoryOrFifoInPlaceOfTheFileBlocksWithoutHanging() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("data"));
        Files.createDirectory(dir.resolve("policy.json"));
        assertThat(PolicyStore.privateFile(dir).load().status()).isEqualTo(PolicyLoad.Status.UNUSABLE);

        Path dir2 = Files.createDirectory(tmp.resolve("data2"));
        Process mkfifo = new ProcessBuilder(
                        "mkfifo", dir2.resolve("policy.json").toString())
                .redirectErrorStream(true)
                .start();
        assertThat(mkfifo.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(mkfifo.exitValue()).isZero();
        PolicyLoad load = PolicyStore.privateFile(dir2).load();
        assertThat(load.status()).isEqualTo(PolicyLoad.Status.UNUSABLE);
        assertThat(load.problem().orElseThrow().message()).contains("not a regular file");
    }

    @Test
    void aFileWritableByOthersBlocks() throws IOException {
        Path dir = tmp.resolve("data");
        PolicyStore store = PolicyStore.privateFile(dir);
        store.replace(sample());
        Files.setPosixFilePermissions(dir.resolve("policy.json"), PosixFilePermissions.fromString("rw-rw-rw-"));
        PolicyLoad load = store.load();
        assertThat(load.status()).isEqualTo(PolicyLoad.Status.UNUSABLE);
        assertThat(load.problem().orElseThrow().message()).contains("writable by group or others");
        Files.setPosixFilePermissions(dir.resolve("policy.json"), PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(store.load().status()).isEqualTo(PolicyLoad.Status.FOUND);
    }
}
