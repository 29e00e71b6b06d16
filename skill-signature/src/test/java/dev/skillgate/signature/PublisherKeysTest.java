package dev.skillgate.signature;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.skillgate.model.Diagnostic;
import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.InvalidValueException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The allowed-signers parser and the bounded, link-refusing read of the host's file. */
class PublisherKeysTest {

    /** The golden publisher's key line (type and base64, no comment). */
    static final String KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIO7be21O6nGIBhtbzlBamGqhQI/U5zc9Cbkl2Vx2nVgI";

    static final String RSA_KEY = "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQC7";

    private static PublisherKeys parse(String text) {
        return PublisherKeys.parse(text.getBytes(StandardCharsets.UTF_8));
    }

    private static Diagnostic only(PublisherKeys keys) {
        assertThat(keys.diagnostics()).hasSize(1);
        return keys.diagnostics().get(0);
    }

    @Test
    void commentsBlankLinesAndCommentsAfterTheKeyAreIgnored() {
        PublisherKeys keys = parse("# publishers\n\n   \t\n# another\nalice@example.com " + KEY + " laptop key\n");
        assertThat(keys.diagnostics()).isEmpty();
        assertThat(keys.entries()).singleElement().satisfies(entry -> {
            assertThat(entry.principals()).containsExactly("alice@example.com");
            assertThat(entry.publicKey()).isEqualTo(KEY);
            assertThat(entry.namespaces()).isEmpty();
            assertThat(entry.line()).isEqualTo(5);
            assertThat(entry.fingerprint()).isEqualTo(Golden.fingerprint());
        });
    }

    @Test
    void principalListsQuotedPrincipalsAndOptionsParse() {
        PublisherKeys keys = parse("a@x,b@y,*@z " + KEY + "\n" + "\"Alice Smith\" " + KEY + "\r\n"
                + "  carol namespaces=\"git,skillgate\" " + KEY + "\n" + "dave Namespaces=\"git\" " + KEY + "\n");
        assertThat(keys.diagnostics()).isEmpty();
        assertThat(keys.entries())
                .extracting(PublisherKey::principals)
                .containsExactly(
                        List.of("a@x", "b@y", "*@z"), List.of("Alice Smith"), List.of("carol"), List.of("dave"));
        assertThat(keys.entries().get(2).namespaces()).contains(List.of("git", "skillgate"));
        assertThat(keys.entries().get(3).namespaces()).contains(List.of("git"));
        assertThat(keys.entries().get(2).allowsNamespace("skillgate")).isTrue();
        assertThat(keys.entries().get(3).allowsNamespace("skillgate")).isFalse();
        assertThat(keys.entries().get(0).allowsPrincipal("q@z")).isTrue();
        assertThat(keys.entries().get(0).allowsPrincipal("q@w")).isFalse();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "alice",
                "alice ",
                "alice namespaces=\"skillgate\"",
                "\"alice " + KEY,
                "\"alice\"x " + KEY,
                "ali\"ce " + KEY,
                "alice unknown-option " + KEY,
                "alice no-touch-required " + KEY,
                "alice namespaces=skillgate " + KEY,
                "alice namespaces=\"skillgate " + KEY,
                "alice namespaces=\"a\",namespaces=\"b\" " + KEY,
                "alice namespaces=\"a\", " + KEY,
                "alice namespaces=\"a\"x " + KEY,
                "alice namespaces=\"\" " + KEY,
                "alice namespaces=\"sk\\\"x\" " + KEY,
                "alice namespaces=\"a,,b\" " + KEY,
                "a,,b " + KEY,
                "alice ssh-ed25519",
                "alice ssh-ed25519 !!!!",
                "alice ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIO7be21O6nGIBhtbzlBamGqhQI/U5zc9Cbkl2Vx2nVgJ",
                "alice ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIO7be21O6nGIBhtbzlBamGqhQI/U5zc9Cbkl2Vx2nVg",
                "alice ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAH+7be21O6nGIBhtbzlBamGqhQI/U5zc9Cbkl2Vx2nQ==",
                "alice ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIO7be21O6nGIBhtbzlBamGqhQI/U5zc9Cbkl2Vx2nVgIAA==",
                "alice ssh-ed25519 AAAAC3NzaC1yc2EAAAADAQABAAAAgQC7",
                "alice ecdsa-foo AAAA",
            })
    void malformedLinesAreErrorsAndGrantNothing(String line) {
        PublisherKeys keys = parse("# header\n" + line + "\nbob " + KEY + "\n");
        assertThat(keys.entries()).as(line).extracting(PublisherKey::principals).containsExactly(List.of("bob"));
        Diagnostic diagnostic = only(keys);
        assertThat(diagnostic.isError()).as(line).isTrue();
        assertThat(diagnostic.code()).as(line).isIn(ErrorCode.SIGNATURE_FORMAT, ErrorCode.SIGNATURE_ALGORITHM);
        assertThat(diagnostic.location()).isEqualTo("line 2");
        assertThat(keys.hasErrors()).isTrue();
    }

    @Test
    void aKeyBlobOfAnotherTypeUnderTheEd25519NameIsTheWrongAlgorithm() {
        Diagnostic diagnostic = only(parse("alice ssh-ed25519 AAAAB3NzaC1yc2EAAAADAQABAAAAgQC7\n"));
        assertThat(diagnostic.code()).isEqualTo(ErrorCode.SIGNATURE_ALGORITHM);
        assertThat(diagnostic.isError()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "alice " + RSA_KEY,
                "alice namespaces=\"skillgate\" ecdsa-sha2-nistp256 AAAA",
                "alice cert-authority " + KEY,
                "alice CERT-AUTHORITY,namespaces=\"skillgate\" " + KEY,
                "alice valid-after=\"20200101\" " + KEY,
                "alice valid-before=\"29990101\",namespaces=\"skillgate\" " + KEY,
            })
    void unsupportedButWellFormedLinesAreWarningsAndGrantNothing(String line) {
        PublisherKeys keys = parse(line + "\n");
        assertThat(keys.entries()).as(line).isEmpty();
        Diagnostic diagnostic = only(keys);
        assertThat(diagnostic.isError()).as(line).isFalse();
        assertThat(diagnostic.code()).isIn(ErrorCode.SIGNATURE_ALGORITHM, ErrorCode.SIGNATURE_SIGNER_UNSUPPORTED);
        assertThat(keys.hasErrors()).isFalse();
    }

    @Test
    void aFileThatIsNotUtf8OrHoldsNulIsRefusedWhole() {
        byte[] latin1 = ("alice " + KEY + " caf\u00e9\n").getBytes(StandardCharsets.ISO_8859_1);
        assertThat(only(PublisherKeys.parse(latin1)).code()).isEqualTo(ErrorCode.SIGNATURE_FORMAT);
        assertThat(PublisherKeys.parse(latin1).entries()).isEmpty();
        PublisherKeys nul = parse("alice " + KEY + "\n\0\n");
        assertThat(nul.entries()).isEmpty();
        assertThat(only(nul).code()).isEqualTo(ErrorCode.SIGNATURE_FORMAT);
        assertThat(parse("alic\u00e9@example.com " + KEY).entries()).hasSize(1);
    }

    @Test
    void diagnosticsAndEntriesAreBounded() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            text.append("broken\n");
        }
        PublisherKeys broken = parse(text.toString());
        assertThat(broken.diagnostics()).hasSize(21);
        assertThat(broken.diagnostics().get(20).message()).contains("not reported");

        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 1100; i++) {
            many.append("p").append(i).append(' ').append(KEY).append('\n');
        }
        PublisherKeys capped = parse(many.toString());
        assertThat(capped.entries()).hasSize(1024);
        assertThat(only(capped).message()).contains("more than 1024 entries");
        assertThat(only(capped).location()).isEqualTo("line 1025");
    }

    @Test
    void anOversizedBufferIsRefusedWhole() {
        byte[] big = new byte[PublisherKeys.MAX_FILE_BYTES + 1];
        java.util.Arrays.fill(big, (byte) '#');
        PublisherKeys keys = PublisherKeys.parse(big);
        assertThat(keys.entries()).isEmpty();
        assertThat(only(keys).code()).isEqualTo(ErrorCode.READ_TOO_LARGE);
    }

    @Test
    void readsARegularFile(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("allowed_signers"), "alice " + KEY + "\n");
        PublisherKeys keys = PublisherKeys.read(file);
        assertThat(keys.entries()).hasSize(1);
        assertThat(keys.diagnostics()).isEmpty();
    }

    @Test
    void refusesALinkADirectoryAFifoAMissingAndAnOversizedFile(@TempDir Path dir)
            throws IOException, InterruptedException {
        Path real = Files.writeString(dir.resolve("real"), "alice " + KEY + "\n");
        Path link = Files.createSymbolicLink(dir.resolve("link"), real);
        assertThat(only(PublisherKeys.read(link)).code()).isEqualTo(ErrorCode.READ_LINK);
        assertThat(PublisherKeys.read(link).entries()).isEmpty();

        assertThat(only(PublisherKeys.read(dir)).code()).isEqualTo(ErrorCode.READ_NOT_REGULAR);
        assertThat(only(PublisherKeys.read(dir.resolve("absent"))).code()).isEqualTo(ErrorCode.READ_NOT_FOUND);

        Path fifo = dir.resolve("fifo");
        Process mkfifo = new ProcessBuilder("/usr/bin/mkfifo", fifo.toString()).start();
        assertThat(mkfifo.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(mkfifo.exitValue()).isZero();
        // Must refuse without opening (opening a FIFO for reading would block).
        assertThat(only(PublisherKeys.read(fifo)).code()).isEqualTo(ErrorCode.READ_NOT_REGULAR);

        Path big = dir.resolve("big");
        Files.write(big, new byte[PublisherKeys.MAX_FILE_BYTES + 1]);
        assertThat(only(PublisherKeys.read(big)).code()).isEqualTo(ErrorCode.READ_TOO_LARGE);
        Path exact = Files.writeString(
                dir.resolve("exact"),
                "alice " + KEY + "\n" + "#".repeat(PublisherKeys.MAX_FILE_BYTES - ("alice " + KEY + "\n").length() - 1)
                        + "\n");
        assertThat(Files.size(exact)).isEqualTo(PublisherKeys.MAX_FILE_BYTES);
        assertThat(PublisherKeys.read(exact).entries()).hasSize(1);
    }

    @Test
    void keysBuiltInCodeAreValidated() {
        assertThat(PublisherKeys.builder()
                        .add("alice", KEY + " comment")
                        .build()
                        .entries())
                .singleElement()
                .satisfies(key -> assertThat(key.publicKey()).isEqualTo(KEY));
        assertThatThrownBy(() -> PublisherKey.of("alice", RSA_KEY))
                .isInstanceOfSatisfying(
                        InvalidValueException.class,
                        e -> assertThat(e.code()).isEqualTo(ErrorCode.SIGNATURE_ALGORITHM));
        assertThatThrownBy(() -> PublisherKey.of("alice", "ssh-ed25519 AAAA"))
                .isInstanceOfSatisfying(
                        InvalidValueException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.SIGNATURE_FORMAT));
        assertThatThrownBy(() -> PublisherKey.of("al,ice", KEY)).isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> PublisherKey.of("al\u0007ice", KEY)).isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> PublisherKey.of("", KEY)).isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> new PublisherKey(List.of(), KEY, Optional.empty(), 0))
                .isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> new PublisherKey(List.of("a"), KEY, Optional.of(List.of()), 0))
                .isInstanceOf(InvalidValueException.class);
    }

    @Test
    void entriesAreImmutableCopies() {
        List<String> principals = new java.util.ArrayList<>(List.of("alice"));
        PublisherKey key = new PublisherKey(principals, KEY, Optional.empty(), 0);
        principals.add("mallory");
        assertThat(key.principals()).containsExactly("alice");
        assertThatThrownBy(() -> key.principals().add("x")).isInstanceOf(UnsupportedOperationException.class);
    }
}
