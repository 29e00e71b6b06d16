package dev.skillgate.signature;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.skillgate.model.ErrorCode;
import dev.skillgate.signature.internal.OpenSshPrivateKey;
import dev.skillgate.signature.internal.Refusal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.bouncycastle.crypto.params.Ed25519PrivateKeyParameters;
import org.bouncycastle.crypto.util.OpenSSHPrivateKeyUtil;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The strict {@code openssh-key-v1} parser, one broken rule at a time, on key files built field by
 * field ({@link OpenSshKeyFile}); and seeded byte flips and truncations that must end in a value or
 * a refusal, never another exception.
 */
class OpenSshPrivateKeyTest {

    private static ErrorCode refusal(byte[] file) {
        Refusal refusal = catchThrowableOfType(Refusal.class, () -> OpenSshPrivateKey.parse(file));
        assertThat(refusal).as("the key file must be refused").isNotNull();
        return refusal.code();
    }

    @Test
    void aWellFormedKeyParsesAndAgreesWithBouncyCastle() throws Refusal {
        OpenSshKeyFile built = OpenSshKeyFile.seeded(7);
        try (OpenSshPrivateKey key = OpenSshPrivateKey.parse(built.file())) {
            assertThat(key.publicKey().blob()).isEqualTo(built.publicBlob());
            Ed25519PrivateKeyParameters bc =
                    (Ed25519PrivateKeyParameters) OpenSSHPrivateKeyUtil.parsePrivateKeyBlob(built.blob());
            byte[] message = "message".getBytes(StandardCharsets.US_ASCII);
            org.bouncycastle.crypto.signers.Ed25519Signer signer = new org.bouncycastle.crypto.signers.Ed25519Signer();
            signer.init(true, bc);
            signer.update(message, 0, message.length);
            assertThat(key.sign(message)).isEqualTo(signer.generateSignature());
        }
    }

    @Test
    void crlfLinesOtherWidthsAndAMissingFinalNewlineAreAccepted() throws Refusal {
        OpenSshKeyFile built = OpenSshKeyFile.seeded(8);
        String base64 = Base64.getEncoder().encodeToString(built.blob());
        StringBuilder text = new StringBuilder("-----BEGIN OPENSSH PRIVATE KEY-----\r\n");
        for (int i = 0; i < base64.length(); i += 64) {
            text.append(base64, i, Math.min(base64.length(), i + 64)).append("\r\n");
        }
        text.append("-----END OPENSSH PRIVATE KEY-----");
        OpenSshPrivateKey.parse(text.toString().getBytes(StandardCharsets.US_ASCII))
                .close();
    }

    static Stream<Arguments> brokenRules() {
        return Stream.of(
                rule("cipher aes256-ctr", ErrorCode.SIGNATURE_KEY_ENCRYPTED, k -> {
                    k.cipher = "aes256-ctr";
                    k.kdf = "bcrypt";
                    k.kdfOptions = new byte[24];
                }),
                rule("rsa public key", ErrorCode.SIGNATURE_ALGORITHM, k -> k.publicType = "ssh-rsa"),
                rule("unknown key type", ErrorCode.SIGNATURE_ALGORITHM, k -> k.publicType = "ssh-foo"),
                rule("FIDO ed25519", ErrorCode.SIGNATURE_ALGORITHM, k -> k.publicType = "sk-ssh-ed25519@openssh.com"),
                rule("kdf without cipher", ErrorCode.SIGNATURE_KEY_FORMAT, k -> k.kdf = "bcrypt"),
                rule("kdf options", ErrorCode.SIGNATURE_KEY_FORMAT, k -> k.kdfOptions = new byte[] {1}),
                rule("no keys", ErrorCode.SIGNATURE_KEY_FORMAT, k -> k.keys = 0),
                rule("two keys", ErrorCode.SIGNATURE_KEY_FORMAT, k -> k.keys = 2),
                rule("check integers differ", ErrorCode.SIGNATURE_KEY_FORMAT, k -> k.check2 = k.check1 + 1),
                rule("private type differs", ErrorCode.SIGNATURE_KEY_FORMAT, k -> k.privateType = "ssh-rsa"),
                rule("embedded public differs", ErrorCode.SIGNATURE_KEY_FORMAT, k -> {
                    k.embeddedPublic = k.embeddedPublic.clone();
                    k.embeddedPublic[3] ^= 1;
                }),
                rule("public key of another seed", ErrorCode.SIGNATURE_KEY_FORMAT, k -> {
                    OpenSshKeyFile other = OpenSshKeyFile.seeded(99);
                    k.publicKey = other.publicKey;
                    k.embeddedPublic = other.publicKey;
                    k.privateKey = OpenSshKeyFile.concat(Arrays.copyOf(k.privateKey, 32), other.publicKey);
                }),
                rule("private key tail differs", ErrorCode.SIGNATURE_KEY_FORMAT, k -> {
                    k.privateKey = k.privateKey.clone();
                    k.privateKey[40] ^= 1;
                }),
                rule(
                        "private key of 32 bytes",
                        ErrorCode.SIGNATURE_KEY_FORMAT,
                        k -> k.privateKey = Arrays.copyOf(k.privateKey, 32)),
                rule(
                        "public key of 31 bytes",
                        ErrorCode.SIGNATURE_KEY_FORMAT,
                        k -> k.publicKey = Arrays.copyOf(k.publicKey, 31)),
                rule("padding 1,2,4", ErrorCode.SIGNATURE_KEY_FORMAT, k -> {
                    k.comment = new byte[6]; // body 4+4+15+36+68+10 = 137, so 7 padding bytes
                    k.padding = new byte[] {1, 2, 4, 4, 5, 6, 7};
                }),
                rule("padding of a whole block", ErrorCode.SIGNATURE_KEY_FORMAT, k -> {
                    k.comment = new byte[5];
                    k.padding = new byte[] {1, 2, 3, 4, 5, 6, 7, 8};
                }),
                rule("padding zeros", ErrorCode.SIGNATURE_KEY_FORMAT, k -> {
                    k.comment = new byte[4];
                    k.padding = new byte[] {0};
                }),
                rule("section not whole blocks", ErrorCode.SIGNATURE_KEY_FORMAT, k -> {
                    k.comment = new byte[4];
                    k.padding = new byte[0];
                }),
                rule("data after the section", ErrorCode.SIGNATURE_KEY_FORMAT, k -> k.afterSection = new byte[] {0}));
    }

    private static Arguments rule(String name, ErrorCode code, Consumer<OpenSshKeyFile> breakIt) {
        return Arguments.of(name, code, breakIt);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenRules")
    void eachBrokenRuleHasItsCode(String name, ErrorCode code, Consumer<OpenSshKeyFile> breakIt) {
        OpenSshKeyFile built = OpenSshKeyFile.seeded(3);
        breakIt.accept(built);
        assertThat(refusal(built.file())).as(name).isEqualTo(code);
    }

    @Test
    void armorVariantsAreRefused() {
        byte[] good = OpenSshKeyFile.seeded(4).file();
        String text = new String(good, StandardCharsets.US_ASCII);
        assertThat(refusal(ascii(text.replace("BEGIN OPENSSH", "BEGIN OPENSSL"))))
                .isEqualTo(ErrorCode.SIGNATURE_KEY_FORMAT);
        assertThat(refusal(ascii(" " + text))).isEqualTo(ErrorCode.SIGNATURE_KEY_FORMAT);
        assertThat(refusal(ascii(text + "\n"))).isEqualTo(ErrorCode.SIGNATURE_KEY_FORMAT);
        assertThat(refusal(ascii(text + text))).isEqualTo(ErrorCode.SIGNATURE_KEY_FORMAT);
        assertThat(refusal(ascii(text.replaceFirst("\n", "\n\n")))).isEqualTo(ErrorCode.SIGNATURE_KEY_FORMAT);
        assertThat(refusal(ascii(text.replaceFirst("PRIVATE KEY-----\n([A-Za-z0-9+/]{10})", "PRIVATE KEY-----\n$1 "))))
                .isEqualTo(ErrorCode.SIGNATURE_KEY_FORMAT);
        assertThat(refusal(ascii("-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n")))
                .isEqualTo(ErrorCode.SIGNATURE_ALGORITHM);
        assertThat(refusal(ascii("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")))
                .isEqualTo(ErrorCode.SIGNATURE_KEY_FORMAT);
        assertThat(refusal(new byte[0])).isEqualTo(ErrorCode.SIGNATURE_KEY_FORMAT);
        // Non-canonical base64: unused low bits of the last base64 character set.
        OpenSshKeyFile odd = OpenSshKeyFile.seeded(4);
        while (odd.blob().length % 3 == 0) {
            odd.comment = Arrays.copyOf(odd.comment, odd.comment.length + 1);
        }
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        String base64 = Base64.getEncoder().encodeToString(odd.blob());
        int last = base64.replaceAll("=+$", "").length() - 1;
        String altered = base64.substring(0, last)
                + alphabet.charAt(alphabet.indexOf(base64.charAt(last)) ^ 1)
                + base64.substring(last + 1);
        assertThat(Base64.getDecoder().decode(altered)).isEqualTo(odd.blob());
        StringBuilder armored = new StringBuilder("-----BEGIN OPENSSH PRIVATE KEY-----\n");
        for (int i = 0; i < altered.length(); i += 70) {
            armored.append(altered, i, Math.min(altered.length(), i + 70)).append('\n');
        }
        armored.append("-----END OPENSSH PRIVATE KEY-----\n");
        assertThat(refusal(ascii(armored.toString()))).isEqualTo(ErrorCode.SIGNATURE_KEY_FORMAT);
    }

    /** Every prefix is refused as a format fault, except the whole file without its final LF. */
    @Test
    void everyTruncationIsRefused() {
        byte[] good = OpenSshKeyFile.seeded(5).file();
        for (int length = 0; length < good.length - 1; length++) {
            assertThat(refusal(Arrays.copyOf(good, length)))
                    .as("prefix %d", length)
                    .isEqualTo(ErrorCode.SIGNATURE_KEY_FORMAT);
        }
    }

    /**
     * Seeded single-byte flips in the decoded blob: the result is a refusal, or (a flip in the
     * comment) the same key.
     */
    @Test
    void seededFlipsAreRefusedOrKeepTheKey() {
        OpenSshKeyFile built = OpenSshKeyFile.seeded(6);
        byte[] blob = built.blob();
        Random random = new Random(20261201L);
        int accepted = 0;
        for (int round = 0; round < 3000; round++) {
            byte[] flipped = blob.clone();
            int position = random.nextInt(flipped.length);
            flipped[position] ^= (byte) (1 + random.nextInt(255));
            try (OpenSshPrivateKey key = OpenSshPrivateKey.parse(OpenSshKeyFile.armor(flipped))) {
                accepted++;
                assertThat(key.publicKey().blob()).isEqualTo(built.publicBlob());
            } catch (Refusal refusal) {
                assertThat(refusal.code())
                        .isIn(
                                ErrorCode.SIGNATURE_KEY_FORMAT,
                                ErrorCode.SIGNATURE_ALGORITHM,
                                ErrorCode.SIGNATURE_KEY_ENCRYPTED);
            }
        }
        assertThat(accepted)
                .as("flips in the comment keep the key")
                .isPositive()
                .isLessThan(300);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
