package dev.skillgate.signature;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.model.Revision;
import dev.skillgate.model.Sha256Digest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link SignatureSigner} with keys made by the real {@code ssh-keygen} on real files: our signature
 * is byte for byte {@code ssh-keygen -Y sign}'s, our verifier and {@code ssh-keygen -Y verify} both
 * accept it, and every unusable key file is refused with its own code. Skipped (visibly, as an
 * assumption) where {@code /usr/bin/ssh-keygen} is missing.
 */
class SignatureSignerTest {
    private static final String PUBLISHER = "alice@example.com";

    @TempDir
    Path dir;

    @BeforeEach
    void needsSshKeygen() {
        assumeTrue(SshKeygen.present(), "ssh-keygen is not installed at " + SshKeygen.BINARY + "; skipped");
    }

    private static SignatureStatement statement(String contract, String content) {
        return SignatureStatement.of(
                contract.getBytes(StandardCharsets.UTF_8),
                new Revision(Sha256Digest.hash(content.getBytes(StandardCharsets.UTF_8))));
    }

    private static SignatureSigner ready(Path key) throws IOException {
        SignatureSigner.Opening opening = SignatureSigner.open(key);
        assertThat(opening).isInstanceOf(SignatureSigner.Ready.class);
        return ((SignatureSigner.Ready) opening).signer();
    }

    private static ErrorCode refusal(Path key) throws IOException {
        SignatureSigner.Opening opening = SignatureSigner.open(key);
        assertThat(opening).as("key %s must be refused", key).isInstanceOf(SignatureSigner.Refused.class);
        SignatureSigner.Refused refused = (SignatureSigner.Refused) opening;
        assertThat(refused.diagnostic().message()).isNotBlank().doesNotContain(key.toString());
        return refused.code();
    }

    @Test
    void ourSignatureIsSshKeygensAndBothVerifiersAcceptIt() throws IOException {
        for (int i = 0; i < 3; i++) {
            Path key = SshKeygen.generate(dir, "publisher" + i, "ed25519");
            SignatureStatement statement = statement("{\"n\":" + i + "}", "content " + i);
            byte[] ours;
            try (SignatureSigner signer = ready(key)) {
                assertThat(signer.keyFingerprint()).isEqualTo(SshKeygen.fingerprint(key));
                assertThat(SshKeygen.publicKey(key)).startsWith(signer.publicKey() + " ");
                ours = signer.signatureFile(statement);
            }
            // Ed25519 is deterministic and ssh-keygen hashes with sha512 by default: same bytes.
            byte[] theirs = SshKeygen.signStatement(dir, key, statement, "skillgate");
            assertThat(new String(ours, StandardCharsets.US_ASCII))
                    .isEqualTo(new String(theirs, StandardCharsets.US_ASCII));

            PublisherKeys keys = PublisherKeys.builder()
                    .add(PublisherKey.of(PUBLISHER, SshKeygen.publicKey(key)))
                    .build();
            SignatureVerification verdict = SignatureVerifier.verifyForPublisher(PUBLISHER, statement, ours, keys);
            assertThat(verdict).isInstanceOf(SignatureVerification.Verified.class);
            assertThat(((SignatureVerification.Verified) verdict).keyFingerprint())
                    .isEqualTo(SshKeygen.fingerprint(key));

            byte[] allowed = (PUBLISHER + " " + SshKeygen.publicKey(key) + "\n").getBytes(StandardCharsets.US_ASCII);
            byte[] message = Arrays.copyOf(ours, SignatureStatement.LENGTH);
            byte[] armored = Arrays.copyOfRange(ours, SignatureStatement.LENGTH, ours.length);
            SshKeygen.Run run = SshKeygen.verify(dir, allowed, PUBLISHER, "skillgate", armored, message);
            assertThat(run.exitCode()).as(run.output()).isZero();
            assertThat(run.output()).contains("Good \"skillgate\" signature for " + PUBLISHER);
            // ...and ssh-keygen refuses our signature over any other statement.
            byte[] other = statement("{\"n\":" + i + "}", "changed").toBytes();
            assertThat(SshKeygen.verify(dir, allowed, PUBLISHER, "skillgate", armored, other)
                            .exitCode())
                    .isNotZero();
        }
    }

    @Test
    void anEncryptedKeyIsRefusedAsEncrypted() throws IOException {
        Path key = SshKeygen.generateEncrypted(dir, "locked", "ed25519", "secret passphrase");
        assertThat(refusal(key)).isEqualTo(ErrorCode.SIGNATURE_KEY_ENCRYPTED);
    }

    @ParameterizedTest
    @ValueSource(strings = {"rsa", "ecdsa", "rsa-pem", "ecdsa-pem", "encrypted-rsa"})
    void keysOtherThanEd25519AreRefusedAsAlgorithm(String kind) throws IOException {
        Path key = switch (kind) {
            case "rsa" -> SshKeygen.generate(dir, kind, "rsa", "-b", "2048");
            case "ecdsa" -> SshKeygen.generate(dir, kind, "ecdsa");
            case "rsa-pem" -> SshKeygen.generate(dir, kind, "rsa", "-b", "2048", "-m", "PEM");
            case "ecdsa-pem" -> SshKeygen.generate(dir, kind, "ecdsa", "-m", "PEM");
            default -> SshKeygen.generateEncrypted(dir, kind, "rsa", "secret passphrase");
        };
        assertThat(refusal(key)).isEqualTo(ErrorCode.SIGNATURE_ALGORITHM);
    }

    @Test
    void aPublicKeyFileIsRefusedAsFormat() throws IOException {
        Path key = SshKeygen.generate(dir, "publisher", "ed25519");
        Path pub = Path.of(key + ".pub");
        Files.setPosixFilePermissions(pub, PosixFilePermissions.fromString("rw-------"));
        assertThat(refusal(pub)).isEqualTo(ErrorCode.SIGNATURE_KEY_FORMAT);
    }

    @Test
    void truncatedAndGarbledKeyFilesAreRefusedAsFormat() throws IOException {
        Path key = SshKeygen.generate(dir, "publisher", "ed25519");
        byte[] bytes = Files.readAllBytes(key);
        Path broken = dir.resolve("broken");
        for (int length : new int[] {0, 1, 36, 100, bytes.length / 2, bytes.length - 40, bytes.length - 2}) {
            Files.write(broken, Arrays.copyOf(bytes, length));
            Files.setPosixFilePermissions(broken, PosixFilePermissions.fromString("rw-------"));
            assertThat(refusal(broken)).as("prefix of %d bytes", length).isEqualTo(ErrorCode.SIGNATURE_KEY_FORMAT);
        }
        byte[] garbled = bytes.clone();
        garbled[200] = (byte) '*';
        Files.write(broken, garbled);
        assertThat(refusal(broken)).isEqualTo(ErrorCode.SIGNATURE_KEY_FORMAT);
        Files.write(broken, "not a key at all\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(refusal(broken)).isEqualTo(ErrorCode.SIGNATURE_KEY_FORMAT);
    }

    @Test
    void aLinkAFifoADirectoryAMissingAndAnOversizedFileAreRefusedWithTheirReadCodes() throws IOException {
        Path key = SshKeygen.generate(dir, "publisher", "ed25519");
        Path link = Files.createSymbolicLink(dir.resolve("link"), key);
        assertThat(refusal(link)).isEqualTo(ErrorCode.READ_LINK);
        assertThat(refusal(dir.resolve("missing"))).isEqualTo(ErrorCode.READ_NOT_FOUND);
        Path directory = Files.createDirectory(
                dir.resolve("directory"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        assertThat(refusal(directory)).isEqualTo(ErrorCode.READ_NOT_REGULAR);
        Path large = Files.write(dir.resolve("large"), new byte[SignatureSigner.MAX_KEY_FILE_BYTES + 1]);
        Files.setPosixFilePermissions(large, PosixFilePermissions.fromString("rw-------"));
        assertThat(refusal(large)).isEqualTo(ErrorCode.READ_TOO_LARGE);

        Path fifo = dir.resolve("fifo");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/mkfifo")), "mkfifo is not installed; FIFO case skipped");
        mkfifo(fifo);
        Files.setPosixFilePermissions(fifo, PosixFilePermissions.fromString("rw-------"));
        // Refused from its type, never opened: opening a FIFO with no writer would block for ever.
        assertThat(refusal(fifo)).isEqualTo(ErrorCode.READ_NOT_REGULAR);
    }

    @ParameterizedTest
    @ValueSource(strings = {"rw-r--r--", "rw-r-----", "rw----r--", "rw--w----", "rw-----w-", "rwx--x---"})
    void aKeyFileOthersCanAccessIsRefusedAsOpenSshRefusesIt(String mode) throws IOException {
        Path key = SshKeygen.generate(dir, "publisher", "ed25519");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString(mode));
        assertThat(refusal(key)).isEqualTo(ErrorCode.SIGNATURE_KEY_PERMISSIONS);
        // ssh-keygen agrees that such a key must not be used.
        Path statement =
                Files.write(dir.resolve("statement"), statement("{}", "x").toBytes());
        assertThat(sshKeygenSignExitCode(key, statement)).isNotZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"rw-------", "r--------"})
    void privateModesAreAccepted(String mode) throws IOException {
        Path key = SshKeygen.generate(dir, "publisher", "ed25519");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString(mode));
        try (SignatureSigner signer = ready(key)) {
            assertThat(signer.keyFingerprint()).isEqualTo(SshKeygen.fingerprint(key));
        }
    }

    @Test
    void aClosedSignerCannotSign() throws IOException {
        Path key = SshKeygen.generate(dir, "publisher", "ed25519");
        SignatureSigner signer = ready(key);
        signer.close();
        signer.close();
        assertThatThrownBy(() -> signer.signatureFile(statement("{}", "x"))).isInstanceOf(IllegalStateException.class);
    }

    private static void mkfifo(Path fifo) throws IOException {
        Process p = new ProcessBuilder(List.of("/usr/bin/mkfifo", fifo.toString()))
                .redirectErrorStream(true)
                .start();
        try {
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        assertThat(p.exitValue()).isZero();
    }

    private static int sshKeygenSignExitCode(Path key, Path message) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(List.of(
                        SshKeygen.BINARY.toString(),
                        "-Y",
                        "sign",
                        "-n",
                        "skillgate",
                        "-f",
                        key.toString(),
                        message.toString()))
                .redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        builder.environment().clear(); // no SSH_AUTH_SOCK: the key file itself must be loaded
        Process p = builder.start();
        p.getInputStream().readAllBytes();
        try {
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        return p.exitValue();
    }
}
